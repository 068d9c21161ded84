// borrowLendReserveHistory, each rule of spec §4.2, on hand-written samples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { allReserveStates, reserveHistory } from './reserves.ts';

const T = Date.UTC(2026, 10, 22, 0, 0, 0);
const MIN = 60_000;
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  // Two tokens, one sample a minute for 20 minutes; utilization encodes the minute so rows are recognisable.
  for (const token of [0, 150]) {
    for (let m = 0; m < 20; m++) {
      await db.pool.query(
        `INSERT INTO markets.reserve_samples VALUES ($1, $2, $3, '0.05', '0.04', '1000.0', $4, '1.0', '0.0', '2000.0', '1000.0')`,
        [token, T + m * MIN, token === 0 ? 'USDC' : 'HYPE', `0.${String(m).padStart(2, '0')}`],
      );
    }
  }
});
afterAll(async () => {
  await db.drop();
});

const minutes = (h: { time: number }[]) => h.map((s) => (s.time - T) / MIN);

describe('borrowLendReserveHistory', () => {
  it('returns raw one-minute samples oldest first, the window inclusive at both ends', async () => {
    const r = await reserveHistory(db.pool, { token: 0, startTime: T + 5 * MIN, endTime: T + 8 * MIN, limit: 1000 });
    expect(r.token).toBe(0);
    expect(r.interval).toBeNull();
    expect(minutes(r.history)).toEqual([5, 6, 7, 8]);
    expect(r.history[0]).toEqual({
      time: T + 5 * MIN,
      token: 0,
      tokenName: 'USDC',
      borrowYearlyRate: '0.05',
      supplyYearlyRate: '0.04',
      balance: '1000.0',
      utilization: '0.05',
      oraclePx: '1.0',
      ltv: '0.0',
      totalSupplied: '2000.0',
      totalBorrowed: '1000.0',
    });
  });

  it('keeps the most recent samples when limited, still oldest first', async () => {
    const r = await reserveHistory(db.pool, { token: 150, startTime: T, endTime: T + 19 * MIN, limit: 3 });
    expect(minutes(r.history)).toEqual([17, 18, 19]);
  });

  it('gives one row per bucket carrying its last sample, at the bucket start', async () => {
    const r = await reserveHistory(db.pool, {
      token: 0,
      startTime: T,
      endTime: T + 19 * MIN,
      interval: '5m',
      limit: 1000,
    });
    expect(r.interval).toBe('5m');
    expect(minutes(r.history)).toEqual([0, 5, 10, 15]);
    expect(r.history.map((s) => s.utilization)).toEqual(['0.04', '0.09', '0.14', '0.19']);
  });

  it('covers every reserve when token is omitted', async () => {
    const r = await reserveHistory(db.pool, { startTime: T + 19 * MIN, endTime: T + 19 * MIN, limit: 10 });
    expect(r.token).toBeNull();
    expect(r.history.map((s) => s.token)).toEqual([0, 150]);
  });

  it('lists the latest state of every token', async () => {
    const states = await allReserveStates(db.pool);
    expect(states.map(([token, s]) => [token, s.utilization])).toEqual([
      [0, '0.19'],
      [150, '0.19'],
    ]);
  });
});
