// The leaderboards from running totals (issue 39): the running totals are the sum of the daily rows, every board built
// aside and swapped in is the board the old refresh re-summed (writer/resummed.ts), as of now and as of an earlier
// time, and the live boards numbered ahead answer as a request-time sum does, until the derivation has moved past them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestAndDeriveLive } from '../../../test/analytics-services.ts';
import { CAROL, E2, M, NOW, truthHistoryFiles } from '../../../test/analytics-truth-history.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { AnalyticsService } from '../service/index.ts';
import { METRICS, rankColumn } from '../service/ranking.ts';
import { DAY_MS, HOUR_MS, windowHours, windowParams } from '../service/window.ts';
import { type LeaderboardWindow, refreshLeaderboard, refreshLiveBoards } from './leaderboard.ts';
import { resummedBoard } from './resummed.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await ingestAndDeriveLive(db, truthHistoryFiles(), NOW);
  // Whatever the derivation numbered while it caught up: each test numbers its own.
  await db.pool.query('TRUNCATE analytics.live_boards, analytics.live_leaderboard');
});
afterAll(() => db?.drop());

/** A board's columns as text: `as` wraps each decimal (its text, or the value as the answers print it). */
const columns = (as = (c: string) => `${c}::text`) =>
  `address, fills, trades, wins, losses, ${['volume', 'realized_pnl', 'fees', 'funding', 'win_rate', 'pnl_pct', 'account_value', 'unrealized_pnl'].map((c) => `${as(c)} AS ${c}`).join(', ')}, ${METRICS.map(rankColumn).join(', ')}`;
const COLUMNS = columns();

describe('running totals', () => {
  it('are every address’s daily rows summed, from its first derived hour', async () => {
    const { rows } = await db.pool.query(
      `SELECT t.address, t.first_hour = h.first_hour AS first_hour, t.fills = d.fills AND t.volume = d.volume
         AND t.realized_pnl = d.realized_pnl AND t.fees = d.fees AND t.funding = d.funding AND t.wins = d.wins
         AND t.losses = d.losses AND t.trips = d.trips AND t.longs = d.longs AND t.shorts = d.shorts AS sums
       FROM analytics.user_totals t
       FULL JOIN (SELECT address, sum(fills) AS fills, sum(volume) AS volume, sum(realized_pnl) AS realized_pnl,
                    sum(fees) AS fees, sum(funding) AS funding, sum(wins) AS wins, sum(losses) AS losses,
                    sum(trips) AS trips, sum(longs) AS longs, sum(shorts) AS shorts
                  FROM analytics.user_daily GROUP BY address) d USING (address)
       FULL JOIN (SELECT address, min(hour) AS first_hour FROM analytics.user_hourly GROUP BY address) h USING (address)
       ORDER BY address`,
    );
    expect(rows.length).toBe(4);
    for (const r of rows) expect(r, r.address).toMatchObject({ first_hour: true, sums: true });
  });
});

describe('scheduled boards, built aside and swapped in', () => {
  /** The board the old refresh ranked at `now`, and the one stored now, row by row as text. */
  async function boards(window: LeaderboardWindow, now: number, COLUMNS = columns()) {
    const days = { '7d': 7, '30d': 30, all: null }[window];
    const hours = windowHours(days === null ? null : now - days * DAY_MS, now);
    const old = await db.pool.query(`SELECT ${COLUMNS} FROM (${resummedBoard(1)}) b ORDER BY address`, [
      ...windowParams(hours),
    ]);
    await refreshLeaderboard(db.pool, window, now);
    const stored = await db.pool.query(
      `SELECT ${COLUMNS}, (extract(epoch FROM refreshed_at) * 1000)::int8 AS refreshed_at
       FROM analytics.leaderboard WHERE window_name = $1 ORDER BY address`,
      [window],
    );
    return { old: old.rows, stored: stored.rows };
  }

  for (const window of ['7d', '30d', 'all'] as const) {
    it(`${window}: the old refresh's rows and ranks, exactly`, async () => {
      const { old, stored } = await boards(window, NOW);
      expect(old.length).toBeGreaterThan(0);
      expect(stored).toEqual(old.map((r) => ({ ...r, refreshed_at: NOW })));
    });
  }

  it('all, as of a time before the newest derived hour: the totals less the hours after it', async () => {
    // E2 12:00: CAROL's E3 trips and fills are left out; an address first active later is not ranked. The same
    // values as the answers print them (a difference of sums keeps the larger scale: 0.704 − 0.074 = 0.630).
    const { old, stored } = await boards(
      'all',
      E2 + 12 * HOUR_MS,
      columns((c) => `trim_scale(${c})::text`),
    );
    expect(stored).toEqual(old.map((r) => ({ ...r, refreshed_at: E2 + 12 * HOUR_MS })));
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM analytics.user_totals`);
    expect(stored.length).toBeLessThanOrEqual(rows[0].n);
    await refreshLeaderboard(db.pool, 'all', NOW);
  });

  it('leaves one partition per window with its indexes, and no table half built', async () => {
    for (const w of ['7d', '30d', 'all'] as const) await refreshLeaderboard(db.pool, w, NOW);
    const { rows } = await db.pool.query(
      `SELECT c.relname, (SELECT count(*)::int FROM pg_index i WHERE i.indrelid = c.oid) AS indexes
       FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid
       WHERE h.inhparent = 'analytics.leaderboard'::regclass ORDER BY 1`,
    );
    expect(rows).toEqual([
      { relname: 'leaderboard_30d', indexes: 7 },
      { relname: 'leaderboard_7d', indexes: 7 },
      { relname: 'leaderboard_all', indexes: 7 },
    ]);
    const leftovers = await db.pool.query(
      `SELECT relname FROM pg_class WHERE relnamespace = 'analytics'::regnamespace AND relname LIKE 'leaderboard%next%'`,
    );
    expect(leftovers.rows).toEqual([]);
  });

  it('a refresh that fails leaves the board it would have replaced', async () => {
    const before = await db.pool.query(`SELECT ${COLUMNS} FROM analytics.leaderboard WHERE window_name = '7d'`);
    // The next board's table taken already: the build fails at its first statement and rolls back whole.
    await db.pool.query('CREATE TABLE analytics.leaderboard_7d_next (x int)');
    try {
      await expect(refreshLeaderboard(db.pool, '7d', NOW + DAY_MS)).rejects.toThrow(/already exists/);
    } finally {
      await db.pool.query('DROP TABLE analytics.leaderboard_7d_next');
    }
    const after = await db.pool.query(`SELECT ${COLUMNS} FROM analytics.leaderboard WHERE window_name = '7d'`);
    expect(after.rows).toEqual(before.rows);
  });
});

describe('live boards numbered ahead', () => {
  const service = () => new AnalyticsService({ pool: db.pool, now: () => NOW });
  const strip = (rows: object[]) => rows.map(({ refreshed_at: _, ...r }: { refreshed_at?: unknown }) => r);

  it('answer every metric as the request-time sum does; another min_trades or hours sums at request time', async () => {
    const asked = (hours: number) =>
      Promise.all(METRICS.map((by) => service().leaderboard({ by, hours, limit: 100, page: 1 })));
    const summed = { 1: await asked(1), 24: await asked(24), 168: await asked(168) };
    expect(summed[24][0]?.rows.length).toBe(3);
    await refreshLiveBoards(db.pool, NOW - 5 * M);
    for (const hours of [1, 24, 168] as const) {
      const ahead = await asked(hours);
      ahead.forEach((page, i) => {
        const want = summed[hours][i];
        expect(page.refreshedAt, `${hours} ${page.by}`).toBe(NOW - 5 * M);
        expect({ ...page, rows: strip(page.rows), refreshedAt: 0 }).toEqual({
          ...want,
          rows: strip(want?.rows ?? []),
          refreshedAt: 0,
        });
      });
    }
    const other = await service().leaderboard({ by: 'volume', hours: 24, limit: 100, page: 1, minTrades: 1 });
    expect(other.refreshedAt).toBe(NOW);
    expect((await service().leaderboard({ by: 'volume', hours: 23, limit: 100, page: 1 })).refreshedAt).toBe(NOW);
  });

  it('are not read once the derivation is more than 2 minutes of events past them, or the hour has turned', async () => {
    await refreshLiveBoards(db.pool, NOW);
    const page = () => service().leaderboard({ by: 'pnl', hours: 24, limit: 100, page: 1 });
    expect((await page()).refreshedAt).toBe(NOW);
    await db.pool.query(`UPDATE analytics.live_boards SET refreshed_at = 1`);
    expect((await page()).refreshedAt).toBe(1);
    await db.pool.query(`UPDATE analytics.live_boards SET derived_until = derived_until - 3 * ${M}`);
    expect((await page()).refreshedAt).toBe(NOW);
    await refreshLiveBoards(db.pool, NOW - HOUR_MS);
    expect((await page()).refreshedAt).toBe(NOW);
    expect((await page()).rows.map((r) => r.address)).toContain(CAROL);
  });
});
