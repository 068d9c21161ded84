// Stored fills in the exchange's shapes: userFills / userFillsByTime (wire Fill, optional aggregateByTime), read by
// the one read path of fill pages (fill-pages.ts fillPage), and their JSON written from Postgres's text by the same
// statement. A fill's fields (fill-fields.ts), the wire shape (wire-fill.ts) and the keyset pages (fill-pages.ts) are
// re-exported: this module is where the domain's fill functions are imported from.

import type pg from 'pg';
import type { Address } from '../../../platform/fields.ts';
import { EncodedList, jsonBytes } from '../../../platform/json-text.ts';
import { toWireFill, WIRE_FILL_COLUMNS, type WireFill } from './fill-fields.ts';
import { type FillPageQuery, fillPage, fillPageStatement } from './fill-pages.ts';
import { MAX_WIRE_FILLS } from './limits.ts';
import { writeWireFillPage } from './wire-fill.ts';

export { MAX_WIRE_FILLS };

/**
 * A user's newest fills (userFills), or with startTime the newest of that window (userFillsByTime): at most
 * MAX_WIRE_FILLS, newest first, fills of one time in execution order; aggregateByTime merges a crossing order's
 * partial fills; `reversed: false` (the TS SDK's) lists the same fills oldest first.
 */
export interface UserFillsQuery {
  user: Address;
  startTime?: number;
  endTime?: number;
  aggregateByTime?: boolean;
  reversed?: boolean;
  /** Fewer than MAX_WIRE_FILLS (the most, and the default). */
  limit?: number;
}

/** The page of a UserFillsQuery: the first of its fills newest first. */
const newestPage = (q: UserFillsQuery): FillPageQuery => ({
  user: q.user,
  startTime: q.startTime,
  endTime: q.endTime,
  order: 'desc',
  limit: Math.min(q.limit ?? MAX_WIRE_FILLS, MAX_WIRE_FILLS),
  includeOrderType: false,
  aggregateByTime: q.aggregateByTime === true,
});

/** userFills and userFillsByTime as wire fills (the userFills channel's snapshot too). */
export async function userFills(pool: pg.Pool, q: UserFillsQuery): Promise<WireFill[]> {
  const page = await fillPage(pool, newestPage(q), { maxLimit: MAX_WIRE_FILLS, columns: WIRE_FILL_COLUMNS });
  const fills = page.fills ?? page.rows.map((r) => toWireFill(r as Parameters<typeof toWireFill>[0]));
  return q.reversed === false ? fills.reverse() : fills;
}

/**
 * userFills as JSON bytes with the number of fills: written from Postgres's text by the page's own statement (in
 * chunks to `out` when given, the last one returned), or, when merged, reversed or cut to one key, from userFills.
 */
export async function userFillsList(
  pool: pg.Pool,
  q: UserFillsQuery,
  out?: (chunk: Buffer) => void,
): Promise<EncodedList> {
  if (q.aggregateByTime !== true && q.reversed !== false) {
    const page = newestPage(q);
    const written = await writeWireFillPage(pool, fillPageStatement(page, WIRE_FILL_COLUMNS), page.limit, out);
    if (written) return written;
  }
  const fills = await userFills(pool, q);
  return new EncodedList(jsonBytes(fills), fills.length);
}

/** userFillsList's bytes (compat's answer), in chunks to `out` when given. */
export async function userFillsJson(pool: pg.Pool, q: UserFillsQuery, out?: (chunk: Buffer) => void): Promise<Buffer> {
  return (await userFillsList(pool, q, out)).json;
}

/** The SQL of a plain userFills (for the bench's baseline): the statement and its parameters. */
export const userFillsSql = (user: Address) => fillPageStatement(newestPage({ user }), WIRE_FILL_COLUMNS);
