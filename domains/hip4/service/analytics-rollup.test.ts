// Analytics answers exactly what the fills themselves do: a coin's 1h buckets come from the hourly rollup
// (hip4.fill_hours, kept by triggers on hip4.fills), the rest from the fills; the reference is the aggregate over
// the fills (analyticsOfFills), which analytics ran for every query before the rollup. Fills arrive in several
// statements (hours already rolled up gain rows and users), settlement fills included, and windows start and end
// inside hours, so whole hours and the edges read from the fills are both compared.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { type AnalyticsInterval, type AnalyticsQuery, analytics, analyticsOfFills } from './fills.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1, 5, 0, 0);
const COINS = ['#100', '#101', '#110', '#120', '#121'];

let db: TestDatabase;
let pool: pg.Pool;

/** Fills g in [from, to): deterministic spread over 3 days, 5 coins, 7 addresses; every 13th a settlement. */
async function insertFills(from: number, to: number): Promise<void> {
  await pool.query(
    `INSERT INTO hip4.fills (block_number, time, address, coin, outcome_id, side_index, px, sz, side, dir, closed_pnl,
       hash, oid, tid, fee, fee_token, crossed, is_settlement)
     SELECT g, $1::bigint + (g::bigint * 7919 * 997) % (72 * $2::bigint), '0x' || lpad(to_hex(g % 7), 40, '0'), c.coin,
       substr(c.coin, 2)::int / 10, substr(c.coin, 2)::int % 10, (g % 999 + 1) / 1000.0, g % 17 + 0.5,
       CASE WHEN g % 3 = 0 THEN 'A' ELSE 'B' END, CASE WHEN g % 13 = 0 THEN 'Settlement' ELSE 'Buy' END, 0, 'h', g, g,
       (g % 5) / 100.0, 'USDH', g % 2 = 0, g % 13 = 0
     FROM generate_series($3::int, $4::int - 1) g, LATERAL (SELECT ($5::text[])[g % 5 + 1] AS coin) c`,
    [T0, HOUR, from, to, COINS],
  );
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = db.pool;
  // Three statements: the second and third add to hours the first already rolled up.
  await insertFills(0, 2000);
  await insertFills(2000, 2600);
  await insertFills(2600, 3000);
});
afterAll(async () => {
  await db?.drop();
});

describe('analytics over the hourly rollup', () => {
  const windows: [string, number, number][] = [
    ['whole hours', T0, T0 + 72 * HOUR - 1],
    ['edges inside hours', T0 + 17 * 60_000 + 123, T0 + 49 * HOUR + 31 * 60_000],
    ['inside one hour', T0 + 5 * HOUR + 60_000, T0 + 5 * HOUR + 50 * 60_000],
    ['across one hour boundary', T0 + 9 * HOUR - 600_000, T0 + 9 * HOUR + 600_000],
    ['ending on an hour start', T0 + 3 * HOUR + 1, T0 + 20 * HOUR],
  ];
  const selections: [string, Partial<AnalyticsQuery>][] = [
    ['every coin', { byCoin: false }],
    ['one coin', { coins: ['#110'], byCoin: false }],
    ['several coins, split', { coins: ['#100', '#121', '#120'], byCoin: true }],
    ['an outcome, split', { outcomeId: 12, byCoin: true }],
  ];
  for (const interval of ['1h', '4h', '1d'] as AnalyticsInterval[]) {
    for (const [wname, startTime, endTime] of windows) {
      for (const [sname, sel] of selections) {
        it(`${interval}, ${wname}, ${sname}`, async () => {
          const q: AnalyticsQuery = { interval, startTime, endTime, byCoin: false, ...sel };
          const expected = await analyticsOfFills(pool, q, { limit: 2000, offset: 0 });
          expect(expected.length).toBeGreaterThan(0);
          expect(await analytics(pool, q, { limit: 2000, offset: 0 })).toEqual(expected);
        });
      }
    }
  }

  it('holds no settlement fill, and empties with the fills', async () => {
    const { rows } = await pool.query<{ fills: number; held: number }>(
      `SELECT (SELECT sum(fills)::int FROM hip4.fill_hours) AS fills,
         (SELECT count(*)::int FROM hip4.fills WHERE NOT is_settlement) AS held`,
    );
    expect(rows[0]?.fills).toBe(rows[0]?.held);
    await pool.query('TRUNCATE hip4.fills');
    const after = await pool.query('SELECT 1 FROM hip4.fill_hours');
    expect(after.rowCount).toBe(0);
  });
});
