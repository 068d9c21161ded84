// Whether a backfill lane is loading, as the writers ask it (platform.backfills and the lane's checkpoints): any
// process's lane, not complete, and moving.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { BACKFILL_IDLE_MS, backfillLoading, completeBackfill, startBackfill } from './backfills.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});
beforeEach(async () => {
  await db.pool.query('TRUNCATE platform.backfills, platform.ingest_checkpoints');
});

const idle = `make_interval(secs => ${BACKFILL_IDLE_MS / 1000 + 5})`;

async function checkpoint(stream: string, ago: 'now' | 'idle'): Promise<void> {
  await db.pool.query(
    `INSERT INTO platform.ingest_checkpoints (stream, file, byte_offset, line_no, updated_at)
     VALUES ($1, 'hourly/20261122/7', 100, 1, now() - ${ago === 'now' ? "'0 s'::interval" : idle})`,
    [stream],
  );
}

describe('backfillLoading', () => {
  it('is false with no backfill, true from its start, false once complete', async () => {
    expect(await backfillLoading(db.pool)).toBe(false);
    await startBackfill(db.pool, 'archive', 1_000);
    expect(await backfillLoading(db.pool)).toBe(true);
    await completeBackfill(db.pool, 'archive');
    expect(await backfillLoading(db.pool)).toBe(false);
  });

  it('follows the lane: loading while its checkpoints move, not once they have stood still for a minute', async () => {
    await startBackfill(db.pool, 'archive', 1_000);
    await db.pool.query(`UPDATE platform.backfills SET updated_at = now() - ${idle}`);
    // Started long ago and never committed since: a lane that stopped (or crashed) and was not run again.
    expect(await backfillLoading(db.pool)).toBe(false);
    await checkpoint('archive/node_fills_by_block', 'idle');
    expect(await backfillLoading(db.pool)).toBe(false);
    await checkpoint('archive/misc_events_by_block', 'now');
    expect(await backfillLoading(db.pool)).toBe(true);
    // Another lane's checkpoints (the present's, a lane whose name only starts alike) are not this lane's.
    await db.pool.query("DELETE FROM platform.ingest_checkpoints WHERE stream LIKE 'archive/%'");
    await checkpoint('misc_events_by_block', 'now');
    await checkpoint('archive2/misc_events_by_block', 'now');
    expect(await backfillLoading(db.pool)).toBe(false);
  });
});
