// Non-funding ledger updates: userNonFundingLedgerUpdates (paged by history-page.ts's rule) and the snapshot of the
// userNonFundingLedgerUpdates WebSocket channel. One stored row per event and per address involved, so a `send`
// appears in the history of its sender and of its receiver.

import type pg from 'pg';
import { LEDGER_COVERAGE_START } from '../../../platform/coverage.ts';
import type { Address } from '../../../platform/fields.ts';
import { type HistoryPage, type HistoryPageQuery, type HistoryTable, historyPage } from './history-page.ts';

/** `{time, hash, delta}`: the delta is stored as the node printed it, already in the API's shape (wire §2.6). */
export interface LedgerUpdate {
  time: number;
  hash: string;
  delta: { type: string } & Record<string, unknown>;
}

/** How a page's cursor is written (its 400 and the input definition state it). */
export const LEDGER_CURSOR_FORM = '"<time>:<block>:<hash>:<digest>"';

const LEDGER_TABLE: HistoryTable = {
  table: 'accounts.ledger_updates',
  columns: 'time, hash, delta',
  // A transaction's updates of one address differ by their delta (a digest keeps the cursor short).
  key: [
    { sql: 'time', kind: 'bigint' },
    { sql: 'block_number', kind: 'bigint' },
    { sql: 'hash', kind: 'text' },
    { sql: 'md5(delta::text)', kind: 'text' },
  ],
  coverageStart: LEDGER_COVERAGE_START,
  cursorForm: LEDGER_CURSOR_FORM,
};

/**
 * userNonFundingLedgerUpdates: a page of the user's updates (history-page.ts: a window oldest first, else the newest
 * first). Updates held from before the coverage start (2025-09-27 09:29 UTC) are not complete and never served.
 */
export function userNonFundingLedgerUpdates(pool: pg.Pool, q: HistoryPageQuery): Promise<HistoryPage<LedgerUpdate>> {
  return historyPage(pool, LEDGER_TABLE, q, ({ time, hash, delta }) => ({ time, hash, delta }) as LedgerUpdate);
}

/** The channel snapshot: the `n` most recent updates, returned oldest first. */
export async function recentLedgerUpdates(pool: pg.Pool, user: Address, n = 100): Promise<LedgerUpdate[]> {
  const { rows } = await pool.query<LedgerUpdate>(
    `SELECT time, hash, delta FROM accounts.ledger_updates WHERE address = $1 AND time >= $3
     ORDER BY time DESC, block_number DESC, hash DESC LIMIT $2`,
    [user, n, LEDGER_COVERAGE_START],
  );
  return rows.reverse();
}
