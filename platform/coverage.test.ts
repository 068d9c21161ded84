// dataCoverage's `start` is where complete coverage begins (spec §4.1, §8): the first row held, or the dataset's
// documented start when rows from before it are held (they are kept and served, but the dataset is complete only
// from there). Builder attribution and `crossed` are datasets of their own over the stored fills.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../domains.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { DOCUMENTED_COVERAGE_STARTS, dataCoverage, FUNDING_COVERAGE_START, LEDGER_COVERAGE_START } from './coverage.ts';

let db: TestDatabase;
/** Fills held from 2025-09-01 (before builder attribution's and `crossed`'s starts) to 2026-11-01. */
const FIRST_FILL = Date.UTC(2025, 8, 1);
const LAST_FILL = Date.UTC(2026, 10, 1);
/** Reserve samples held only after their documented start. */
const FIRST_SAMPLE = Date.UTC(2026, 9, 5, 12);

beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
       hash, oid, crossed, fee, tid, fee_token)
     SELECT i, '0x' || repeat('ab', 20), 'BTC', 100, 1, 'B', t, 0, 'Open Long', 0, '0x' || repeat('0', 64), i, true,
       0.1, i, 'USDC'
     FROM unnest($1::bigint[]) WITH ORDINALITY AS u(t, i)`,
    [[FIRST_FILL, LAST_FILL]],
  );
  await db.pool.query(
    `INSERT INTO markets.reserve_samples VALUES (0, $1, 'USDC', 0.05, 0.04, 100, 0.5, 1, 0, 200, 100)`,
    [FIRST_SAMPLE],
  );
}, 60_000);
afterAll(async () => {
  await db?.drop();
});

describe('dataCoverage start', () => {
  it("lists spec §8's datasets, builder attribution and crossed among them, each with its documented start", () => {
    // Worked from spec §8's table by hand.
    expect(DOCUMENTED_COVERAGE_STARTS).toEqual({
      borrowLendReserves: Date.parse('2026-09-23T00:00:00Z'),
      builderAttribution: Date.parse('2025-10-10T00:00:00Z'),
      roundTrips: Date.parse('2025-09-10T00:00:00Z'),
      accountSnapshots: Date.parse('2026-09-05T00:00:00Z'),
      orders: Date.parse('2026-06-27T00:00:00Z'),
      crossed: Date.parse('2026-09-24T15:53:00Z'),
      candles: Date.parse('2026-10-01T00:00:00Z'),
      marketHistory: Date.parse('2026-09-23T00:00:00Z'),
    });
    expect(FUNDING_COVERAGE_START).toBe(Date.parse('2025-09-27T10:00:00Z'));
    expect(LEDGER_COVERAGE_START).toBe(Date.parse('2025-09-27T09:29:00Z'));
    for (const [name, start] of Object.entries(DOCUMENTED_COVERAGE_STARTS)) {
      expect({ name, completeFrom: DATASETS[name]?.completeFrom }).toEqual({ name, completeFrom: start });
    }
  });

  it('starts at the documented start when older rows are held, at the first row otherwise', async () => {
    const { datasets } = await dataCoverage(db.pool, LAST_FILL + 10_000, DATASETS);
    expect(datasets.fills).toEqual({ start: FIRST_FILL, earliest: FIRST_FILL, latest: LAST_FILL, delaySeconds: 10 });
    expect(datasets.builderAttribution).toEqual({
      start: Date.parse('2025-10-10T00:00:00Z'),
      earliest: FIRST_FILL,
      latest: LAST_FILL,
      delaySeconds: 10,
    });
    expect(datasets.crossed?.start).toBe(Date.parse('2026-09-24T15:53:00Z'));
    expect(datasets.borrowLendReserves?.start).toBe(FIRST_SAMPLE);
    expect(datasets.orders).toEqual({ start: null, earliest: null, latest: null, delaySeconds: null });
  });
});
