// The paging of a user's funding payments and ledger updates (one rule for both, and for every interface): with a
// `startTime`, the window's rows oldest first, as the exchange answers a window; without one, the newest rows first
// (up to `endTime` when given), as fill lists are. Either way keyset-paged: the cursor is the last row's key and
// resumes strictly after it, in the same direction, so that paging returns every row of the history exactly once.

import type pg from 'pg';
import type { Address } from '../../../platform/fields.ts';
import { fitsBigint, InvalidQueryError } from './shared.ts';

/** The exchange's cap on a time-ranged answer (500 elements), which is also the default page. */
export const MAX_HISTORY_PAGE = 500;

export interface HistoryPageQuery {
  user: Address;
  /** Inclusive epoch-ms bounds. A start means the exchange's window: oldest first. */
  startTime?: number;
  endTime?: number;
  /** 1 to MAX_HISTORY_PAGE. */
  limit: number;
  /** The `nextCursor` of the previous page of the same question. */
  cursor?: string;
}

export interface HistoryPage<R> {
  rows: R[];
  /** Each row's own cursor (its key), e.g. for GraphQL edges. */
  cursors: string[];
  hasMore: boolean;
  /** The key of the last row when more follows, else null. */
  nextCursor: string | null;
}

/**
 * What the pager reads of one table: its rows' columns, and the key that orders them, time first then the
 * tie-breaks (`kind` says how a cursor's part is checked and cast). Rows of one key are never split across pages.
 */
export interface HistoryTable {
  table: string;
  columns: string;
  key: readonly { sql: string; kind: 'bigint' | 'text' }[];
  /** Rows before it are not complete and never served. */
  coverageStart: number;
  /** How a cursor is described in its 400. */
  cursorForm: string;
}

const KEY_PREFIX = '_k';

/** The cursor of a row: its key's parts joined by ':' (only the last part may itself hold ':', e.g. `xyz:BTC`). */
const cursorOf = (t: HistoryTable, row: Record<string, unknown>) =>
  t.key.map((_, i) => String(row[`${KEY_PREFIX}${i}`])).join(':');

function parseCursor(t: HistoryTable, cursor: string): string[] {
  const parts = cursor.split(':');
  const key = [...parts.slice(0, t.key.length - 1), parts.slice(t.key.length - 1).join(':')];
  const valid =
    parts.length >= t.key.length &&
    cursor.length <= 200 &&
    t.key.every((k, i) => {
      const part = key[i] as string;
      return k.kind === 'bigint' ? fitsBigint(part) : part !== '' && !part.includes('\u0000');
    });
  if (!valid) {
    throw new InvalidQueryError(
      `cursor: must be ${t.cursorForm} as a page gave it, got ${JSON.stringify(cursor).slice(0, 60)}`,
    );
  }
  return key;
}

/**
 * One page of a user's rows of `t`: see the module's rule. Payments or updates before the coverage start are never
 * served (the window starts there at the earliest). The caller checks `limit` (the service's default and cap).
 */
export async function historyPage<R>(
  pool: pg.Pool,
  t: HistoryTable,
  q: HistoryPageQuery,
  toRow: (r: Record<string, unknown>) => R,
): Promise<HistoryPage<R>> {
  const oldestFirst = q.startTime !== undefined;
  const startTime = Math.max(q.startTime ?? 0, t.coverageStart);
  if (q.endTime !== undefined && q.endTime < startTime)
    return { rows: [], cursors: [], hasMore: false, nextCursor: null };
  const params: unknown[] = [q.user, startTime, q.endTime ?? null];
  const param = (v: unknown) => `$${params.push(v)}`;
  const filters = ['address = $1', 'time >= $2', '($3::bigint IS NULL OR time <= $3)'];
  const keyRow = (values: readonly unknown[]) =>
    `(${values.map((v, i) => `${param(v)}::${(t.key[i] as HistoryTable['key'][number]).kind}`).join(', ')})`;
  const keyColumns = `(${t.key.map((k) => k.sql).join(', ')})`;
  // The bound on time alone lets the (address, time) index narrow the scan; the row comparison does the rest.
  const after = (key: readonly unknown[]) =>
    `time ${oldestFirst ? '>=' : '<='} ${param(key[0])}::bigint AND ${keyColumns} ${oldestFirst ? '>' : '<'} ${keyRow(key)}`;
  const direction = oldestFirst ? 'ASC' : 'DESC';
  const select = (where: string[], limit: number | null) =>
    `SELECT ${t.columns}, ${t.key.map((k, i) => `${k.sql} AS ${KEY_PREFIX}${i}`).join(', ')}
     FROM ${t.table} WHERE ${where.join(' AND ')}
     ORDER BY ${t.key.map((k) => `${k.sql} ${direction}`).join(', ')}${limit === null ? '' : ` LIMIT ${limit}`}`;

  const where = q.cursor === undefined ? filters : [...filters, after(parseCursor(t, q.cursor))];
  const { rows } = await pool.query<Record<string, unknown>>(select(where, q.limit + 1), params);
  let page = rows.slice(0, q.limit);
  let hasMore = rows.length > q.limit;
  const next = rows[q.limit];
  const keyOf = (r: Record<string, unknown>) => t.key.map((_, i) => r[`${KEY_PREFIX}${i}`]);
  const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) => cursorOf(t, a) === cursorOf(t, b);
  if (next && sameKey(page.at(-1) as Record<string, unknown>, next)) {
    // Rows of one key (one event seen twice by one address) stay on one page: cut before them, or, when they alone
    // fill the page, take them all.
    const cut = page.filter((r) => !sameKey(r, next));
    if (cut.length) page = cut;
    else {
      params.length = 3;
      page = (await pool.query(select([...filters, `${keyColumns} = ${keyRow(keyOf(next))}`], null), params)).rows;
      params.length = 3;
      hasMore = ((await pool.query(select([...filters, after(keyOf(next))], 1), params)).rowCount ?? 0) > 0;
    }
  }
  const last = page.at(-1);
  return {
    rows: page.map(toRow),
    cursors: page.map((r) => cursorOf(t, r)),
    hasMore,
    nextCursor: hasMore && last ? cursorOf(t, last) : null,
  };
}
