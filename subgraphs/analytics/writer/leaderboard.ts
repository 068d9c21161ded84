// The scheduled leaderboard windows (spec §8): 7d and 30d recomputed every 5 minutes, `all` every hour, each
// replaced whole in one transaction from the daily sums, every row stamped with `refreshed_at` and numbered once per
// metric (a page is then an index range, not a sort of the window).
import type pg from 'pg';
import { inTransaction } from '../../../db/pool.ts';
import { LATEST_SNAPSHOT, METRICS, rankColumn, rankExpressions, rankingSums } from '../service/ranking.ts';
import { DAY_MS, windowHours, windowParams, windowRows } from '../service/window.ts';

export const WINDOWS = { '7d': 5 * 60_000, '30d': 5 * 60_000, all: 60 * 60_000 } as const;
export type LeaderboardWindow = keyof typeof WINDOWS;
const WINDOW_DAYS: Record<LeaderboardWindow, number | null> = { '7d': 7, '30d': 30, all: null };

/**
 * Recomputes one window as of `now`: [now − N days, now] by the domain's window rule (every UTC hour overlapping it,
 * window.ts), as /performance counts the same window; `all` every hour.
 */
export async function refreshLeaderboard(pool: pg.Pool, window: LeaderboardWindow, now: number): Promise<void> {
  const days = WINDOW_DAYS[window];
  const hours = windowHours(days === null ? null : now - days * DAY_MS, now);
  await inTransaction(pool, async (c) => {
    await c.query('DELETE FROM analytics.leaderboard WHERE window_name = $1', [window]);
    await c.query(
      `INSERT INTO analytics.leaderboard (window_name, address, fills, volume, realized_pnl, fees, funding, wins, losses,
         trades, win_rate, pnl_pct, account_value, unrealized_pnl, refreshed_at, ${METRICS.map(rankColumn).join(', ')})
       SELECT $1, r.address, r.fills, r.volume, r.realized_pnl, r.fees, r.funding, r.wins, r.losses, r.trades,
         r.win_rate, r.pnl_pct, r.account_value, r.unrealized_pnl, to_timestamp($2::float8 / 1000),
         ${rankExpressions('r')}
       FROM (SELECT s.*, snap.account_value, snap.unrealized_pnl
             FROM (${rankingSums(windowRows(3, 'true'))}) s ${LATEST_SNAPSHOT}) r`,
      [window, now, ...windowParams(hours)],
    );
  });
}
