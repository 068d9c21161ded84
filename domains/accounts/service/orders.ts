// Indexed order history: historicalOrders (spec §4.1, all four rules) and the history step of orderStatus, both
// in the exchange's FrontendOpenOrder shape.
//
// How rules 2 and 4 combine (one "row" = one {order, status, statusTimestamp} entry):
// - An ordinary order gives ONE row: its latest status inside the window (rule 2).
// - A trigger order (any of its status rows has isTrigger) gives ONE ROW PER DISTINCT STATUS inside the window,
//   each the latest row of that status: an executed stop shows open, triggered and filled (spec §3), each row
//   with the order as the node printed it at that status (open/triggered: triggerPx, triggerCondition, creation
//   timestamp; filled: triggerPx "0.0" and the execution timestamp).
// - `limit` counts orders (rule 4): a trigger order's rows count once, and its rows are never split across pages.
// - Without startTime/endTime/cursor (rule 1) the window is [now - lookbackDays, +inf) (unbounded without
//   lookbackDays); the `limit` orders with the most recent status in it are taken, and all their rows come back
//   newest first (statusTimestamp desc, oid desc), as the exchange lists them. That mode is not paged:
//   `nextCursor` is null, `hasMore` only says that older orders exist.
// - In window mode (rule 3) orders come by oid descending, each order's rows newest first; the cursor is the last
//   oid returned as a decimal string, and the next page holds orders with a strictly smaller oid that have a status
//   in the same window. lookbackDays, when given, also bounds the window's start there.

import type pg from 'pg';
import { eachTextRow } from '../../../db/pool.ts';
import { type OrderStatusRow, orderStatusesTable } from '../../../db/rows/accounts.ts';
import type { Address } from '../../../platform/fields.ts';
import {
  boolJson,
  CHUNK_BYTES,
  JsonArrayWriter,
  nullableTextJson,
  type TextRow,
  textJson,
} from '../../../platform/json-text.ts';
import type { NodeOrder } from '../../../wire/node-lines.ts';
import { fitsBigint, InvalidQueryError } from './shared.ts';

export const HISTORICAL_ORDERS_DEFAULT_LIMIT = 2000;
export const HISTORICAL_ORDERS_MAX_LIMIT = 5000;
const DAY_MS = 86_400_000;

/**
 * The exchange's FrontendOpenOrder (wire §2.2; `tif` and `cloid` always present, null when absent): the node
 * writes orders in exactly this shape, so it is the node's order type.
 */
export type FrontendOpenOrder = NodeOrder;

export interface HistoricalOrder {
  order: FrontendOpenOrder;
  status: string;
  statusTimestamp: number;
}

export interface HistoricalOrdersQuery {
  user: Address;
  /** Orders (not rows) per answer: 1 to 5000, default 2000. */
  limit?: number;
  /** 1 to 365: only statuses from the last `lookbackDays` days before `now`. */
  lookbackDays?: number;
  /** Window mode: inclusive epoch-ms bounds on the status timestamp. */
  startTime?: number;
  endTime?: number;
  /** Window mode: the `nextCursor` of the previous page (an oid). */
  cursor?: string;
  now: number;
}

export interface HistoricalOrdersPage {
  rows: HistoricalOrder[];
  /** Each row's cursor: its order's oid (a page after it starts at the next smaller oid, in window mode). */
  cursors: string[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** A status row as the queries select it (the order's columns of `accounts.order_statuses`). */
type StatusSqlRow = Omit<OrderStatusRow, 'address' | 'hash' | 'builder' | 'builder_fee'>;

/** The order's columns of a status row, in table order (decimals as Postgres prints them). */
const NOT_SELECTED: ReadonlySet<string> = new Set(['address', 'hash', 'builder', 'builder_fee']);
const STATUS_FIELDS = orderStatusesTable.columns.filter((c) => !NOT_SELECTED.has(c));
const DECIMALS: ReadonlySet<string> = new Set(['limit_px', 'sz', 'orig_sz', 'trigger_px']);
const STATUS_COLUMNS = STATUS_FIELDS.map((f) => (DECIMALS.has(f) ? `s.${f}::text AS ${f}` : `s.${f}`)).join(', ');

/** A column of a status row as the queries select it. */
export type StatusColumn = keyof StatusSqlRow;

/** The columns a page of orders always reads: the oid (its cursor, and the key of each order's status history). */
const ORDER_KEY_COLUMNS: ReadonlySet<string> = new Set<StatusColumn>(['oid']);

/** The names of the selected columns of a status row (all of them, or those in `only` and the key columns). */
const statusColumnNames = (only?: ReadonlySet<StatusColumn>) =>
  STATUS_FIELDS.filter((f) => !only || only.has(f as StatusColumn) || ORDER_KEY_COLUMNS.has(f)).join(', ');

/** Among rows of equal time and block, the later lifecycle step wins (a stop triggered and filled together). */
const LIFECYCLE_RANK = `CASE s.status WHEN 'open' THEN 0 WHEN 'triggered' THEN 1 ELSE 2 END`;

/**
 * The fields every order of the exchange's starts with (its BasicOrder), in their order: a historical order's
 * (toOrder) and an orderUpdates frame's OpenOrder go on from them.
 */
export const basicOrder = (r: Pick<OrderStatusRow, 'coin' | 'side' | 'limit_px' | 'sz' | 'oid' | 'order_time'>) => ({
  coin: r.coin,
  side: r.side,
  limitPx: r.limit_px,
  sz: r.sz,
  oid: r.oid,
  timestamp: r.order_time,
});

export function toOrder(r: StatusSqlRow): HistoricalOrder {
  return {
    order: {
      ...basicOrder(r),
      triggerCondition: r.trigger_condition,
      isTrigger: r.is_trigger,
      triggerPx: r.trigger_px,
      // Stored as the node printed them: already FrontendOpenOrder objects.
      children: r.children as FrontendOpenOrder[],
      isPositionTpsl: r.is_position_tpsl,
      reduceOnly: r.reduce_only,
      orderType: r.order_type,
      origSz: r.orig_sz,
      tif: r.tif,
      cloid: r.cloid,
    },
    status: r.status,
    statusTimestamp: r.time,
  };
}

/** Column `name` of a status row as STATUS_COLUMNS selects it, for reading rows as text (statusJson). */
const column = (name: keyof StatusSqlRow) => STATUS_FIELDS.indexOf(name);
const C = {
  coin: column('coin'),
  side: column('side'),
  limitPx: column('limit_px'),
  sz: column('sz'),
  oid: column('oid'),
  orderTime: column('order_time'),
  triggerCondition: column('trigger_condition'),
  isTrigger: column('is_trigger'),
  triggerPx: column('trigger_px'),
  children: column('children'),
  isPositionTpsl: column('is_position_tpsl'),
  reduceOnly: column('reduce_only'),
  orderType: column('order_type'),
  origSz: column('orig_sz'),
  tif: column('tif'),
  cloid: column('cloid'),
  status: column('status'),
  time: column('time'),
};

/** jsonb as Postgres prints it has spaces; the stored children, parsed and written again, as toOrder's are. */
const children = (r: TextRow) => (r[C.children] === '[]' ? '[]' : JSON.stringify(JSON.parse(r[C.children] as string)));

/**
 * toOrder's JSON, written from a status row as Postgres prints it (STATUS_COLUMNS): the same keys and values. The
 * int8 columns are written as their digits: ingest stores only safe integers (platform/fields.ts `int`), which the
 * pool gives as numbers.
 */
function statusJson(r: TextRow): string {
  return (
    `{"order":{"coin":${textJson(r, C.coin)},"side":${textJson(r, C.side)},"limitPx":"${r[C.limitPx]}","sz":"${r[C.sz]}",` +
    `"oid":${r[C.oid]},"timestamp":${r[C.orderTime]},"triggerCondition":${textJson(r, C.triggerCondition)},` +
    `"isTrigger":${boolJson(r, C.isTrigger)},"triggerPx":"${r[C.triggerPx]}","children":${children(r)},` +
    `"isPositionTpsl":${boolJson(r, C.isPositionTpsl)},"reduceOnly":${boolJson(r, C.reduceOnly)},` +
    `"orderType":${textJson(r, C.orderType)},"origSz":"${r[C.origSz]}","tif":${nullableTextJson(r, C.tif)},` +
    `"cloid":${nullableTextJson(r, C.cloid)}},"status":${textJson(r, C.status)},"statusTimestamp":${r[C.time]}}`
  );
}

/**
 * historicalOrders (rules in the file header). `now` is the caller's clock (lookbackDays counts back from it).
 * Throws InvalidQueryError on a bad limit, lookbackDays or cursor. With `columns`, only those are read (see
 * historicalOrderRows): the orders' other fields are absent.
 */
export async function historicalOrders(
  pool: pg.Pool,
  q: HistoricalOrdersQuery,
  columns?: ReadonlySet<StatusColumn>,
): Promise<HistoricalOrdersPage> {
  const { rows, hasMore, nextCursor } = await historicalOrderRows(pool, q, columns);
  return { rows: rows.map(toOrder), cursors: rows.map((r) => String(r.oid)), hasMore, nextCursor };
}

/** The orders of a historicalOrders answer: the statement reading their rows (none when none), and the paging. */
interface OrderPage {
  statement: { text: string; values: unknown[] } | null;
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * Which orders a historicalOrders query answers with (by the rules above), as the statement reading their status
 * rows in answer order. Throws InvalidQueryError on a bad limit, lookbackDays or cursor.
 */
async function historicalOrderPage(
  pool: pg.Pool,
  q: HistoricalOrdersQuery,
  columns?: ReadonlySet<StatusColumn>,
): Promise<OrderPage> {
  const { user } = q;
  // limit and lookbackDays as HISTORICAL_ORDERS (inputs.ts) checked them.
  const limit = q.limit ?? HISTORICAL_ORDERS_DEFAULT_LIMIT;
  const lookbackStart = q.lookbackDays === undefined ? null : q.now - q.lookbackDays * DAY_MS;
  if (q.cursor !== undefined) checkOrderCursor(q.cursor);
  const windowMode = q.startTime !== undefined || q.endTime !== undefined || q.cursor !== undefined;
  const lo = maxOrNull(q.startTime ?? null, lookbackStart);
  const hi = windowMode ? (q.endTime ?? null) : null;

  let oids: number[];
  let hasMore: boolean;
  if (windowMode) {
    // Rule 2 + 3: every order with a status in the window, by oid descending, after the cursor.
    const { rows } = await pool.query<{ oid: number }>(
      `SELECT DISTINCT oid FROM accounts.order_statuses
       WHERE address = $1 AND ($2::bigint IS NULL OR time >= $2) AND ($3::bigint IS NULL OR time <= $3)
         AND ($4::bigint IS NULL OR oid < $4)
       ORDER BY oid DESC LIMIT $5`,
      [user, lo, hi, q.cursor ?? null, limit + 1],
    );
    hasMore = rows.length > limit;
    oids = rows.slice(0, limit).map((r) => r.oid);
  } else {
    ({ oids, hasMore } = await mostRecentOrders(pool, user, lo, limit));
  }
  if (!oids.length) return { statement: null, hasMore: false, nextCursor: null };
  // Window mode: orders by oid descending, each order's rows newest first. Rule 1: all rows newest first.
  const order = windowMode
    ? 'oid DESC, time DESC, block_number DESC, rank DESC'
    : 'time DESC, block_number DESC, rank DESC, oid DESC';
  return {
    statement: windowStatement({ user, oids, lo, hi, order, columns }),
    hasMore,
    nextCursor: windowMode && hasMore ? String(oids.at(-1)) : null,
  };
}

/**
 * The stored rows behind historicalOrders, in answer order, as its statements return them: which orders (by the
 * rules above), then their status rows. The bench times this as historicalOrders' SQL. With `columns`, the rows hold
 * only those columns and the oid (the others are absent): for callers printing a few fields of many orders.
 */
export async function historicalOrderRows(
  pool: pg.Pool,
  q: HistoricalOrdersQuery,
  columns?: ReadonlySet<StatusColumn>,
): Promise<{ rows: StatusSqlRow[]; hasMore: boolean; nextCursor: string | null }> {
  const { statement, hasMore, nextCursor } = await historicalOrderPage(pool, q, columns);
  const rows = statement ? (await pool.query<StatusSqlRow>(statement)).rows : [];
  return { rows, hasMore, nextCursor };
}

/** historicalOrders as JSON (compat): the paging, and a writer of the rows (see historicalOrdersJson). */
export interface HistoricalOrdersJson {
  hasMore: boolean;
  nextCursor: string | null;
  /** Writes the answer's JSON array (in chunks to `out` when given, the last one returned). */
  write(out?: (chunk: Buffer) => void): Promise<Buffer>;
}

/**
 * historicalOrders as JSON bytes, each row written from Postgres's text as it arrives (statusJson): the same bytes
 * as the rows of historicalOrders serialized, without building or serializing an object per row. The orders are
 * chosen (and the paging known, and a bad query thrown) before anything is written.
 */
export async function historicalOrdersJson(pool: pg.Pool, q: HistoricalOrdersQuery): Promise<HistoricalOrdersJson> {
  const { statement, hasMore, nextCursor } = await historicalOrderPage(pool, q);
  return {
    hasMore,
    nextCursor,
    async write(out) {
      const json = new JsonArrayWriter(256 * 1024, out && { chunkBytes: CHUNK_BYTES, out });
      if (statement) await eachTextRow(pool, statement, (row) => json.push(statusJson(row)));
      return json.end();
    },
  };
}

/** A historicalOrders cursor: the last oid of a page, as decimal digits (at most 2^63 - 1); InvalidQueryError else. */
export function checkOrderCursor(cursor: string): void {
  if (!fitsBigint(cursor)) {
    throw new InvalidQueryError(
      `cursor: must be an oid (at most 2^63 - 1), got ${JSON.stringify(cursor).slice(0, 60)}`,
    );
  }
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

/**
 * Rule 1: the `limit` orders whose latest status (at or after `since`) is the most recent. Walks the user's
 * statuses newest first in growing slices instead of grouping the whole history: in a newest-first scan, every
 * order whose latest status is newer than the slice's oldest row is complete and correctly ranked.
 */
async function mostRecentOrders(
  pool: pg.Pool,
  user: string,
  since: number | null,
  limit: number,
): Promise<{ oids: number[]; hasMore: boolean }> {
  for (let budget = Math.max(4 * limit, 256); ; budget *= 4) {
    const { rows } = await pool.query<{ oid: number; time: number }>(
      `SELECT oid, time FROM accounts.order_statuses WHERE address = $1 AND ($2::bigint IS NULL OR time >= $2)
       ORDER BY time DESC LIMIT $3`,
      [user, since, budget],
    );
    const truncated = rows.length === budget;
    const cut = truncated ? (rows.at(-1)?.time ?? 0) : Number.NEGATIVE_INFINITY;
    const latest = new Map<number, number>();
    for (const r of rows) if (!latest.has(r.oid)) latest.set(r.oid, r.time);
    const ranked = [...latest]
      .filter(([, time]) => time > cut)
      .sort((a, b) => b[1] - a[1] || b[0] - a[0])
      .map(([oid]) => oid);
    if (!truncated || ranked.length > limit) {
      return { oids: ranked.slice(0, limit), hasMore: ranked.length > limit };
    }
  }
}

/**
 * The statement reading the rows of the given orders inside [lo, hi], in `order` (over time, block_number, rank,
 * oid): per ordinary order its latest status, per trigger order the latest row of each distinct status (see the
 * file header).
 */
function windowStatement(w: {
  user: string;
  oids: number[];
  lo: number | null;
  hi: number | null;
  order: string;
  columns: ReadonlySet<StatusColumn> | undefined;
}) {
  // Whether an order is a trigger order is over all its rows, not just those in the window: a window function over
  // the order's rows (one index range per oid), filtered to the window afterwards. (A join with a grouped CTE here
  // was planned as a nested loop from a bad row estimate: 200 ms for 2 000 orders.)
  return {
    text: `SELECT ${statusColumnNames(w.columns)} FROM (
       SELECT DISTINCT ON (s.oid, CASE WHEN s.trigger_order THEN s.status ELSE '' END) ${STATUS_COLUMNS},
         ${LIFECYCLE_RANK} AS rank
       FROM (
         SELECT o.*, bool_or(o.is_trigger) OVER (PARTITION BY o.oid) AS trigger_order
         FROM accounts.order_statuses o WHERE o.address = $1 AND o.oid = ANY($2::bigint[])
       ) s
       WHERE ($3::bigint IS NULL OR s.time >= $3) AND ($4::bigint IS NULL OR s.time <= $4)
       ORDER BY s.oid, CASE WHEN s.trigger_order THEN s.status ELSE '' END, s.time DESC, s.block_number DESC,
         ${LIFECYCLE_RANK} DESC
     ) latest ORDER BY ${w.order}`,
    values: [w.user, w.oids, w.lo, w.hi],
  };
}

export type OrderStatusAnswer = { status: 'order'; order: HistoricalOrder } | { status: 'unknownOid' };

/** Order ids are u64 (spec §4.1). */
export const MAX_OID = 18_446_744_073_709_551_615n;
/** Stored oids are int8: an oid above this was never stored. */
const MAX_STORED_OID = 9_223_372_036_854_775_807n;
const CLOID = /^0x[0-9a-fA-F]{32}$/;

/** An order as orderStatus looks it up: by its oid (decimal digits, any u64) or by its cloid (lowercase). */
export type OrderRef = { oid: string } | { cloid: string };

/**
 * The order a client names, as the exchange's clients send it: `oid` a u64, as a JSON number or a decimal string;
 * or a cloid (0x and 32 hex digits), in `oid` itself (how the exchange's SDKs send one) or in `cloid`. A JSON number
 * above 2^53 - 1 cannot be read exactly from a parsed body: the caller passes its digits as a string instead.
 * Throws InvalidQueryError naming the field.
 */
export function orderRef(oid: unknown, cloid?: unknown): OrderRef {
  const field = oid === undefined || oid === null ? 'cloid' : 'oid';
  const ref = field === 'oid' ? oid : cloid;
  if (typeof ref === 'number' && Number.isSafeInteger(ref) && ref >= 0) return { oid: String(ref) };
  if (typeof ref === 'string' && CLOID.test(ref)) return { cloid: ref.toLowerCase() };
  if (typeof ref === 'string' && /^\d{1,20}$/.test(ref) && BigInt(ref) <= MAX_OID)
    return { oid: BigInt(ref).toString() };
  const shown = JSON.stringify(ref);
  throw new InvalidQueryError(
    ref === undefined || ref === null
      ? 'oid: is required (an order id, or a cloid in oid or cloid)'
      : `${field}: must be an order id (an integer from 0 to ${MAX_OID}, as a JSON number or a decimal string) or a ` +
          `cloid (0x followed by 32 hex digits), got ${shown === undefined ? String(ref) : shown.slice(0, 60)}`,
  );
}

export interface OrderStatusQuery {
  user: Address;
  /** Any u64: a number, or its decimal digits. */
  oid?: number | string;
  cloid?: string;
}

/**
 * orderStatus from indexed history: the latest status row of the user's order with that oid (or, by cloid, of the
 * user's most recent order carrying it); `unknownOid` when none. Live state and the node come first, in the caller.
 */
export async function orderStatus(pool: pg.Pool, q: OrderStatusQuery): Promise<OrderStatusAnswer> {
  const { user } = q;
  let key: string;
  let value: string;
  if (q.oid !== undefined) {
    key = 's.oid';
    value = String(q.oid);
    // A u64 beyond int8 (the column's type) was never stored; Postgres would refuse it as a parameter.
    if (BigInt(value) > MAX_STORED_OID) return { status: 'unknownOid' };
  } else if (q.cloid !== undefined) {
    key = 's.cloid';
    value = q.cloid.toLowerCase();
  } else throw new InvalidQueryError('orderStatus needs an oid or a cloid');
  const { rows } = await pool.query<StatusSqlRow>(
    `SELECT ${STATUS_COLUMNS} FROM accounts.order_statuses s WHERE s.address = $1 AND ${key} = $2
     ORDER BY s.time DESC, s.block_number DESC, ${LIFECYCLE_RANK} DESC LIMIT 1`,
    [user, value],
  );
  const row = rows[0];
  return row ? { status: 'order', order: toOrder(row) } : { status: 'unknownOid' };
}

// ---- status histories (OrderStatus.statusHistory) ----

/** An order status row and the user it belongs to (its status history is looked up by both). */
export interface UserOrderStatus extends HistoricalOrder {
  user: string;
}

/** Key of one user's order, as statusHistories takes it. */
export const orderKey = (s: UserOrderStatus) => `${s.user} ${s.order.oid}`;

/** Every status row of the given orders (`orderKey`s), oldest first; equal times in lifecycle order. */
export async function statusHistories(pool: pg.Pool, keys: readonly string[]): Promise<UserOrderStatus[]> {
  const pairs = keys.map((k) => k.split(' '));
  const { rows } = await pool.query<OrderStatusRow>(
    `SELECT ${orderStatusesTable.columns.map((c) => `s.${c}`).join(', ')}
     FROM accounts.order_statuses s
     JOIN unnest($1::text[], $2::bigint[]) AS k(address, oid) ON s.address = k.address AND s.oid = k.oid
     ORDER BY s.time, s.block_number, ${LIFECYCLE_RANK}`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  return rows.map((r) => ({ ...toOrder(r), user: r.address }));
}
