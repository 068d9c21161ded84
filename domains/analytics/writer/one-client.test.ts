// A history batch's statements share its one transaction, on one client: the next hour's reads and the hour's writes
// overlap the walk, but each statement is sent only once the one before it has finished. pg@8 warns when a client
// is asked a query while it is still executing others (and pg@9 refuses it); its warning comes once a process, so
// this file runs in a process of its own (vitest.config.ts ISOLATED).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAnalyticsHistory } from '../../../test/analytics-history.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { storedEventsEnd } from '../../accounts/port.ts';
import { derivedUntil, deriveUntil, HISTORY_MAX_FILLS, resetDerived } from './job.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadAnalyticsHistory(db);
});
afterAll(() => db?.drop());

describe('the derivation on its batch client', () => {
  it('derives stored history in history batches without asking the client while it executes', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      await resetDerived(db.pool);
      const upTo = (await storedEventsEnd(db.pool)) as number;
      await deriveUntil(db.pool, upTo, HISTORY_MAX_FILLS);
      expect(await derivedUntil(db.pool)).toBe(upTo);
      const { rows } = await db.pool.query<{ n: number }>(
        'SELECT (SELECT count(*) FROM analytics.user_hourly)::int AS n',
      );
      // Batches of several hours: each hour's sums sent while the next hour is read and walked.
      expect(rows[0]?.n).toBeGreaterThan(3);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.includes('already executing a query'))).toEqual([]);
  });
});
