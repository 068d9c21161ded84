// Stored fills in the exchange's shapes: userFills / userFillsByTime (wire Fill, optional aggregateByTime), the
// compact keyset-paged rows of `/info` fills|recentFills and `/fills/*`, and userTwapSliceFills.
import type pg from 'pg';
import { eachTextRow, type TextRow } from '../../../db/pool.ts';
import { type FillRow, fillsTable } from '../../../db/rows/accounts.ts';
import { add, compareDecimal, div, mul, type Ratio, ratio, toDecimal, ZERO } from '../../../platform/decimal.ts';
import { FieldError } from '../../../platform/fields.ts';
import { boolJson, CHUNK_BYTES, JsonArrayWriter, jsonBytes, textJson } from '../../../platform/json-text.ts';
import type { NodeFill } from '../../../wire/node-lines.ts';
import { checkInt, fitsBigint, InvalidQueryError, naiveIso } from './shared.ts';

/** The exchange's cap on userFills, userFillsByTime and userTwapSliceFills answers. */
export const MAX_WIRE_FILLS = 2000;
/** The cap on one page of compact fill rows. */
export const MAX_FILL_ROWS = 1000;

/**
 * The exchange's Fill (wire §2.1): the node's fill without the node-only keys (builder, deployerFee, priorityGas),
 * `twapId` always present (null when none). Optional keys are absent, not null.
 */
export type WireFill = Omit<NodeFill, 'cloid' | 'twapId' | 'builder' | 'deployerFee' | 'priorityGas'> & {
  twapId: number | null;
  cloid?: string;
};

/** A column of `accounts.fills`. */
export type FillColumn = keyof FillRow;

const DECIMAL_COLUMNS: ReadonlySet<FillColumn> = new Set([
  'px',
  'sz',
  'start_position',
  'closed_pnl',
  'fee',
  'builder_fee',
  'deployer_fee',
  'priority_gas',
  'liquidation_mark_px',
]);

/** The columns a page of fills always reads: its keyset (cursors, the cut between two fills of one trade). */
const KEY_COLUMNS: ReadonlySet<FillColumn> = new Set(['time', 'block_number', 'event_index', 'tid']);

/**
 * The columns of `accounts.fills` (or, with `only`, those and the key columns) under alias `f`, decimals as text
 * exactly as stored ("93604.0").
 */
export function fillColumns(only?: ReadonlySet<FillColumn>): string {
  return fillsTable.columns
    .filter((c) => !only || only.has(c) || KEY_COLUMNS.has(c))
    .map((c) => (DECIMAL_COLUMNS.has(c) ? `f.${c}::text AS ${c}` : `f.${c}`))
    .join(', ');
}

/**
 * The order of every fill list: by time (newest first unless asked otherwise), and within one time in execution
 * order, as the exchange lists them: the block, then the fill's index in the node line's events. Fills stored
 * before event_index existed share index 0 (migration 0020): tid, then address, keep their order deterministic.
 */
export function fillOrder(newestFirst = true): string {
  return `f.time ${newestFirst ? 'DESC' : 'ASC'}, f.block_number, f.event_index, f.tid, f.address`;
}

export const NEWEST_FIRST = fillOrder();

/** The columns toWireFill reads: fewer columns to fetch and parse than the whole row (2 000 rows per answer). */
type WireFillSource = Pick<
  FillRow,
  | 'coin'
  | 'px'
  | 'sz'
  | 'side'
  | 'time'
  | 'start_position'
  | 'dir'
  | 'closed_pnl'
  | 'hash'
  | 'oid'
  | 'crossed'
  | 'fee'
  | 'tid'
  | 'fee_token'
  | 'builder_fee'
  | 'twap_id'
  | 'cloid'
  | 'liquidated_user'
  | 'liquidation_mark_px'
  | 'liquidation_method'
>;

const WIRE_FILL_COLUMNS = `f.coin, f.px::text AS px, f.sz::text AS sz, f.side, f.time,
  f.start_position::text AS start_position, f.dir, f.closed_pnl::text AS closed_pnl, f.hash, f.oid, f.crossed,
  f.fee::text AS fee, f.tid, f.fee_token, f.builder_fee::text AS builder_fee, f.twap_id, f.cloid, f.liquidated_user,
  f.liquidation_mark_px::text AS liquidation_mark_px, f.liquidation_method`;

/**
 * A stored fill (or one published live on the bus) in the exchange's shape. The optional keys are assigned in the
 * wire's key order, not spread in: for 2 000 fills conditional spreads took 0.33 ms, assignments 0.09 ms.
 */
export function toWireFill(r: WireFillSource): WireFill {
  // twapId (always present) comes after the optional builderFee: assigned below, in wire order.
  const fill = {
    coin: r.coin,
    px: r.px,
    sz: r.sz,
    side: r.side,
    time: r.time,
    startPosition: r.start_position,
    dir: r.dir,
    closedPnl: r.closed_pnl,
    hash: r.hash,
    oid: r.oid,
    crossed: r.crossed,
    fee: r.fee,
    tid: r.tid,
    feeToken: r.fee_token,
  } as WireFill;
  // `!= null`: a column fillPage did not read (absent) is taken as null.
  if (r.builder_fee != null) fill.builderFee = r.builder_fee;
  fill.twapId = r.twap_id;
  if (r.cloid != null) fill.cloid = r.cloid;
  if (r.liquidation_mark_px != null) {
    fill.liquidation = {
      liquidatedUser: r.liquidated_user ?? '',
      markPx: r.liquidation_mark_px,
      method: r.liquidation_method === 'backstop' ? 'backstop' : 'market',
    };
  }
  return fill;
}

/**
 * aggregateByTime as the exchange documents it: the partial fills of one crossing order (same order, same time,
 * same transaction) become one fill; a resting order hit by several takers is never merged. Sizes, fees, closed
 * PnL and builder fees are summed exactly; px is the size-weighted average (exact when it terminates within ten
 * more digits than the inputs carry, else rounded there); start position, dir, tid and the rest come from the
 * first executed fill. `fills` must be in NEWEST_FIRST order; the output keeps that order.
 */
export function aggregateFillsByTime(fills: readonly WireFill[]): WireFill[] {
  const groups = new Map<string, WireFill[]>();
  const out: (WireFill | WireFill[])[] = [];
  for (const f of fills) {
    if (!f.crossed) {
      out.push(f);
      continue;
    }
    const key = `${f.coin}\u0000${f.oid}\u0000${f.time}\u0000${f.hash}`;
    const group = groups.get(key);
    if (group) group.push(f);
    else {
      const g = [f];
      groups.set(key, g);
      out.push(g);
    }
  }
  return out.map((g) => (Array.isArray(g) ? mergeFills(g) : g));
}

function scaleOf(s: string): number {
  const i = s.indexOf('.');
  return i < 0 ? 0 : s.length - i - 1;
}

function mergeFills(group: WireFill[]): WireFill {
  const first = group[0] as WireFill;
  if (group.length === 1) return first;
  let sz: Ratio = ZERO;
  let ntl: Ratio = ZERO;
  let fee: Ratio = ZERO;
  let pnl: Ratio = ZERO;
  let builderFee: Ratio | null = null;
  let pxScale = 0;
  let szScale = 0;
  let feeScale = 0;
  let pnlScale = 0;
  for (const f of group) {
    sz = add(sz, ratio(f.sz));
    ntl = add(ntl, mul(ratio(f.px), ratio(f.sz)));
    fee = add(fee, ratio(f.fee));
    pnl = add(pnl, ratio(f.closedPnl));
    if (f.builderFee !== undefined) builderFee = add(builderFee ?? ZERO, ratio(f.builderFee));
    pxScale = Math.max(pxScale, scaleOf(f.px));
    szScale = Math.max(szScale, scaleOf(f.sz));
    feeScale = Math.max(feeScale, scaleOf(f.fee), scaleOf(f.builderFee ?? ''));
    pnlScale = Math.max(pnlScale, scaleOf(f.closedPnl));
  }
  const samePx = group.every((f) => compareDecimal(f.px, first.px) === 0);
  const merged: WireFill = {
    ...first,
    // Sums of exact decimals are exact at the inputs' largest scale.
    px: samePx ? first.px : toDecimal(div(ntl, sz), pxScale + 10),
    sz: toDecimal(sz, szScale),
    closedPnl: toDecimal(pnl, pnlScale),
    fee: toDecimal(fee, feeScale),
  };
  if (builderFee) merged.builderFee = toDecimal(builderFee, feeScale);
  return merged;
}

/** The statement behind userFills and userFillsByTime (the bench times it as their SQL). */
export const wireFillsSql = (where: string, limit: number) =>
  `SELECT ${WIRE_FILL_COLUMNS} FROM accounts.fills f WHERE ${where} ORDER BY ${NEWEST_FIRST} LIMIT ${limit}`;

/** toWireFill's JSON, written from Postgres's text (WIRE_FILL_COLUMNS in order): same keys, same order, optional
 * keys absent alike. */
function wireFillJson(r: TextRow): string {
  let out =
    `{"coin":${textJson(r, 0)},"px":"${r[1]}","sz":"${r[2]}","side":${textJson(r, 3)},"time":${r[4]},` +
    `"startPosition":"${r[5]}","dir":${textJson(r, 6)},"closedPnl":"${r[7]}","hash":${textJson(r, 8)},` +
    `"oid":${r[9]},"crossed":${boolJson(r, 10)},"fee":"${r[11]}","tid":${r[12]},"feeToken":${textJson(r, 13)}`;
  if (r[14] !== null) out += `,"builderFee":"${r[14]}"`;
  out += `,"twapId":${r[15] ?? 'null'}`;
  if (r[16] !== null) out += `,"cloid":${textJson(r, 16)}`;
  if (r[18] !== null) {
    const method = r[19] === 'backstop' ? 'backstop' : 'market';
    out += `,"liquidation":{"liquidatedUser":${textJson(r, 17)},"markPx":"${r[18]}","method":"${method}"}`;
  }
  return `${out}}`;
}

/**
 * Wire fills as JSON bytes, from a statement of WIRE_FILL_COLUMNS: for 2 000 fills, no objects built and none serialized again, and each fill written
 * as its row arrives (the writing overlaps Postgres sending the rest). With `out`, the text goes there a chunk at a
 * time as it is written (the caller can send it while the rest is read), and the last chunk is returned.
 */
async function queryWireFillsJson(
  pool: pg.Pool,
  statement: { text: string; values: unknown[] },
  limit: number,
  out?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const json = new JsonArrayWriter(limit * 300, out && { chunkBytes: CHUNK_BYTES, out });
  await eachTextRow(pool, statement, (row) => json.push(wireFillJson(row)));
  return json.end();
}

/** The statement of the newest `limit` fills matching `filters` (no cursor): its text and parameters. */
function newestFillsSql(filters: FillFilters, limit: number): { text: string; values: unknown[] } {
  const { params, param } = queryParams();
  const where = fillFilters(filters, param);
  return { text: wireFillsSql(where.join(' AND '), limit), values: params };
}

/** Newest `limit` fills matching `filters`; aggregated, by the one rule of an aggregated page (aggregatedFillPage). */
async function newestFills(filters: FillFilters, pool: pg.Pool, limit: number, aggregate: boolean) {
  if (aggregate) return (await aggregatedFillPage(pool, { ...filters, order: 'desc', limit })).fills;
  const { rows } = await pool.query<WireFillSource>(newestFillsSql(filters, limit));
  return rows.map(toWireFill);
}

/**
 * newestFills as JSON bytes: written from Postgres's text (in chunks to `out` when given, the last one returned),
 * or, when aggregating, from the merged objects (all of it returned).
 */
async function newestFillsJson(
  filters: FillFilters,
  pool: pg.Pool,
  limit: number,
  aggregate: boolean,
  out?: (chunk: Buffer) => void,
): Promise<Buffer> {
  if (aggregate) return jsonBytes(await newestFills(filters, pool, limit, true));
  return queryWireFillsJson(pool, newestFillsSql(filters, limit), limit, out);
}

/**
 * A page of fills merged by aggregateByTime, the same on every interface: the page's fills are read as without
 * aggregation (newest first, within one time in execution order), then the fills of the page's last timestamp are
 * left to the next page when one follows (the partial fills of one order are merged from all their parts; a
 * timestamp that fills the page alone stays), and the rest is merged: at most `limit` merged fills. The cursor
 * continues after the last fill merged.
 */
export async function aggregatedFillPage(
  pool: pg.Pool,
  q: Omit<FillRowsQuery, 'withTotal' | 'includeOrderType'> & { includeOrderType?: boolean },
): Promise<{ fills: WireFill[]; rows: StoredFill[]; hasMore: boolean; nextCursor: string | null }> {
  // A merged fill carries no order type: none is looked up, whatever the caller's query says.
  const page = await fillPage(pool, { ...q, includeOrderType: false }, { maxLimit: MAX_WIRE_FILLS });
  const lastTime = page.rows.at(-1)?.time;
  const whole = page.hasMore ? page.rows.filter((r) => r.time !== lastTime) : page.rows;
  const rows = whole.length ? whole : page.rows;
  const last = rows.at(-1);
  return {
    fills: aggregateFillsByTime(rows.map(toWireFill)),
    rows,
    hasMore: page.hasMore,
    nextCursor: page.hasMore && last ? fillCursor(last) : null,
  };
}

export interface UserFillsQuery {
  user: string;
  aggregateByTime?: boolean;
}

const userOnly = (q: UserFillsQuery): FillFilters => ({ user: q.user.toLowerCase() });

/** userFills: the user's 2000 most recent fills, newest first. */
export function userFills(pool: pg.Pool, q: UserFillsQuery): Promise<WireFill[]> {
  return newestFills(userOnly(q), pool, MAX_WIRE_FILLS, q.aggregateByTime === true);
}

/** userFills as JSON bytes (compat), optionally in chunks (see newestFillsJson). */
export function userFillsJson(pool: pg.Pool, q: UserFillsQuery, out?: (chunk: Buffer) => void): Promise<Buffer> {
  return newestFillsJson(userOnly(q), pool, MAX_WIRE_FILLS, q.aggregateByTime === true, out);
}

/** The SQL of a plain userFills (for the bench's baseline): the statement and its parameters. */
export const userFillsSql = (user: string) => newestFillsSql({ user: user.toLowerCase() }, MAX_WIRE_FILLS);

export interface UserFillsByTimeQuery {
  user: string;
  startTime: number;
  endTime?: number;
  aggregateByTime?: boolean;
  /**
   * The TS SDK's `reversed`: true (or absent) lists newest first, as the exchange answers; false lists the same fills
   * (the newest 2000 of the window) oldest first.
   */
  reversed?: boolean;
  /** At most 2000 (the exchange's cap; larger values are capped, as the exchange does). */
  limit?: number;
}

const byTimeArgs = (q: UserFillsByTimeQuery) => ({
  filters: { user: q.user.toLowerCase(), startTime: q.startTime, endTime: q.endTime } as FillFilters,
  limit: Math.max(1, Math.min(Math.floor(q.limit ?? MAX_WIRE_FILLS), MAX_WIRE_FILLS)),
});

/** userFillsByTime: fills with startTime <= time <= endTime, newest first (see `reversed`), at most 2000. */
export async function userFillsByTime(pool: pg.Pool, q: UserFillsByTimeQuery): Promise<WireFill[]> {
  const { filters, limit } = byTimeArgs(q);
  const fills = await newestFills(filters, pool, limit, q.aggregateByTime === true);
  return q.reversed === false ? fills.reverse() : fills;
}

/** userFillsByTime as JSON bytes (compat), optionally in chunks (see newestFillsJson). */
export function userFillsByTimeJson(
  pool: pg.Pool,
  q: UserFillsByTimeQuery,
  out?: (chunk: Buffer) => void,
): Promise<Buffer> {
  if (q.reversed === false) return userFillsByTime(pool, q).then(jsonBytes);
  const { filters, limit } = byTimeArgs(q);
  return newestFillsJson(filters, pool, limit, q.aggregateByTime === true, out);
}

// ---- compact rows ----

/** A compact fill row (spec §2.3): `orderType` only when asked for; `time` as naive UTC ISO 8601 with exact ms. */
export interface CompactFillRow {
  user: string;
  coin: string;
  px: string;
  sz: string;
  side: 'A' | 'B';
  time: string;
  dir: string;
  closedPnl: string;
  hash: string;
  oid: number;
  tid: number;
  fee: string;
  feeToken: string;
  crossed: 0 | 1;
  cloid: string | null;
  twapId: number | null;
  builder: string | null;
  builderFee: string | null;
  orderType?: string | null;
}

export interface FillRowsQuery {
  user?: string;
  /** Only the fills routed through this builder (lowercase 0x address). */
  builder?: string;
  coin?: string;
  side?: 'A' | 'B';
  /** Inclusive epoch-ms bounds on the fill time. */
  startTime?: number;
  endTime?: number;
  /** 1 to 1000. */
  limit: number;
  /** The `nextCursor` a previous page returned (`"<time>:<block>:<event index>:<tid>"` of its last row). */
  cursor?: string;
  /** Rows to skip instead of a cursor (offset paging, as the EVM lists have it); not with `cursor`. */
  offset?: number;
  order: 'asc' | 'desc';
  includeOrderType: boolean;
  /** Also count every row matching the filters (not the cursor). Default: only when filtered by user. */
  withTotal?: boolean;
}

export interface FillRowsPage {
  rows: CompactFillRow[];
  hasMore: boolean;
  /** The cursor of the last row when there is a next page, else null. */
  nextCursor: string | null;
  totalCount?: number;
}

/** A fill's place in the fill lists' order (fillOrder), which a page resumes after. */
interface FillKey {
  time: string | number;
  block_number: string | number;
  event_index: string | number;
  tid: string | number;
}

/** The cursor of a stored fill: its key in fillOrder, `"<time>:<block>:<event index>:<tid>"`. */
export const fillCursor = (r: FillKey) => `${r.time}:${r.block_number}:${r.event_index}:${r.tid}`;

export function parseFillCursor(cursor: string): FillKey {
  const m = /^(\d{1,16}):(\d{1,19}):(\d{1,9}):(\d{1,20})$/.exec(cursor);
  if (!m || !fitsBigint(m[2] as string) || !fitsBigint(m[4] as string)) {
    throw new InvalidQueryError(
      'cursor: must be "<epoch_ms>:<block>:<event index>:<tid>" as a page gave it, ' +
        `got ${JSON.stringify(cursor).slice(0, 60)}`,
    );
  }
  return { time: m[1] as string, block_number: m[2] as string, event_index: m[3] as string, tid: m[4] as string };
}

function toCompact(r: StoredFill, includeOrderType: boolean): CompactFillRow {
  const row: CompactFillRow = {
    user: r.address,
    coin: r.coin,
    px: r.px,
    sz: r.sz,
    side: r.side,
    time: naiveIso(r.time),
    dir: r.dir,
    closedPnl: r.closed_pnl,
    hash: r.hash,
    oid: r.oid,
    tid: r.tid,
    fee: r.fee,
    feeToken: r.fee_token,
    crossed: r.crossed ? 1 : 0,
    cloid: r.cloid,
    twapId: r.twap_id,
    builder: r.builder,
    builderFee: r.builder_fee,
  };
  if (includeOrderType) row.orderType = r.order_type ?? null;
  return row;
}

const sameKey = (a: FillKey, b: FillKey) =>
  a.time === b.time && a.block_number === b.block_number && a.event_index === b.event_index && a.tid === b.tid;

/**
 * Compact fill rows in fillOrder, by time in the direction `order` asks for, keyset-paged on the fills' keys.
 * Fills stored before event_index existed may share a key (the two fills of one trade when no user is given), so a
 * page never ends between fills of one key: it stops before them (or, when they alone fill the page, takes them
 * all), and the cursor of the page's last row resumes strictly after it.
 */
export async function fillRows(pool: pg.Pool, q: FillRowsQuery): Promise<FillRowsPage> {
  const page = await fillPage(pool, q);
  const result: FillRowsPage = {
    rows: page.rows.map((r) => toCompact(r, q.includeOrderType)),
    hasMore: page.hasMore,
    nextCursor: page.nextCursor,
  };
  if (q.withTotal ?? q.user !== undefined) result.totalCount = await countFills(pool, q);
  return result;
}

/** allFills' widest window: every user's fills of one day at most per request. */
export const MAX_ALL_FILLS_WINDOW_MS = 86_400_000;

export type AllFillsQuery = Omit<FillRowsQuery, 'user' | 'startTime' | 'endTime' | 'withTotal'> & {
  startTime: number;
  /** Default: startTime + MAX_ALL_FILLS_WINDOW_MS. */
  endTime?: number;
};

/**
 * allFills: every user's fills of a window, as compact rows paged like fillRows (both fills of a trade, one per
 * side). The window is bounded (at most a day) so that a page's keyset scan stays within one day of fills; no total
 * is counted.
 */
export function allFills(pool: pg.Pool, q: AllFillsQuery): Promise<FillRowsPage> {
  return fillRows(pool, { ...q, endTime: allFillsEnd(q), withTotal: false });
}

/**
 * The end of an every-user window (default a day after its start), refused when the window exceeds a day. The
 * refusal names its own field (a FieldError, not an InvalidQueryError an edge may rename to the cursor it passed).
 */
export function allFillsEnd(q: { startTime: number; endTime?: number }): number {
  const endTime = q.endTime ?? q.startTime + MAX_ALL_FILLS_WINDOW_MS;
  if (endTime < q.startTime) throw new FieldError('startTime: must not be after endTime');
  if (endTime - q.startTime > MAX_ALL_FILLS_WINDOW_MS) {
    throw new FieldError(`endTime: must be at most ${MAX_ALL_FILLS_WINDOW_MS} ms (one day) after startTime`);
  }
  return endTime;
}

/** A stored fill as fillPage returns it: every column, and the order's type when asked for. */
export type StoredFill = FillRow & { order_type?: string | null };

/** A stored fill read for some columns only: those, the key columns, and the order's type when asked for. */
export type PartialFill = Partial<StoredFill> & Pick<FillRow, 'time' | 'block_number' | 'event_index' | 'tid'>;

interface FillPage<R> {
  rows: R[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * The keyset page behind fillRows, as stored rows (for callers printing another shape, e.g. wire fills); `limit`
 * may go up to `maxLimit` here. With `columns`, only those (and the keyset's columns) are read: a caller that
 * prints a few fields of 2 000 fills does not have Postgres print and pg parse 25 columns of each.
 */
export async function fillPage(
  pool: pg.Pool,
  q: Omit<FillRowsQuery, 'withTotal'>,
  opts?: { maxLimit?: number },
): Promise<FillPage<StoredFill>>;
export async function fillPage(
  pool: pg.Pool,
  q: Omit<FillRowsQuery, 'withTotal'>,
  opts: { maxLimit?: number; columns: ReadonlySet<FillColumn> | undefined },
): Promise<FillPage<PartialFill>>;
export async function fillPage(
  pool: pg.Pool,
  q: Omit<FillRowsQuery, 'withTotal'>,
  { maxLimit = MAX_FILL_ROWS, columns }: { maxLimit?: number; columns?: ReadonlySet<FillColumn> } = {},
): Promise<FillPage<PartialFill>> {
  const limit = checkInt('limit', q.limit, 1, maxLimit);
  const desc = q.order === 'desc';
  const { params, param } = queryParams();
  const filters = fillFilters(q, param);
  const filterParams = [...params];
  const position = (k: FillKey) =>
    `(${param(k.block_number)}::bigint, ${param(k.event_index)}::int, ${param(k.tid)}::bigint)`;
  // Past a key in fillOrder: time runs in the asked direction, execution order always forwards.
  const after = (k: FillKey) => {
    const t = `${param(k.time)}::bigint`;
    const later = `(f.block_number, f.event_index, f.tid) > ${position(k)}`;
    return `(f.time ${desc ? '<' : '>'} ${t} OR (f.time = ${t} AND ${later}))`;
  };
  // Any status row of the order gives its type; none (orders before order-status coverage) → null.
  const orderType = q.includeOrderType
    ? `, (SELECT o.order_type FROM accounts.order_statuses o WHERE o.address = f.address AND o.oid = f.oid
         LIMIT 1) AS order_type`
    : '';
  const select = (where: string[], lim: number | null) =>
    `SELECT ${fillColumns(columns)}${orderType} FROM accounts.fills f WHERE ${where.length ? where.join(' AND ') : 'true'}
     ORDER BY ${fillOrder(desc)}${lim === null ? '' : ` LIMIT ${lim}`}`;

  const where = [...filters];
  if (q.cursor !== undefined) {
    if (q.offset !== undefined) throw new InvalidQueryError('offset: not with cursor (page by one or the other)');
    where.push(after(parseFillCursor(q.cursor)));
  }
  const offset = q.offset === undefined ? '' : ` OFFSET ${checkInt('offset', q.offset, 0, Number.MAX_SAFE_INTEGER)}`;
  const { rows } = await pool.query<PartialFill>(`${select(where, limit + 1)}${offset}`, params);
  let page = rows.slice(0, limit);
  let hasMore = rows.length > limit;
  const next = rows[limit];
  // By offset, pages are positions in the order, never cut (the next page starts where this one's limit ends).
  if (next && q.offset === undefined && sameKey(page.at(-1) as PartialFill, next)) {
    const cut = page.filter((r) => !sameKey(r, next));
    if (cut.length) page = cut;
    else {
      // The page is fills of one key and more: take all of them, then see whether anything follows.
      params.length = filterParams.length;
      const same = [
        ...filters,
        `f.time = ${param(next.time)}`,
        `(f.block_number, f.event_index, f.tid) = ${position(next)}`,
      ];
      page = (await pool.query<PartialFill>(select(same, null), params)).rows;
      params.length = filterParams.length;
      const rest = await pool.query(select([...filters, after(next)], 1), params);
      hasMore = (rest.rowCount ?? 0) > 0;
    }
  }
  const lastRow = page.at(-1);
  return { rows: page, hasMore, nextCursor: hasMore && lastRow ? fillCursor(lastRow) : null };
}

/** How many fills match the filters of a fill-rows query (the cursor aside). */
/** What a builder earned on the fills routed through it in a window: their count, notional and builder fees. */
export interface BuilderRevenue {
  fills: number;
  volume: string;
  builderFees: string;
}

/**
 * The builder fees each of `builders` (lowercase 0x addresses) earned on the fills routed through it in a window
 * (inclusive ms bounds), exact, in one statement; in the order of `builders`, zero for one that routed none.
 */
export async function builderFeeRevenues(
  pool: pg.Pool,
  q: { builders: readonly string[]; startTime?: number; endTime?: number },
): Promise<BuilderRevenue[]> {
  const { rows } = await pool.query<{ builder: string; fills: number; volume: string; builder_fees: string }>(
    `SELECT builder, count(*)::int AS fills, coalesce(sum(px * sz), 0)::text AS volume,
       coalesce(sum(builder_fee), 0)::text AS builder_fees
     FROM accounts.fills
     WHERE builder = ANY($1::text[]) AND ($2::bigint IS NULL OR time >= $2) AND ($3::bigint IS NULL OR time <= $3)
     GROUP BY builder`,
    [q.builders, q.startTime ?? null, q.endTime ?? null],
  );
  const byBuilder = new Map(rows.map((r) => [r.builder, r]));
  return q.builders.map((b) => {
    const r = byBuilder.get(b);
    return { fills: r?.fills ?? 0, volume: r?.volume ?? '0', builderFees: r?.builder_fees ?? '0' };
  });
}

export async function countFills(pool: pg.Pool, q: FillFilters): Promise<number> {
  const { params, param } = queryParams();
  const where = fillFilters(q, param);
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM accounts.fills f WHERE ${where.length ? where.join(' AND ') : 'true'}`,
    params,
  );
  return rows[0]?.n ?? 0;
}

type FillFilters = Pick<FillRowsQuery, 'user' | 'builder' | 'coin' | 'side' | 'startTime' | 'endTime'>;

/** A statement's parameter list, and `param(v)` adding one and answering its placeholder (`$3`). */
function queryParams() {
  const params: unknown[] = [];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  return { params, param };
}

/** The conditions on `accounts.fills f` of a fill-rows query's filters (the cursor aside). */
function fillFilters(q: FillFilters, param: (v: unknown) => string): string[] {
  const filters: string[] = [];
  if (q.user !== undefined) filters.push(`f.address = ${param(q.user.toLowerCase())}`);
  if (q.builder !== undefined) filters.push(`f.builder = ${param(q.builder.toLowerCase())}`);
  if (q.coin !== undefined) filters.push(`f.coin = ${param(q.coin)}`);
  if (q.side !== undefined) filters.push(`f.side = ${param(q.side)}`);
  if (q.startTime !== undefined) filters.push(`f.time >= ${param(q.startTime)}`);
  if (q.endTime !== undefined) filters.push(`f.time <= ${param(q.endTime)}`);
  return filters;
}
