// The simulator's files pass the same parser as a real node's: every stream loads with no malformed line, and
// the tables they feed fill up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ingest } from '../ingest/pipeline.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { tempDataDir } from './node-files.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describe('simulator output through ingest', () => {
  // Three hours of every stream written and loaded: seconds alone, a minute or more beside a busy suite.
  it('loads every stream with no malformed line', { timeout: 180_000 }, async () => {
    const dataDir = await tempDataDir();
    const sim = new Simulator({ dataDir, seed: 11, fillsPerSecond: 10 });
    const end = Date.UTC(2026, 10, 22, 12);
    await sim.writeHistory(end - 3 * 3_600_000, end);
    await sim.stop();
    const ingest = new Ingest({ dataDir, pool: db.pool, log: () => {} });
    await ingest.run();
    for (const s of ingest.stats) {
      expect(s.malformed, s.stream).toBe(0);
      // Book diffs are live-only; the HIP-4 registry is upserted (counted by its tables below).
      if (!['node_raw_book_diffs_by_block', 'hip4_registry_by_block'].includes(s.stream)) {
        expect(s.rows, s.stream).toBeGreaterThan(0);
      }
    }
    const { rows } = await db.pool.query(`SELECT
      (SELECT count(*)::int FROM accounts.fills) AS fills,
      (SELECT count(*)::int FROM markets.trades) AS trades,
      (SELECT count(*)::int FROM accounts.order_statuses WHERE status = 'triggered') AS triggered,
      (SELECT count(*)::int FROM accounts.fills WHERE twap_id IS NOT NULL) AS twap_fills,
      (SELECT count(*)::int FROM accounts.funding_payments) AS funding,
      (SELECT count(DISTINCT time)::int FROM accounts.funding_payments) AS settlements,
      (SELECT count(*)::int FROM accounts.ledger_updates) AS ledger,
      (SELECT count(*)::int FROM markets.reserve_samples) AS reserves,
      (SELECT count(*)::int FROM markets.funding_rates) AS rates,
      (SELECT count(*)::int FROM hip4.questions) AS questions,
      (SELECT count(*)::int FROM evm.token_holders WHERE balance_raw < 0) AS negative_balances`);
    const c = rows[0];
    expect(c.trades * 2).toBe(c.fills);
    expect(c.settlements).toBe(2); // 10:00 and 11:00
    expect(c.reserves).toBe(5 * 179); // five tokens, each minute after the first
    expect(c.negative_balances).toBe(0);
    for (const k of ['triggered', 'twap_fills', 'funding', 'ledger', 'rates', 'questions'])
      expect(c[k], k).toBeGreaterThan(0);
  });
});
