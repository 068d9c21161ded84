// What the EVM lists share: the page-size and offset rules (spec §8: 1 to 1000 rows), SQL parameter collection and
// the `limit + 1` read that tells whether another page follows. A list answers a kit/page.ts Page, each row's cursor
// the offset after it.
import { type Page, pageOf as pageOfRows } from '../../../kit/page.ts';

/** Rows per page of every EVM list (spec §8: holders paging value and `/evm/transactions` count, 1 to 1000). */
export const MAX_EVM_ROWS = 1000;
export const EVM_ROWS_DEFAULT = 100;
/** The deepest offset: beyond it a keyset read is the way (bench/evm.ts measures deep offsets). */
export const MAX_EVM_OFFSET = 100_000_000;

export interface PageQuery {
  limit: number;
  offset: number;
}

/** Positional parameters for one statement: `param(v)` appends `v` and returns its `$n`. */
export function sqlParams(): { params: unknown[]; param: (v: unknown) => string } {
  const params: unknown[] = [];
  return {
    params,
    param: (v) => {
      params.push(v);
      return `$${params.length}`;
    },
  };
}

/** The `LIMIT n+1 OFFSET m` of a page; the extra row only says whether more follows. */
export function pageClause(q: PageQuery, param: (v: unknown) => string): string {
  return `LIMIT ${param(q.limit + 1)} OFFSET ${param(q.offset)}`;
}

/** The page of `rows` read `limit + 1` from `offset`: each row's cursor the offset after it. */
export function pageOf<T>(rows: T[], q: PageQuery): Page<T> {
  return pageOfRows(rows, q.limit, (_row, i) => String(q.offset + i + 1));
}

/**
 * A list's filters as SQL: `conditions` (already parameterised) and the inclusive time window on `time`; '' when
 * nothing filters.
 */
export function whereClause(
  conditions: string[],
  window: { startTime?: number; endTime?: number },
  param: (v: unknown) => string,
): string {
  const where = [...conditions];
  if (window.startTime !== undefined) where.push(`time >= ${param(window.startTime)}`);
  if (window.endTime !== undefined) where.push(`time <= ${param(window.endTime)}`);
  return where.length ? `WHERE ${where.join(' AND ')}` : '';
}
