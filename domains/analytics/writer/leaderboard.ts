// The leaderboards the writer numbers ahead of the requests (spec §8): the scheduled windows (7d and 30d every 5
// minutes, `all` every hour), each built aside in a table of its own, numbered once per metric, indexed, and swapped
// in as its window's partition of analytics.leaderboard (readers see the old board or the new one, never half, and
// no row is deleted); and the live top 100 of the hours in LIVE_BOARDS (ranking.ts), each on its cadence. `all` reads the running totals
// the derivation keeps (user_totals), not every day of history; the windows read their own days and edge hours; the
// current account value is the derivation's running state's, joined, not a probe of the snapshots per address.
import type pg from 'pg';
import { inTransaction } from '../../../db/pool.ts';
import { LIVE_TOP } from '../service/inputs.ts';
import { LIVE_BOARDS, METRICS, rankColumn, rankedRows, rankingRows, rankingSums } from '../service/ranking.ts';
import { DAY_MS, HOUR_MS, windowHours, windowParams, windowRows } from '../service/window.ts';

export const WINDOWS = { '7d': 5 * 60_000, '30d': 5 * 60_000, all: 60 * 60_000 } as const;
export type LeaderboardWindow = keyof typeof WINDOWS;
const WINDOW_DAYS: Record<LeaderboardWindow, number | null> = { '7d': 7, '30d': 30, all: null };

/**
 * One refresher per board at a time (`npm run derive` beside `npm start`): the next board's table is one name, and
 * a live board is replaced by key. Keyed by the window's name hashed, or the live board's hours.
 */
const REFRESH_LOCK = 0x6c626f61; // "lboa"
/** A board over every address sorts it once per metric: allowed longer than a derivation batch's statements. */
const REFRESH_STATEMENT_TIMEOUT_MS = 300_000;
/** Sorts of a whole board (and its index builds) in memory rather than on disk (this transaction only). */
const REFRESH_WORK_MEM = '512MB';
/** The swap waits this long for readers of the board at a time, and tries again (a page reads in milliseconds). */
const SWAP_LOCK_TIMEOUT_MS = 2_000;
const SWAP_ATTEMPTS = 5;

const BOARD_COLUMNS = `window_name, address, fills, volume, realized_pnl, fees, funding, wins, losses, trades, win_rate,
  pnl_pct, account_value, unrealized_pnl, refreshed_at, ${METRICS.map(rankColumn).join(', ')}`;
/** The sums of a `user_totals` row (and of a user_hourly one). */
const SUMS = ['fills', 'volume', 'realized_pnl', 'fees', 'funding', 'wins', 'losses', 'trips'];

/**
 * Every address's all-time sums as of the hour `$to` (epoch ms, exclusive): its running totals, less what the hours
 * from `$to` on added (none, unless the board is ranked as of a time before the derivation's); only addresses with an
 * hour before `$to`. The same sums as every daily row before `$to`'s day and the hourly rows of its day.
 */
function totalsAsOf(to: string): string {
  // coalesce(t − l, t): t itself where no later hour is summed (the usual case), no arithmetic per address.
  return `SELECT t.address, ${SUMS.map((c) => `coalesce(t.${c} - l.${c}, t.${c}) AS ${c}`).join(', ')}
    FROM analytics.user_totals t
    LEFT JOIN (SELECT address, ${SUMS.map((c) => `sum(${c}) AS ${c}`).join(', ')} FROM analytics.user_hourly
               WHERE hour >= ${to} GROUP BY address) l ON l.address = t.address
    WHERE t.first_hour < ${to}`;
}

/** A board's partition (and, with `_next`, the table its next board is built in). */
const partitionOf = (window: LeaderboardWindow) => `leaderboard_${window}`;

/**
 * Recomputes one window as of `now`: [now − N days, now] by the domain's window rule (every UTC hour overlapping it,
 * window.ts), as /performance counts the same window; `all` every hour, from the running totals. Built aside and
 * swapped in, in one transaction.
 */
export async function refreshLeaderboard(pool: pg.Pool, window: LeaderboardWindow, now: number): Promise<void> {
  const days = WINDOW_DAYS[window];
  const hours = windowHours(days === null ? null : now - days * DAY_MS, now);
  const board = partitionOf(window);
  const next = `${board}_next`;
  const rows =
    days === null
      ? { sql: rankingRows(totalsAsOf('$3')), params: [hours.to] }
      : { sql: rankingSums(windowRows(3, 'true')), params: windowParams(hours) };
  await inTransaction(pool, async (c) => {
    const q = (text: string, values?: unknown[]) =>
      c.query({ text, values, query_timeout: REFRESH_STATEMENT_TIMEOUT_MS } as pg.QueryConfig);
    await q(`SET LOCAL statement_timeout = ${REFRESH_STATEMENT_TIMEOUT_MS}`);
    await q(`SET LOCAL work_mem = '${REFRESH_WORK_MEM}'`);
    await q(`SET LOCAL maintenance_work_mem = '${REFRESH_WORK_MEM}'`);
    await q('SELECT pg_advisory_xact_lock($1, hashtext($2))', [REFRESH_LOCK, window]);
    await q(`CREATE TABLE analytics.${next} (LIKE analytics.leaderboard INCLUDING DEFAULTS)`);
    await q(
      `INSERT INTO analytics.${next} (${BOARD_COLUMNS})
       SELECT $1, r.address, r.fills, r.volume, r.realized_pnl, r.fees, r.funding, r.wins, r.losses, r.trades,
         r.win_rate, r.pnl_pct, r.account_value, r.unrealized_pnl, to_timestamp($2::float8 / 1000),
         ${METRICS.map((m) => `r.${rankColumn(m)}`).join(', ')}
       FROM (${rankedRows(rows.sql)}) r`,
      [window, now, ...rows.params],
    );
    // The parent's indexes, built on the full table before the swap: attaching finds them and builds nothing; the
    // check lets the attach skip its scan of the rows.
    // Named after the board, under the next board's name until the swap (the board's own hold them till then).
    const indexes = ['pkey', ...METRICS.map(rankColumn)];
    // Keyed as the parent's (migration 0057): the address first and each rank alone, so that a build's sort compares
    // by its leading column (the board's one window name, first, made every comparison a tie to break).
    await q(`ALTER TABLE analytics.${next} ADD CONSTRAINT ${next}_pkey PRIMARY KEY (address, window_name),
      ADD CHECK (window_name = '${window}')`);
    for (const rank of METRICS.map(rankColumn)) {
      await q(`CREATE INDEX ${next}_${rank} ON analytics.${next} (${rank}) WHERE ${rank} IS NOT NULL`);
    }
    await swapIn(c, `DETACH PARTITION analytics.${board}`, async () => {
      await q(`DROP TABLE analytics.${board}`);
      await q(`ALTER TABLE analytics.leaderboard ATTACH PARTITION analytics.${next} FOR VALUES IN ('${window}')`);
      await q(`ALTER TABLE analytics.${next} RENAME TO ${board}`);
      for (const index of indexes) await q(`ALTER INDEX analytics.${next}_${index} RENAME TO ${board}_${index}`);
    });
  });
}

/**
 * The swap's first step (`ALTER TABLE analytics.leaderboard <first>`) waits for the readers of the leaderboard; a
 * wait past SWAP_LOCK_TIMEOUT_MS gives up that step only (a savepoint) and tries again, so that new pages do not
 * queue behind a swap held up by a long read. The rest runs once the lock is held.
 */
async function swapIn(c: pg.PoolClient, first: string, rest: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await c.query('SAVEPOINT swap');
    await c.query(`SET LOCAL lock_timeout = ${SWAP_LOCK_TIMEOUT_MS}`);
    try {
      await c.query(`ALTER TABLE analytics.leaderboard ${first}`);
      break;
    } catch (err) {
      // 55P03: lock_not_available.
      if ((err as { code?: string }).code !== '55P03' || attempt >= SWAP_ATTEMPTS) throw err;
      await c.query('ROLLBACK TO SAVEPOINT swap');
    }
  }
  await c.query('SET LOCAL lock_timeout = 0');
  await rest();
}

/**
 * Numbers the live top 100 of each of `boards` (their hours; default every one of LIVE_BOARDS) as of `now` (the hours
 * overlapping the last `hours`, window.ts), every metric under its default `min_trades`: the rows the service answers
 * a live request for those hours from.
 */
export async function refreshLiveBoards(
  pool: pg.Pool,
  now: number,
  boards: Iterable<number> = LIVE_BOARDS.keys(),
): Promise<void> {
  for (const hours of boards) {
    const span = windowHours(now - hours * HOUR_MS, now);
    const ranked = rankedRows(rankingSums(windowRows(3, 'true')));
    const totals = METRICS.map((m) => `'${m}', coalesce(max(${rankColumn(m)}), 0)`).join(', ');
    const top = METRICS.map(
      (m) => `SELECT '${m}' AS metric, ${rankColumn(m)} AS rank, b.* FROM b WHERE ${rankColumn(m)} <= ${LIVE_TOP}`,
    ).join(' UNION ALL ');
    await inTransaction(pool, async (c) => {
      await c.query(`SET LOCAL work_mem = '${REFRESH_WORK_MEM}'`);
      await c.query('SELECT pg_advisory_xact_lock($1, $2)', [REFRESH_LOCK, hours]);
      await c.query('DELETE FROM analytics.live_leaderboard WHERE hours = $1', [hours]);
      await c.query('DELETE FROM analytics.live_boards WHERE hours = $1', [hours]);
      await c.query(
        `WITH b AS MATERIALIZED (${ranked}),
           board AS (INSERT INTO analytics.live_boards (hours, window_from, window_to, refreshed_at, derived_until,
                       totals)
                     SELECT $1::int, $3::int8, $6::int8, $2::int8,
                       (SELECT cursor_time FROM analytics.derive_checkpoint WHERE job = 'analytics'),
                       jsonb_build_object(${totals}) FROM b)
         INSERT INTO analytics.live_leaderboard (hours, metric, rank, address, fills, trades, volume, realized_pnl, fees,
           funding, wins, losses, win_rate, pnl_pct, account_value, unrealized_pnl)
         SELECT $1::int, metric, rank, address, fills, trades, volume, realized_pnl, fees, funding, wins, losses, win_rate,
           pnl_pct, account_value, unrealized_pnl
         FROM (${top}) t`,
        [hours, now, ...windowParams(span)],
      );
    });
  }
}
