// Stored fills in the exchange's shapes: userFills / userFillsByTime (wire Fill, optional aggregateByTime) and the
// aggregated page every interface merges by. The wire shape (wire-fill.ts) and the keyset pages of stored fills
// (fill-pages.ts) are re-exported: this module is where the domain's fill functions are imported from.
import type pg from 'pg';
import { EncodedList, jsonBytes } from '../../../platform/json-text.ts';
import {
  type FillFilters,
  type FillRowsQuery,
  fillCursor,
  fillFilters,
  fillPage,
  queryParams,
  type StoredFill,
} from './fill-pages.ts';
import {
  aggregateFillsByTime,
  queryWireFillsJson,
  queryWireFillsList,
  toWireFill,
  type WireFill,
  type WireFillSource,
  wireFillsSql,
} from './wire-fill.ts';

export {
  type AllFillsQuery,
  allFills,
  allFillsEnd,
  type BuilderRevenue,
  builderFeeRevenues,
  type CompactFillRow,
  countFills,
  type FillRowsPage,
  type FillRowsQuery,
  fillCursor,
  fillPage,
  fillRows,
  MAX_ALL_FILLS_WINDOW_MS,
  MAX_FILL_ROWS,
  type PartialFill,
  parseFillCursor,
  type StoredFill,
} from './fill-pages.ts';
export {
  aggregateFillsByTime,
  type FillColumn,
  fillColumns,
  fillOrder,
  NEWEST_FIRST,
  toWireFill,
  type WireFill,
  wireFillsSql,
} from './wire-fill.ts';

/** The exchange's cap on userFills, userFillsByTime and userTwapSliceFills answers. */
export const MAX_WIRE_FILLS = 2000;

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

/** userFills as JSON bytes with the number of fills (the MCP tool's answer: copied, not parsed). */
export async function userFillsList(pool: pg.Pool, q: UserFillsQuery): Promise<EncodedList> {
  if (q.aggregateByTime !== true)
    return queryWireFillsList(pool, newestFillsSql(userOnly(q), MAX_WIRE_FILLS), MAX_WIRE_FILLS);
  const fills = await userFills(pool, q);
  return new EncodedList(jsonBytes(fills), fills.length);
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
