// HIP-3 dex coins (`dex:COIN`): the latest price, funding, open interest and 24 h / cumulative volume, fees and
// trade counts per coin (/hip3/snapshots), read from the rollup of their trades, and the same rows ranked by price
// movement (/hip3/top-movers).
import type pg from 'pg';
import type { AssetCtxRow } from '../../../db/rows/markets.ts';
import { addDecimal } from '../../../platform/decimal.ts';
import { isHip3Coin } from '../../../wire/coins.ts';

export interface Hip3Snapshot {
  dex_id: string;
  coin: string;
  current_mark_price: string | null;
  current_oracle_price: string | null;
  current_funding_rate: string | null;
  open_interest: string | null;
  volume_24h: string;
  fees_24h: string;
  trades_24h: number;
  total_volume_cumulative: string;
  total_fees_cumulative: string;
  is_halted: boolean;
  last_update: number | null;
}

/** One coin's trade sums: the last 24 h and since its first trade. */
export interface Hip3TradeTotals {
  coin: string;
  volume_24h: string;
  fees_24h: string;
  trades_24h: number;
  volume_all: string;
  fees_all: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/*
 * Each HIP-3 coin's sums from the rollup ingest keeps (migration 0024; ingest/formats/fills.ts). The 24 h window
 * [now - 24 h, now] is the whole hours from the first hour starting inside it on (later hours too, as the sum over
 * trades had no upper bound either), plus the trades of the part before it of the hour it starts in: the window is
 * exact. The cumulative figures are the coin's running totals, one row: summing its hours instead would read 8 760
 * more rows per coin every year it trades. A numeric sum keeps the largest scale it adds (as addDecimal does), so each
 * figure reads as the sum over the trades does, digit for digit.
 *
 * The part hour is up to an hour of trades (~33 000 at mainnet's HIP-3 rate, ~25 ms of a 2-core machine a call), but
 * the window starts inside the same hour for an hour: that hour is read once (EdgeHour) and each call takes its part
 * by a binary search per coin, while its rollup row holds as many trades as were read.
 */

/** Per coin: the running totals, the sums of the whole hours from $1 on, and the trades of hour $2 (the part hour). */
const HOURS_SQL = `SELECT c.coin, c.volume::text AS volume_all, c.fees::text AS fees_all,
    h.volume::text AS volume, h.fees::text AS fees, coalesce(h.trades, 0)::int AS trades,
    coalesce(e.trades, 0) AS edge_trades
  FROM markets.hip3_trade_totals c
  CROSS JOIN LATERAL (SELECT sum(volume) AS volume, sum(fees) AS fees, sum(trades) AS trades
    FROM markets.hip3_trade_hours WHERE coin = c.coin AND hour >= $1) h
  LEFT JOIN markets.hip3_trade_hours e ON e.coin = c.coin AND e.hour = $2`;

interface HourSums {
  coin: string;
  volume_all: string;
  fees_all: string;
  volume: string | null;
  fees: string | null;
  trades: number;
  edge_trades: number;
}

/**
 * The trades of hour [$2, $3) of coins $1, each with the sums of the coin's trades from its time to the hour's end
 * (a window over time descending counts the trades of the same time together).
 */
const EDGE_HOUR_SQL = `SELECT coin, time, (sum(px * sz) OVER w)::text AS volume, (sum(fees) OVER w)::text AS fees,
    (count(*) OVER w)::int AS trades
  FROM markets.trades WHERE coin = ANY($1::text[]) AND time >= $2 AND time < $3
  WINDOW w AS (PARTITION BY coin ORDER BY time DESC)
  ORDER BY coin, time`;

interface Sums {
  volume: string;
  fees: string;
  trades: number;
}

/** One coin's trades of the part hour: their times ascending and, at each, the sums from there to the hour's end. */
interface EdgeCoin {
  times: number[];
  sums: Sums[];
}

/** The hour the 24 h window starts in, as EDGE_HOUR_SQL read it. */
class EdgeHour {
  constructor(
    readonly hour: number,
    private readonly coins: ReadonlyMap<string, EdgeCoin>,
  ) {}

  /** Whether it holds as many trades of each coin as the rollup's row of the hour (trades are only ever added). */
  matches(rows: readonly HourSums[]): boolean {
    return rows.every((r) => (this.coins.get(r.coin)?.sums[0]?.trades ?? 0) === r.edge_trades);
  }

  /** The sums of a coin's trades from `from` to the hour's end (undefined: none). */
  from(coin: string, from: number): Sums | undefined {
    const c = this.coins.get(coin);
    if (!c) return undefined;
    let lo = 0;
    let hi = c.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((c.times[mid] as number) < from) lo = mid + 1;
      else hi = mid;
    }
    return c.sums[lo];
  }

  static async read(pool: pg.Pool, hour: number, coins: string[]): Promise<EdgeHour> {
    const { rows } = await pool.query<Sums & { coin: string; time: number }>(EDGE_HOUR_SQL, [
      coins,
      hour,
      hour + HOUR_MS,
    ]);
    const byCoin = new Map<string, EdgeCoin>();
    for (const { coin, time, volume, fees, trades } of rows) {
      let c = byCoin.get(coin);
      if (!c) {
        c = { times: [], sums: [] };
        byCoin.set(coin, c);
      }
      c.times.push(time);
      c.sums.push({ volume, fees, trades });
    }
    return new EdgeHour(hour, byCoin);
  }
}

/**
 * The same sums in one statement, the part hour read from the trades on their (coin, time) index: what answers when
 * a trade reached that hour between the two reads above (a backfill loading it).
 */
const ROLLUP_SQL = `SELECT c.coin,
    (coalesce(h.volume, 0) + coalesce(e.volume, 0))::text AS volume_24h,
    (coalesce(h.fees, 0) + coalesce(e.fees, 0))::text AS fees_24h,
    (coalesce(h.trades, 0) + e.trades)::int AS trades_24h,
    c.volume::text AS volume_all, c.fees::text AS fees_all
  FROM markets.hip3_trade_totals c
  CROSS JOIN LATERAL (SELECT sum(volume) AS volume, sum(fees) AS fees, sum(trades) AS trades
    FROM markets.hip3_trade_hours WHERE coin = c.coin AND hour >= $2) h
  CROSS JOIN LATERAL (SELECT sum(px * sz) AS volume, sum(fees) AS fees, count(*) AS trades
    FROM markets.trades WHERE coin = c.coin AND time >= $1 AND time < $2) e`;

/**
 * The same sums over every HIP-3 trade stored: what answers while the rollup's fill of the trades stored before it is
 * unfinished (markets.hip3_trade_fill), and the rollup's reference in its tests and bench. Its cost grows with history.
 */
export const HIP3_SCAN_SQL = `SELECT coin,
    coalesce(sum(px * sz) FILTER (WHERE time >= $1), 0)::text AS volume_24h,
    coalesce(sum(fees) FILTER (WHERE time >= $1), 0)::text AS fees_24h,
    (count(*) FILTER (WHERE time >= $1))::int AS trades_24h,
    sum(px * sz)::text AS volume_all, sum(fees)::text AS fees_all
  FROM markets.trades WHERE coin LIKE '%:%' GROUP BY coin`;

/**
 * What a markets service keeps between calls: whether the rollup holds every stored trade (asked until its fill is
 * done, then known for good), and the hours the 24 h window starts in, this one and (with `readAhead`) the next,
 * read before the window reaches it, so that no call waits for it.
 */
export class Hip3Rollup {
  private filled = false;
  private readonly hours = new Map<number, Promise<EdgeHour>>();

  constructor(private readonly opts: { readAhead?: boolean } = {}) {}

  async ready(pool: pg.Pool): Promise<boolean> {
    if (!this.filled) {
      const { rowCount } = await pool.query('SELECT 1 FROM markets.hip3_trade_fill');
      this.filled = rowCount === 0;
    }
    return this.filled;
  }

  /** Hour `hour` as read before, or read now for `coins` (`again`: read again whatever is kept). */
  edgeHour(pool: pg.Pool, hour: number, coins: string[], again = false): Promise<EdgeHour> {
    const kept = this.hours.get(hour);
    if (kept && !again) return kept;
    const read = EdgeHour.read(pool, hour, coins);
    this.hours.set(hour, read);
    read.catch(() => {
      if (this.hours.get(hour) === read) this.hours.delete(hour);
    });
    return read;
  }

  /** Forgets the hours before `hour` (the window has left them). */
  keepFrom(hour: number): void {
    for (const h of this.hours.keys()) if (h < hour) this.hours.delete(h);
  }

  /** With `readAhead`: starts reading the hour after `hour` unless it is kept (a failure is left to its caller). */
  readAhead(pool: pg.Pool, hour: number, coins: string[]): void {
    if (!this.opts.readAhead || this.hours.has(hour + HOUR_MS)) return;
    this.edgeHour(pool, hour + HOUR_MS, coins).catch(() => {});
  }
}

/** Each HIP-3 coin's trade sums at `now`: from the rollup once it is filled, summed from the trades until then. */
export async function hip3TradeTotals(
  pool: pg.Pool,
  now: number,
  rollup: Hip3Rollup = new Hip3Rollup(),
): Promise<Hip3TradeTotals[]> {
  const from = now - DAY_MS;
  if (!(await rollup.ready(pool))) return (await pool.query<Hip3TradeTotals>(HIP3_SCAN_SQL, [from])).rows;
  const first = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const edgeHour = first - HOUR_MS;
  const { rows } = await pool.query<HourSums>(HOURS_SQL, [first, edgeHour]);
  rollup.keepFrom(edgeHour);
  // The next part hour: the coins with trades in the whole hours, of which it is the first.
  rollup.readAhead(
    pool,
    edgeHour,
    rows.filter((r) => r.trades > 0).map((r) => r.coin),
  );
  if (from === first) return rows.map((r) => withPart(r, undefined));
  const coins = rows.filter((r) => r.edge_trades > 0).map((r) => r.coin);
  for (const again of [false, true]) {
    const edge = await rollup.edgeHour(pool, edgeHour, coins, again);
    if (edge.matches(rows)) return rows.map((r) => withPart(r, edge.from(r.coin, from)));
  }
  return (await pool.query<Hip3TradeTotals>(ROLLUP_SQL, [from, first])).rows;
}

/** A coin's whole hours and the part hour added up, as `coalesce(h, 0) + coalesce(part, 0)` in SQL would. */
function withPart(r: HourSums, part: Sums | undefined): Hip3TradeTotals {
  return {
    coin: r.coin,
    volume_24h: addDecimal(r.volume ?? '0', part?.volume ?? '0'),
    fees_24h: addDecimal(r.fees ?? '0', part?.fees ?? '0'),
    trades_24h: r.trades + (part?.trades ?? 0),
    volume_all: r.volume_all,
    fees_all: r.fees_all,
  };
}

export async function hip3Snapshots(
  pool: pg.Pool,
  ctxs: ReadonlyMap<string, AssetCtxRow>,
  now: number,
  filter: { dexId?: string; coin?: string } = {},
  rollup?: Hip3Rollup,
): Promise<Hip3Snapshot[]> {
  const totals = new Map((await hip3TradeTotals(pool, now, rollup)).map((r) => [r.coin, r]));
  const out: Hip3Snapshot[] = [];
  for (const coin of hip3Coins(ctxs, totals.keys())) {
    const dexId = dexOf(coin);
    if ((filter.dexId && filter.dexId !== dexId) || (filter.coin && filter.coin !== coin)) continue;
    const ctx = ctxs.get(coin);
    const t = totals.get(coin);
    out.push({
      dex_id: dexId,
      coin,
      current_mark_price: ctx?.mark_px ?? null,
      current_oracle_price: ctx?.oracle_px ?? null,
      current_funding_rate: ctx?.funding ?? null,
      open_interest: ctx?.open_interest ?? null,
      volume_24h: t?.volume_24h ?? '0',
      fees_24h: t?.fees_24h ?? '0',
      trades_24h: t?.trades_24h ?? 0,
      total_volume_cumulative: t?.volume_all ?? '0',
      total_fees_cumulative: t?.fees_all ?? '0',
      // A coin whose oracle stopped updating for an hour is reported halted.
      is_halted: ctx ? now - ctx.time > 3_600_000 : true,
      last_update: ctx?.time ?? null,
    });
  }
  return out;
}

/** The HIP-3 coins with a context or a trade, sorted: the snapshots' rows. */
const hip3Coins = (ctxs: ReadonlyMap<string, AssetCtxRow>, traded: Iterable<string>): string[] =>
  [...new Set([...ctxs.keys(), ...traded])].filter(isHip3Coin).sort();

/** The HIP-3 dexes with a snapshot, in the snapshots' order: the coins' names read, not their sums. */
export async function hip3Dexes(pool: pg.Pool, ctxs: ReadonlyMap<string, AssetCtxRow>): Promise<string[]> {
  const { rows } = await pool.query<{ coin: string }>('SELECT coin FROM markets.hip3_trade_totals');
  const coins = hip3Coins(
    ctxs,
    rows.map((r) => r.coin),
  );
  return [...new Set(coins.map(dexOf))];
}

/** The HIP-3 dex a coin is listed on (`<dex>:<COIN>`); '' for the native perp dex and spot. */
export function dexOf(coin: string): string {
  const colon = coin.indexOf(':');
  return colon > 0 ? coin.slice(0, colon) : '';
}

/** Price movement over 24 h (mark against the previous day's price), as a fraction; 0 when unknown. */
export function priceMove(ctx: AssetCtxRow | undefined): number {
  const mark = Number(ctx?.mark_px);
  const prev = Number(ctx?.prev_day_px);
  return mark > 0 && prev > 0 ? mark / prev - 1 : 0;
}
