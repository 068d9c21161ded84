// The leaderboard as it was ranked before the running totals (issue 39): every address's rows of the window summed
// again and its latest snapshot probed once per address. Nothing serves from it: it is the reference the boards are
// checked against (leaderboard.test.ts) and measured beside (bench/analytics.ts).
import { rankExpressions, rankingSums } from '../service/ranking.ts';
import { windowRows } from '../service/window.ts';

/** The latest snapshot's account value and unrealized PnL of each address of `s` (a lateral join). */
const LATEST_SNAPSHOT = `LEFT JOIN LATERAL (
    SELECT account_value, unrealized_pnl FROM analytics.account_snapshots sn
    WHERE sn.address = s.address ORDER BY time DESC LIMIT 1) snap ON true`;

/**
 * Every address of a window re-summed, with its current value (what the live top 100 sorted at each request), over
 * the four `windowParams` from `$first`.
 */
export function resummedSums(first: number): string {
  return `SELECT s.*, snap.account_value, snap.unrealized_pnl
    FROM (${rankingSums(windowRows(first, 'true'))}) s ${LATEST_SNAPSHOT}`;
}

/** `resummedSums` with its ranks: the columns of a board, as the refresh inserted them. */
export function resummedBoard(first: number): string {
  return `SELECT r.*, ${rankExpressions('r')} FROM (${resummedSums(first)}) r`;
}
