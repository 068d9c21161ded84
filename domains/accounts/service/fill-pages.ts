// Keyset pages of stored fills: the compact rows of `/info` fills|recentFills, `/fills/*` and allFills, fillPage
// (the stored rows behind them and the GraphQL connections), their cursors, filters and counts, and what builders
// earned on the fills they routed.
import type pg from 'pg';
import type { FillRow } from '../../../db/rows/accounts.ts';
import { type Address, FieldError } from '../../../platform/fields.ts';
import {
  type CompactFillRow,
  type FillColumn,
  type StoredFill,
  toCompact,
  toWireFill,
  WIRE_FILL_COLUMNS,
  type WireFill,
  type WireFillSource,
} from './fill-fields.ts';
import { checkInt, fitsBigint, InvalidQueryError } from './shared.ts';
import { aggregateFillsByTime, fillColumns, fillOrder } from './wire-fill.ts';

/** The cap on one page of compact fill rows. */
export const MAX_FILL_ROWS = 1000;

export interface FillRowsQuery {
  user?: Address;
  /** Only the fills routed through this builder. */
  builder?: Address;
  coin?: string;
  side?: 'A' | 'B';
  /** Only TWAP slice fills (`{}`), or those of one TWAP (`{ id }`). */
  twap?: { id?: number };
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
  if (q.withTotal ?? q.user !== undefined) {
    const total = await countFills(pool, q);
    if (total !== null) result.totalCount = total;
  }
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

/** A stored fill read for some columns only: those, the key columns, and the order's type when asked for. */
export type PartialFill = Partial<StoredFill> & Pick<FillRow, 'time' | 'block_number' | 'event_index' | 'tid'>;

/** A page of stored fills; `fills` holds them merged when the query asked for aggregateByTime. */
export interface FillPage<R> {
  rows: R[];
  hasMore: boolean;
  nextCursor: string | null;
  fills?: WireFill[];
}

/** What fillPage reads: a fill-rows query; with aggregateByTime, the page's fills merged by the one rule. */
export type FillPageQuery = Omit<FillRowsQuery, 'withTotal'> & { aggregateByTime?: boolean };

/**
 * The parts of fillPage's statements: the filters, `after` a key, the select, and `first`, the page's first read (the
 * fills matching `q` in its order, from its cursor, `limit` + 1 of them: the one past the page tells whether more
 * follow and where the page is cut).
 */
function pageSql(q: FillPageQuery, columns: ReadonlySet<FillColumn> | undefined) {
  const desc = q.order === 'desc';
  const { params, param } = queryParams();
  const filters = fillFilters(q, param);
  // The parameters of the filters alone: the statements that follow a cut start again from them.
  const filterCount = params.length;
  const position = (k: FillKey) =>
    `(${param(k.block_number)}::bigint, ${param(k.event_index)}::int, ${param(k.tid)}::bigint)`;
  // Past a key in fillOrder: time runs in the asked direction, execution order always forwards. The time bound is
  // stated alone too: an index condition (the scan starts at the key, not at the newest fill, and the partitions past
  // it are pruned) that the OR alone is not.
  const after = (k: FillKey) => {
    const t = `${param(k.time)}::bigint`;
    const later = `(f.block_number, f.event_index, f.tid) > ${position(k)}`;
    return `(f.time ${desc ? '<=' : '>='} ${t} AND (f.time ${desc ? '<' : '>'} ${t} OR ${later}))`;
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
  const first = `${select(where, checkInt('limit', q.limit, 1, Number.MAX_SAFE_INTEGER) + 1)}${offset}`;
  return { params, param, filters, filterCount, position, after, select, first };
}

/**
 * The statement of a page's first read (pageSql's `first`): fillPage runs it; a caller writing the page's JSON from
 * Postgres's text runs the same (wire-fill.ts writeWireFillPage).
 */
export function fillPageStatement(
  q: FillPageQuery,
  columns: ReadonlySet<FillColumn> | undefined,
): { text: string; values: unknown[] } {
  const sql = pageSql(q, columns);
  return { text: sql.first, values: [...sql.params] };
}

/**
 * The one read path of stored fills (compact rows, wire fills, GraphQL connections, userFills): a keyset page in
 * fillOrder, by time in the direction `order` asks for; `limit` may go up to `maxLimit`. Fills stored before
 * event_index existed may share a key (the two fills of one trade), so a page never ends between fills of one key:
 * it stops before them (or, when they alone fill the page, takes them all), and the cursor of the page's last row
 * resumes strictly after it. With aggregateByTime, a page followed by more also leaves its last timestamp to the
 * next (unless that timestamp alone fills it), so that the partial fills of a crossing order are merged from all
 * their parts, and `fills` holds the page merged (aggregateFillsByTime); no order type is looked up. With
 * `columns`, only those (and the keyset's columns) are read: a caller that prints a few fields of 2 000 fills does
 * not have Postgres print and pg parse 25 columns of each.
 */
export async function fillPage(
  pool: pg.Pool,
  q: FillPageQuery,
  opts?: { maxLimit?: number },
): Promise<FillPage<StoredFill>>;
export async function fillPage(
  pool: pg.Pool,
  q: FillPageQuery,
  opts: { maxLimit?: number; columns: ReadonlySet<FillColumn> | undefined },
): Promise<FillPage<PartialFill>>;
export async function fillPage(
  pool: pg.Pool,
  query: FillPageQuery,
  { maxLimit = MAX_FILL_ROWS, columns }: { maxLimit?: number; columns?: ReadonlySet<FillColumn> } = {},
): Promise<FillPage<PartialFill>> {
  const limit = checkInt('limit', query.limit, 1, maxLimit);
  // A merged fill carries no order type, and is printed from the wire columns.
  const q = query.aggregateByTime ? { ...query, limit, includeOrderType: false } : { ...query, limit };
  const read = query.aggregateByTime ? columns && new Set([...columns, ...WIRE_FILL_COLUMNS]) : columns;
  const sql = pageSql(q, read);
  const { params, param, filters, select } = sql;
  const { rows } = await pool.query<PartialFill>(sql.first, params);
  let page = rows.slice(0, limit);
  let hasMore = rows.length > limit;
  const next = rows[limit];
  // By offset, pages are positions in the order, never cut (the next page starts where this one's limit ends).
  if (next && q.offset === undefined && sameKey(page.at(-1) as PartialFill, next)) {
    const cut = page.filter((r) => !sameKey(r, next));
    if (cut.length) page = cut;
    else {
      // The page is fills of one key and more: take all of them, then see whether anything follows.
      params.length = sql.filterCount;
      const same = [
        ...filters,
        `f.time = ${param(next.time)}`,
        `(f.block_number, f.event_index, f.tid) = ${sql.position(next)}`,
      ];
      page = (await pool.query<PartialFill>(select(same, null), params)).rows;
      params.length = sql.filterCount;
      const rest = await pool.query(select([...filters, sql.after(next)], 1), params);
      hasMore = (rest.rowCount ?? 0) > 0;
    }
  }
  if (query.aggregateByTime && hasMore) {
    const lastTime = page.at(-1)?.time;
    const whole = page.filter((r) => r.time !== lastTime);
    if (whole.length) page = whole;
  }
  const lastRow = page.at(-1);
  const result: FillPage<PartialFill> = {
    rows: page,
    hasMore,
    nextCursor: hasMore && lastRow ? fillCursor(lastRow) : null,
  };
  if (query.aggregateByTime) result.fills = aggregateFillsByTime((page as WireFillSource[]).map(toWireFill));
  return result;
}

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

/**
 * The most fills a total counts: a market maker holds 10^8 fills, and counting them would cost seconds a page. Past
 * it the total is not available (no `X-Total-Count`, a null `totalCount`), as the spec allows ("where available").
 */
export const MAX_COUNTED_FILLS = 10_000;

/** How many fills match the filters of a fill-rows query (the cursor aside); null past MAX_COUNTED_FILLS. */
export async function countFills(pool: pg.Pool, q: FillFilters): Promise<number | null> {
  const { params, param } = queryParams();
  const where = fillFilters(q, param);
  const { rows } = await pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM accounts.fills f WHERE ${where.length ? where.join(' AND ') : 'true'}
       LIMIT ${MAX_COUNTED_FILLS + 1}) counted`,
    params,
  );
  const n = rows[0]?.n ?? 0;
  return n > MAX_COUNTED_FILLS ? null : n;
}

export type FillFilters = Pick<FillRowsQuery, 'user' | 'builder' | 'coin' | 'side' | 'twap' | 'startTime' | 'endTime'>;

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
  if (q.user !== undefined) filters.push(`f.address = ${param(q.user)}`);
  if (q.builder !== undefined) filters.push(`f.builder = ${param(q.builder)}`);
  if (q.coin !== undefined) filters.push(`f.coin = ${param(q.coin)}`);
  if (q.side !== undefined) filters.push(`f.side = ${param(q.side)}`);
  if (q.twap !== undefined) {
    filters.push('f.twap_id IS NOT NULL');
    if (q.twap.id !== undefined) filters.push(`f.twap_id = ${param(q.twap.id)}`);
  }
  if (q.startTime !== undefined) filters.push(`f.time >= ${param(q.startTime)}`);
  if (q.endTime !== undefined) filters.push(`f.time <= ${param(q.endTime)}`);
  return filters;
}
