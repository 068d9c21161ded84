// Non-funding ledger updates: userNonFundingLedgerUpdates (oldest first) and the snapshot of the
// userNonFundingLedgerUpdates WebSocket channel. One stored row per event and per address involved, so a `send`
// appears in the history of its sender and of its receiver.
import type pg from 'pg';
import { LEDGER_COVERAGE_START } from '../../../platform/coverage.ts';

/** The exchange caps time-ranged answers at 500 elements. */
export const MAX_LEDGER_UPDATES = 500;

/** `{time, hash, delta}`: the delta is stored as the node printed it, already in the API's shape (wire §2.6). */
export interface LedgerUpdate {
  time: number;
  hash: string;
  delta: { type: string } & Record<string, unknown>;
}

export interface LedgerQuery {
  user: string;
  /** Inclusive epoch-ms bounds; no start = from the beginning. */
  startTime?: number;
  endTime?: number;
  /** Capped at 500, as the exchange does. */
  limit: number;
}

/**
 * userNonFundingLedgerUpdates: the first `limit` updates of the window, oldest first. Updates held from before the
 * coverage start (2025-09-27 09:29 UTC) are not complete and never served: the window starts there at the earliest.
 */
export async function userNonFundingLedgerUpdates(pool: pg.Pool, q: LedgerQuery): Promise<LedgerUpdate[]> {
  const startTime = Math.max(q.startTime ?? 0, LEDGER_COVERAGE_START);
  if (q.endTime !== undefined && q.endTime < startTime) return [];
  const limit = Math.max(1, Math.min(Math.floor(q.limit), MAX_LEDGER_UPDATES));
  const { rows } = await pool.query<LedgerUpdate>(
    `SELECT time, hash, delta FROM accounts.ledger_updates
     WHERE address = $1 AND time >= $2 AND ($3::bigint IS NULL OR time <= $3)
     ORDER BY time, block_number, hash LIMIT $4`,
    [q.user.toLowerCase(), startTime, q.endTime ?? null, limit],
  );
  return rows;
}

/** The channel snapshot: the `n` most recent updates, returned oldest first. */
export async function recentLedgerUpdates(pool: pg.Pool, user: string, n = 100): Promise<LedgerUpdate[]> {
  const { rows } = await pool.query<LedgerUpdate>(
    `SELECT time, hash, delta FROM accounts.ledger_updates WHERE address = $1 AND time >= $3
     ORDER BY time DESC, block_number DESC, hash DESC LIMIT $2`,
    [user.toLowerCase(), n, LEDGER_COVERAGE_START],
  );
  return rows.reverse();
}
