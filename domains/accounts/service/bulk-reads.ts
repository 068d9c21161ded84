// Accounts' stored events read in bulk by other parts, through accounts' port (port.ts): by a derivation over them
// in time order (the analytics writer, on the writer thread), the perp fills, funding payments and cash ledger updates
// of a range, the bounds of what is stored, and the perp fills grouped by builder, address and hour as a subquery of
// the caller's one statement; by the archive import, whether an hour's events are stored already. Each read is one
// statement on the caller's connection (its transaction, its lock) with the caller's time limit: no row is read alone.
import type pg from 'pg';
import type { Queryable } from '../../../db/pool.ts';
import { CASH_TYPES, PERP_COIN } from './cash.ts';

/** A pool, a client, or a client's queue (a caller keeping several statements of its transaction in flight). */
type Db = Queryable;

/** A perp fill as a derivation applies it (numerics as their text). */
export interface PerpFillEvent {
  time: number;
  address: string;
  coin: string;
  px: string;
  sz: string;
  side: 'A' | 'B';
  start_position: string;
  closed_pnl: string;
  fee: string;
}

/** A perp funding payment (`usdc`: received, negative when paid). */
export interface PerpFundingEvent {
  time: number;
  address: string;
  coin: string;
  usdc: string;
}

/** A ledger update of a type that can move perp USDC (`ledgerCash` of cash.ts says by how much). */
export interface CashLedgerEvent {
  time: number;
  address: string;
  delta_type: string;
  delta: Record<string, unknown>;
}

/** One statement, limited to `timeoutMs` on the client's side when given (else the pool's limit). */
async function rowsOf<R extends pg.QueryResultRow>(
  db: Db,
  text: string,
  values: unknown[] | undefined,
  timeoutMs: number | undefined,
): Promise<R[]> {
  const { rows } = await db.query<R>({
    text,
    values,
    ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }),
  } as pg.QueryConfig);
  return rows;
}

/** The perp fills of [from, end), in execution order (the position moves from each fill's start). */
export function perpFillsOf(db: Db, from: number, end: number, timeoutMs?: number): Promise<PerpFillEvent[]> {
  return rowsOf<PerpFillEvent>(
    db,
    `SELECT address, coin, px::text AS px, sz::text AS sz, side, time,
       start_position::text AS start_position, closed_pnl::text AS closed_pnl, fee::text AS fee
     FROM accounts.fills WHERE time >= $1 AND time < $2 AND ${PERP_COIN}
     -- within one account, coin and millisecond: in execution order (the position moves from each fill's start)
     ORDER BY time, block_number, address, coin,
       CASE WHEN side = 'B' THEN start_position ELSE -start_position END, tid`,
    [from, end],
    timeoutMs,
  );
}

/**
 * The perp funding payments of [from, end), by time, address and coin. Read through the (coin, time) index, for every
 * perp coin that has funding stored (a loose index scan: one probe per coin), not only the coins filled so far: a
 * payment on a position opened before the stored history is still money paid or received.
 */
export async function perpFundingOf(
  db: Db,
  from: number,
  end: number,
  timeoutMs?: number,
): Promise<PerpFundingEvent[]> {
  const coins = await rowsOf<{ coin: string }>(
    db,
    `WITH RECURSIVE c (coin) AS (
       (SELECT coin FROM accounts.funding_payments ORDER BY coin LIMIT 1)
       UNION ALL
       SELECT (SELECT f.coin FROM accounts.funding_payments f WHERE f.coin > c.coin ORDER BY f.coin LIMIT 1)
       FROM c WHERE c.coin IS NOT NULL)
     SELECT coin FROM c WHERE coin IS NOT NULL AND ${PERP_COIN}`,
    undefined,
    timeoutMs,
  );
  return rowsOf<PerpFundingEvent>(
    db,
    `SELECT address, coin, usdc::text AS usdc, time FROM accounts.funding_payments
     WHERE coin = ANY($3) AND time >= $1 AND time < $2 ORDER BY time, address, coin`,
    [from, end, coins.map((r) => r.coin)],
    timeoutMs,
  );
}

/** The ledger updates of [from, end) that can move perp USDC, by time, address and hash. */
export function cashLedgerOf(db: Db, from: number, end: number, timeoutMs?: number): Promise<CashLedgerEvent[]> {
  return rowsOf<CashLedgerEvent>(
    db,
    `SELECT address, delta_type, delta, time FROM accounts.ledger_updates
     WHERE delta_type = ANY($3) AND time >= $1 AND time < $2 ORDER BY time, address, hash`,
    [from, end, CASH_TYPES],
    timeoutMs,
  );
}

/** The time of the earliest stored event a perp account's cash moves with (a fill, a payment, a cash update). */
export async function firstPerpEventTime(db: Db, timeoutMs?: number): Promise<number | null> {
  const rows = await rowsOf<{ t: number | null }>(
    db,
    `SELECT least(
       (SELECT min(time) FROM accounts.fills WHERE ${PERP_COIN}),
       (SELECT min(time) FROM accounts.funding_payments WHERE ${PERP_COIN}),
       (SELECT min(time) FROM accounts.ledger_updates WHERE delta_type = ANY($1))) AS t`,
    [CASH_TYPES],
    timeoutMs,
  );
  return rows[0]?.t ?? null;
}

/** Just after the latest stored fill, funding payment or ledger update (null: none stored). */
export async function storedEventsEnd(db: Db): Promise<number | null> {
  const rows = await rowsOf<{ t: number | null }>(
    db,
    `SELECT greatest((SELECT max(time) FROM accounts.fills), (SELECT max(time) FROM accounts.funding_payments),
       (SELECT max(time) FROM accounts.ledger_updates)) + 1 AS t`,
    undefined,
    undefined,
  );
  return rows[0]?.t ?? null;
}

/** The perp fills stored before `upTo`. */
export async function perpFillsBefore(db: Db, upTo: number): Promise<number> {
  const rows = await rowsOf<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM accounts.fills WHERE time < $1 AND ${PERP_COIN}`,
    [upTo],
    undefined,
  );
  return rows[0]?.n ?? 0;
}

/** The time of the fill (of any coin) `skip` fills on from `from`, before `end` (null: fewer are stored). */
export async function fillTimeAfter(
  db: Db,
  from: number,
  end: number,
  skip: number,
  timeoutMs?: number,
): Promise<number | null> {
  const rows = await rowsOf<{ time: number }>(
    db,
    'SELECT time FROM accounts.fills WHERE time >= $1 AND time < $2 ORDER BY time LIMIT 1 OFFSET $3',
    [from, end, skip],
    timeoutMs,
  );
  return rows[0]?.time ?? null;
}

/**
 * SQL, a subquery: the perp fills of [$1, $2) grouped by builder ('' for none), address and `hour` (its first
 * millisecond), with `fills`, `volume` (Σ px·sz), `realized` (Σ closed_pnl), `fees`, `coins` (sorted, "C" collation),
 * `first_fill` and `last_fill`. For a caller's one statement that writes its sums from them (the analytics writer's:
 * grouping in Postgres beats reading every fill into Node).
 */
export const PERP_FILLS_BY_BUILDER_HOUR = `
  SELECT coalesce(builder, '') AS builder, address, time / 3600000 * 3600000 AS hour, count(*)::int4 AS fills,
    sum(px * sz) AS volume, sum(closed_pnl) AS realized, sum(fee) AS fees,
    array_agg(DISTINCT coin COLLATE "C" ORDER BY coin COLLATE "C") AS coins, min(time) AS first_fill,
    max(time) AS last_fill
  FROM accounts.fills WHERE time >= $1 AND time < $2 AND ${PERP_COIN} GROUP BY 1, 2, 3`;

/**
 * SQL, a subquery: the perp fills of [$1, $2) grouped by address and UTC day (`k`, a date), with `fills`, `volume`,
 * `realized` and `fees` as in PERP_FILLS_BY_BUILDER_HOUR, and `first_hour`, the hour of the address's first of them.
 */
export const PERP_FILLS_BY_DAY = `
  SELECT address, '1970-01-01'::date + (time / 86400000)::int4 AS k, count(*)::int4 AS fills, sum(px * sz) AS volume,
    sum(closed_pnl) AS realized, sum(fee) AS fees, min(time) / 3600000 * 3600000 AS first_hour
  FROM accounts.fills WHERE time >= $1 AND time < $2 AND ${PERP_COIN} GROUP BY 1, 2`;

/** Accounts' tables of timed node events another part asks about, by what they hold. */
export const TIMED_EVENT_TABLES = { fills: 'accounts.fills', funding: 'accounts.funding_payments' } as const;
export type TimedEvents = keyof typeof TIMED_EVENT_TABLES;

/** Whether any of `events` is stored in [from, end). */
export async function anyStoredIn(db: Db, events: TimedEvents, from: number, end: number): Promise<boolean> {
  const rows = await rowsOf(
    db,
    `SELECT 1 FROM ${TIMED_EVENT_TABLES[events]} WHERE time >= $1 AND time < $2 LIMIT 1`,
    [from, end],
    undefined,
  );
  return rows.length > 0;
}
