// HIP-4 fills as stored by ingest (hip4.fills, one row per side of a match on an outcome coin, plus settlement
// fills): the fill list with its market's names and venue, statistics per venue (providers), time buckets
// (analytics) and a user's positions.
//
// Volume counts each match once: the taker's fill (`crossed`), split by the taker's side into buy and sell volume;
// fill counts, fees and unique users count every fill row. Settlement fills are payouts, not trading: the
// statistics leave them out.
import type pg from 'pg';
import { eachTextRow } from '../../../db/pool.ts';
import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import { trimDecimal } from '../../../platform/decimal.ts';
import type { TextRow } from '../../../platform/json-text.ts';
import { ORACLE_VENUE, type Paging, storedVenue } from './registry.ts';

/** Notional of the matches among the selected fills (each match once: its taker's fill). */
const TRADED = 'coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed), 0)';

export interface Hip4FillFilter {
  user?: string;
  coin?: string;
  outcomeId?: number;
  startTime?: number;
  endTime?: number;
}

/** A fill with its outcome's name, description and venue ('' for oracle-emitted markets). */
export interface Hip4FillWithMarket extends Hip4FillRow {
  market_name: string | null;
  market_description: string | null;
  venue: string;
  deployer: string;
}

/**
 * The fill list's columns, every field of a Hip4FillWithMarket, each with the SQL it is read by, in a text row's
 * order (FILL_COLUMN). Money and sizes as text, exact; the market's fields joined from its outcome.
 */
const FILL_SQL = {
  block_number: 'f.block_number',
  time: 'f.time',
  address: 'f.address',
  coin: 'f.coin',
  outcome_id: 'f.outcome_id',
  side_index: 'f.side_index',
  px: 'f.px::text',
  sz: 'f.sz::text',
  side: 'f.side',
  dir: 'f.dir',
  closed_pnl: 'f.closed_pnl::text',
  hash: 'f.hash',
  oid: 'f.oid',
  tid: 'f.tid',
  fee: 'f.fee::text',
  fee_token: 'f.fee_token',
  crossed: 'f.crossed',
  is_settlement: 'f.is_settlement',
  market_name: 'o.name',
  market_description: 'o.description',
  venue: "coalesce(o.venue, '')",
  deployer: "coalesce(o.deployer, '')",
} as const satisfies Record<keyof Hip4FillWithMarket, string>;

/** A fill list column's index in a text row (eachFillTextRow). */
export const FILL_COLUMN = Object.fromEntries(Object.keys(FILL_SQL).map((name, i) => [name, i])) as Record<
  keyof Hip4FillWithMarket,
  number
>;

/** The fill list's SELECT list. */
const FILL_SELECT = Object.entries(FILL_SQL)
  .map(([name, sql]) => `${sql} AS ${name}`)
  .join(', ');

/** Where a page of the fill list resumes: the key of its last row, in the list's order. */
export interface Hip4FillKey {
  time: string;
  tid: string;
  address: string;
  side: string;
}

/**
 * Newest first, by (time, tid, address, side) descending: a total order, so offset pages never lose a row, and a
 * keyset page (`after`) resumes right after the row it names.
 */
function fillsStatement(
  filter: Hip4FillFilter,
  page: Paging & { after?: Hip4FillKey },
): { text: string; values: unknown[] } {
  return {
    text: `SELECT ${FILL_SELECT}
     FROM hip4.fills f LEFT JOIN hip4.outcomes o ON o.outcome_id = f.outcome_id
     WHERE ($1::text IS NULL OR f.address = $1) AND ($2::text IS NULL OR f.coin = $2)
       AND ($3::int IS NULL OR f.outcome_id = $3) AND ($4::bigint IS NULL OR f.time >= $4)
       AND ($5::bigint IS NULL OR f.time <= $5)
       AND ($8::bigint IS NULL OR (f.time, f.tid, f.address, f.side) < ($8, $9::bigint, $10::text, $11::char(1)))
     ORDER BY f.time DESC, f.tid DESC, f.address DESC, f.side DESC LIMIT $6 OFFSET $7`,
    values: [
      filter.user ?? null,
      filter.coin ?? null,
      filter.outcomeId ?? null,
      filter.startTime ?? null,
      filter.endTime ?? null,
      page.limit,
      page.offset,
      page.after?.time ?? null,
      page.after?.tid ?? null,
      page.after?.address ?? null,
      page.after?.side ?? null,
    ],
  };
}

export async function fills(
  pool: pg.Pool,
  filter: Hip4FillFilter,
  page: Paging & { after?: Hip4FillKey },
): Promise<Hip4FillWithMarket[]> {
  return (await pool.query<Hip4FillWithMarket>(fillsStatement(filter, page))).rows;
}

/** The same fills as Postgres's text, row by row (columns at FILL_COLUMN), for an answer written as JSON text. */
export function eachFillTextRow(
  pool: pg.Pool,
  filter: Hip4FillFilter,
  page: Paging & { after?: Hip4FillKey },
  onRow: (row: TextRow) => void,
): Promise<void> {
  return eachTextRow(pool, fillsStatement(filter, page), onRow);
}

export interface ProviderStats {
  /** The venue's name; `oracle` for oracle-emitted markets. */
  venue: string;
  markets_traded: number;
  fills: number;
  /** Decimal text, exact (each match's notional once). */
  volume_usdc: string;
  unique_users: number;
  /** Decimal text, exact. */
  fees: string;
  /** Epoch ms of the venue's last fill in the window. */
  last_trade: number;
}

/**
 * One row per venue with a fill of a registered outcome in the inclusive window, by traded volume descending (then
 * venue). Aggregated in two
 * steps: per outcome and address (one hash aggregate over the fills), then per venue, where distinct outcomes and
 * addresses are plain counts of the first step's groups instead of sorts of every fill.
 */
export async function providers(
  pool: pg.Pool,
  filter: { venue?: string; startTime?: number; endTime?: number },
  page: Paging,
): Promise<ProviderStats[]> {
  const { rows } = await pool.query<ProviderStats>(
    `WITH per_user AS (
       SELECT f.outcome_id, f.address, count(*) AS fills, ${TRADED} AS volume, sum(f.fee) AS fees, max(f.time) AS last
       FROM hip4.fills f
       WHERE NOT f.is_settlement AND ($2::bigint IS NULL OR f.time >= $2) AND ($3::bigint IS NULL OR f.time <= $3)
       GROUP BY f.outcome_id, f.address
     ), per_venue_user AS (
       SELECT coalesce(nullif(o.venue, ''), $1) AS venue, u.address, sum(u.fills) AS fills, sum(u.volume) AS volume,
         sum(u.fees) AS fees, max(u.last) AS last
       FROM per_user u JOIN hip4.outcomes o ON o.outcome_id = u.outcome_id
       WHERE $4::text IS NULL OR o.venue = $4
       GROUP BY 1, 2
     ), per_venue_outcomes AS (
       SELECT coalesce(nullif(o.venue, ''), $1) AS venue, count(DISTINCT u.outcome_id)::int AS markets_traded
       FROM (SELECT DISTINCT outcome_id FROM per_user) u JOIN hip4.outcomes o ON o.outcome_id = u.outcome_id
       GROUP BY 1
     )
     SELECT v.venue, m.markets_traded, sum(v.fills)::int AS fills, sum(v.volume)::text AS volume_usdc,
       count(*)::int AS unique_users, sum(v.fees)::text AS fees, max(v.last) AS last_trade
     FROM per_venue_user v JOIN per_venue_outcomes m ON m.venue = v.venue
     GROUP BY v.venue, m.markets_traded ORDER BY sum(v.volume) DESC, v.venue LIMIT $5 OFFSET $6`,
    [
      ORACLE_VENUE,
      filter.startTime ?? null,
      filter.endTime ?? null,
      filter.venue === undefined ? null : storedVenue(filter.venue),
      page.limit,
      page.offset,
    ],
  );
  return rows.map((r) => ({ ...r, volume_usdc: trimDecimal(r.volume_usdc), fees: trimDecimal(r.fees) }));
}

export const ANALYTICS_INTERVALS = ['1h', '4h', '1d'] as const;
export type AnalyticsInterval = (typeof ANALYTICS_INTERVALS)[number];
export const INTERVAL_MS: Record<AnalyticsInterval, number> = { '1h': 3_600_000, '4h': 14_400_000, '1d': 86_400_000 };

export interface AnalyticsBucket {
  /** Epoch ms of the bucket's start (aligned to the interval, UTC). */
  bucket: number;
  /** Set when the rows are split by coin. */
  coin?: string;
  fills: number;
  volume: number;
  buy_volume: number;
  sell_volume: number;
  fees_usdc: number;
  unique_users: number;
}

export interface AnalyticsQuery {
  interval: AnalyticsInterval;
  /** Outcome coins (`#2901`). */
  coins?: readonly string[];
  outcomeId?: number;
  startTime: number;
  endTime: number;
  /** Split the rows by coin. */
  byCoin: boolean;
}

const HOUR_MS = 3_600_000;

/**
 * Buckets with fills in the inclusive window, oldest first (then by coin); empty buckets are left out. A coin's
 * 1h buckets (the rows split by coin, or one coin) are rows of the hourly rollup (hip4.fill_hours, kept by
 * triggers with the fills) over the window's whole hours, and the fills themselves aggregated over the partial
 * hours at its edges: any window answers as the fills do. Other buckets (4h, 1d, or several coins in one row)
 * aggregate the fills: their unique users are not a sum of hours' or coins' unique users.
 */
export async function analytics(pool: pg.Pool, q: AnalyticsQuery, page: Paging): Promise<AnalyticsBucket[]> {
  if (q.interval === '1h' && (q.byCoin || q.coins?.length === 1)) return coinHours(pool, q, page);
  return analyticsOfFills(pool, q, page);
}

/** The buckets aggregated from the fills themselves: every interval and selection (what the rollup must equal). */
export async function analyticsOfFills(pool: pg.Pool, q: AnalyticsQuery, page: Paging): Promise<AnalyticsBucket[]> {
  const coin = q.byCoin ? ', f.coin' : '';
  const { rows } = await pool.query<AnalyticsBucket>(
    `SELECT (f.time / $1::bigint) * $1::bigint AS bucket${coin}, count(*)::int AS fills,
       ${TRADED}::float8 AS volume,
       coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'B'), 0)::float8 AS buy_volume,
       coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'A'), 0)::float8 AS sell_volume,
       coalesce(sum(f.fee), 0)::float8 AS fees_usdc, count(DISTINCT f.address)::int AS unique_users
     FROM hip4.fills f
     WHERE NOT f.is_settlement AND f.time >= $2 AND f.time <= $3
       AND ($4::text[] IS NULL OR f.coin = ANY($4)) AND ($5::int IS NULL OR f.outcome_id = $5)
     GROUP BY 1${coin} ORDER BY 1${coin} LIMIT $6 OFFSET $7`,
    [INTERVAL_MS[q.interval], q.startTime, q.endTime, q.coins ?? null, q.outcomeId ?? null, page.limit, page.offset],
  );
  return rows;
}

/** 1h buckets of each coin: the rollup's whole hours, and the edge hours' fills aggregated alike. */
async function coinHours(pool: pg.Pool, q: AnalyticsQuery, page: Paging): Promise<AnalyticsBucket[]> {
  // The whole hours [fullFrom, fullTo) inside the window; none when it holds no whole hour.
  let fullFrom = Math.ceil(q.startTime / HOUR_MS) * HOUR_MS;
  let fullTo = Math.floor((q.endTime + 1) / HOUR_MS) * HOUR_MS;
  if (fullTo <= fullFrom) fullFrom = fullTo = q.endTime + 1;
  const columns = `h.hour AS bucket${q.byCoin ? ', h.coin' : ''}, h.fills, h.volume::float8 AS volume,
    h.buy_volume::float8 AS buy_volume, h.sell_volume::float8 AS sell_volume, h.fees::float8 AS fees_usdc,
    h.users AS unique_users`;
  const where = '($3::text[] IS NULL OR h.coin = ANY($3)) AND ($4::int IS NULL OR h.outcome_id = $4)';
  // A window on whole hours (the usual page of history) has no edge to read from the fills.
  const edges =
    q.startTime === fullFrom && q.endTime + 1 === fullTo
      ? ''
      : `UNION ALL
         SELECT ${columns} FROM hip4.fill_hours_of(ARRAY(
           SELECT f FROM hip4.fills f
           WHERE ((f.time >= $7 AND f.time < $1) OR (f.time >= $2 AND f.time <= $8))
             AND ($3::text[] IS NULL OR f.coin = ANY($3)) AND ($4::int IS NULL OR f.outcome_id = $4))) h`;
  const { rows } = await pool.query<AnalyticsBucket>(
    `SELECT ${columns} FROM hip4.fill_hours h WHERE h.hour >= $1 AND h.hour < $2 AND ${where}
     ${edges}
     ORDER BY bucket${q.byCoin ? ', coin' : ''} LIMIT $5 OFFSET $6`,
    [fullFrom, fullTo, q.coins ?? null, q.outcomeId ?? null, page.limit, page.offset].concat(
      edges ? [q.startTime, q.endTime] : [],
    ),
  );
  return rows;
}

/** Whether any HIP-4 fill is held: the analytics envelope's status. */
export async function anyFill(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM hip4.fills) AS any');
  return rows[0]?.any ?? false;
}

/** What a user holds of one outcome side: the net of its fills (settlement fills close it). */
export interface Hip4Position {
  coin: string;
  outcome_id: number;
  side_index: number;
  /** Net size bought (positive) or sold (negative). */
  size: string;
  /** Cash paid for the net size (buys minus sells, fees excluded). */
  cost: string;
  fills: number;
  last_fill: number;
}

/** A user's outcome sides with a non-zero net size, by coin. */
export async function positions(pool: pg.Pool, user: string): Promise<Hip4Position[]> {
  const { rows } = await pool.query<Hip4Position>(
    `SELECT coin, outcome_id, side_index,
       sum(CASE WHEN side = 'B' THEN sz ELSE -sz END)::text AS size,
       sum(CASE WHEN side = 'B' THEN px * sz ELSE -px * sz END)::text AS cost,
       count(*)::int AS fills, max(time) AS last_fill
     FROM hip4.fills WHERE address = $1
     GROUP BY coin, outcome_id, side_index
     HAVING sum(CASE WHEN side = 'B' THEN sz ELSE -sz END) <> 0
     ORDER BY coin`,
    [user],
  );
  return rows;
}

/** The last traded price of each coin (settlement fills excluded), read from the (coin, time) index. */
export async function lastPrices(pool: pg.Pool, coins: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ coin: string; px: string }>(
    `SELECT c.coin, l.px FROM unnest($1::text[]) AS c(coin)
     CROSS JOIN LATERAL (
       SELECT f.px::text AS px FROM hip4.fills f WHERE f.coin = c.coin AND NOT f.is_settlement
       ORDER BY f.time DESC LIMIT 1
     ) l`,
    [coins],
  );
  return new Map(rows.map((r) => [r.coin, r.px]));
}
