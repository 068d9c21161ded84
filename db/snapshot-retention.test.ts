// Account snapshots' retention class (db/partitions.ts ACCOUNT_SNAPSHOTS): a day kept hourly for
// ACCOUNT_SNAPSHOTS_HOURLY_DAYS closed days, then per address the day's last snapshot and the one at midnight; the
// daily reads over an old window answer the same from the kept rows, the hourly one answers with them. The derivation
// makes the days it writes before its transaction.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsService } from '../domains/analytics/service/index.ts';
import { deriveUntil } from '../domains/analytics/writer/job.ts';
import { DEFAULT_RETENTION } from '../platform/config.ts';
import type { Address } from '../platform/fields.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { DAY_MS, dayOf, keepPartitions, makePartitions, partitionName } from './partitions.ts';

const SNAPSHOTS = 'analytics.account_snapshots';
const ALICE = '0x00000000000000000000000000000000000a11ce' as Address;
const BOB = '0x0000000000000000000000000000000000000b0b' as Address;
const CAROL = '0x00000000000000000000000000000000000ca201';
const H = 3_600_000;
const retention = { ...DEFAULT_RETENTION };

describe('account snapshots: hourly for a week, then daily', () => {
  let db: TestDatabase;
  let D: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    // The first day of the month after next: after the history before partitioning, in a month of its own.
    const { rows } = await db.pool.query<{ t: string }>('SELECT (extract(epoch FROM now()) * 1000)::bigint AS t');
    const today = new Date(dayOf(Number(rows[0]?.t)));
    D = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 1);
  });
  afterAll(() => db?.drop());

  const snapshot = (address: string, time: number, value: number) =>
    db.pool.query(
      `INSERT INTO ${SNAPSHOTS} (address, time, account_value, cash, position_value, unrealized_pnl, n_positions)
       VALUES ($1, $2, $3, $3, 0, 0, 0)`,
      [address, time, value],
    );
  const rows = async () =>
    (
      await db.pool.query<{ address: string; at: number; value: string; part: string }>(
        `SELECT address, ((time - $1) / ${H})::int AS at, account_value::text AS value,
           tableoid::regclass::text AS part FROM ${SNAPSHOTS} WHERE address <> $2 ORDER BY address, time`,
        [D, CAROL],
      )
    ).rows;

  it('derived snapshots land in their day, made by the derivation before its transaction', async () => {
    const t = D + 5 * DAY_MS + 30 * 60_000;
    await db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl, hash,
         oid, crossed, fee, tid, fee_token) VALUES (1, $1, 'BTC', 100, 1, 'B', $2, 0, 'Open Long', 0, '0x', 1, true, 0,
         1, 'USDC')`,
      [CAROL, t],
    );
    await deriveUntil(db.pool, t + 2 * H);
    const { rows: made } = await db.pool.query(
      `SELECT time - $2 AS after, tableoid::regclass::text AS part FROM ${SNAPSHOTS} WHERE address = $1`,
      [CAROL, D + 5 * DAY_MS],
    );
    // The snapshot at the close of the fill's hour, in that day's partition (not the DEFAULT one).
    expect(made).toEqual([{ after: H, part: partitionName(SNAPSHOTS, D + 5 * DAY_MS) }]);
  });

  it('thins a day closed a week ago to each address’s last snapshot and the one at midnight; daily reads unchanged', async () => {
    await makePartitions(db.pool, new Map([[SNAPSHOTS, { min: D, max: D + 2 * DAY_MS }]]));
    // ALICE, by hours from D: day D at 1, 2 and 23; day D+1 at 24 (its midnight: D's close), 29 and 36; day D+2 at
    // 48 (midnight) and 51. BOB once, on day D at 10.
    const alice: [number, number][] = [
      [1, 100],
      [2, 90],
      [23, 120],
      [24, 130],
      [29, 80],
      [36, 110],
      [48, 140],
      [51, 150],
    ];
    for (const [at, value] of alice) await snapshot(ALICE, D + at * H, value);
    await snapshot(BOB, D + 10 * H, 50);
    for (const day of [D, D + DAY_MS, D + 2 * DAY_MS]) {
      await db.pool.query(`INSERT INTO analytics.user_daily (address, day, fills) VALUES ($1, $2::date, 1)`, [
        ALICE,
        new Date(day).toISOString().slice(0, 10),
      ]);
    }
    // Nine days on: D and D+1 closed more than 7 days ago (thinned), D+2 not yet (its day closed 7 days ago).
    const now = D + 9 * DAY_MS + 12 * H;
    const service = new AnalyticsService({ pool: db.pool, now: () => now });
    const read = async () => ({
      daily: await service.equityHistory({ user: ALICE, interval: '1d', window: '30d' }),
      hourly: await service.equityHistory({ user: ALICE, interval: '1h', window: '30d' }),
      calendar: await service.pnlCalendar({ user: ALICE, window: '30d' }),
    });
    const before = await read();
    // Hand-worked: each day's last snapshot (23 -> 120, 36 -> 110, 51 -> 150); the calendar's close of a day is the
    // last snapshot at or before the next midnight (24 -> 130, 48 -> 140, 51 -> 150).
    const points = (h: typeof before.daily) => h.points.map((p) => [(Number(p.time) - D) / H, p.account_value]);
    expect(points(before.daily)).toEqual([
      [23, '120'],
      [36, '110'],
      [51, '150'],
    ]);
    expect(before.calendar.days.map((d) => [d.date.slice(8), d.equity_close])).toEqual([
      [new Date(D).toISOString().slice(8, 10), '130'],
      [new Date(D + DAY_MS).toISOString().slice(8, 10), '140'],
      [new Date(D + 2 * DAY_MS).toISOString().slice(8, 10), '150'],
    ]);
    expect(points(before.hourly)).toEqual(alice.map(([at, v]) => [at, String(v)]));

    const { thinned } = await keepPartitions(db.pool, { now, retention });
    expect(thinned.filter((t) => t.partition.startsWith(`${SNAPSHOTS}_p`))).toEqual([
      { partition: partitionName(SNAPSHOTS, D), rowsBefore: 4, rowsKept: 2 },
      { partition: partitionName(SNAPSHOTS, D + DAY_MS), rowsBefore: 3, rowsKept: 2 },
    ]);
    const kept = [
      `${BOB} 10 50 ${partitionName(SNAPSHOTS, D)}`,
      `${ALICE} 23 120 ${partitionName(SNAPSHOTS, D)}`,
      `${ALICE} 24 130 ${partitionName(SNAPSHOTS, D + DAY_MS)}`,
      `${ALICE} 36 110 ${partitionName(SNAPSHOTS, D + DAY_MS)}`,
      `${ALICE} 48 140 ${partitionName(SNAPSHOTS, D + 2 * DAY_MS)}`,
      `${ALICE} 51 150 ${partitionName(SNAPSHOTS, D + 2 * DAY_MS)}`,
    ];
    expect((await rows()).map((r) => `${r.address} ${r.at} ${r.value} ${r.part}`)).toEqual(kept);

    const after = await read();
    expect(after.daily).toEqual(before.daily);
    expect(after.calendar).toEqual(before.calendar);
    // The hourly read over the old days answers with what they kept.
    expect(points(after.hourly)).toEqual([
      [23, '120'],
      [24, '130'],
      [36, '110'],
      [48, '140'],
      [51, '150'],
    ]);
    expect(after.hourly.summary).toMatchObject({ points: 5, start_value: '120', end_value: '150', change: '30' });

    // Once the month is closed a week ago, its thinned days become one partition; the reads stay the same.
    const monthEnd = Date.UTC(new Date(D).getUTCFullYear(), new Date(D).getUTCMonth() + 1, 1);
    const later = await keepPartitions(db.pool, { now: monthEnd + 8 * DAY_MS, retention });
    const month = `${SNAPSHOTS}_m${new Date(D).toISOString().slice(0, 7).replace('-', '')}`;
    expect(later.merged).toContain(month);
    expect(new Set((await rows()).map((r) => r.part))).toEqual(new Set([month]));
    expect(await read()).toEqual(after);
  });
});
