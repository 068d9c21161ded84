// A backfill lane's run as dataCoverage reads it (platform.backfills, platform/coverage.ts): started with where its
// history ends, marked complete once loaded. npm start's simulated history and `npm run import`'s archive use it.
import type pg from 'pg';
import type { ImportedBackfill } from '../kit/domain.ts';

/** The lane is loading: complete coverage starts at `untilMs` (the later of what it held and this) until it is done. */
export async function startBackfill(pool: pg.Pool, lane: string, untilMs: number): Promise<void> {
  await pool.query(
    `INSERT INTO platform.backfills (lane, until_ms) VALUES ($1, $2)
     ON CONFLICT (lane) DO UPDATE SET until_ms = greatest(platform.backfills.until_ms, EXCLUDED.until_ms),
       complete = false, updated_at = now()`,
    [lane, untilMs],
  );
}

/**
 * The lane is loaded. `loadedFromMs`: the oldest event time this run loaded, for a lane no writer followed as it
 * loaded (an archive import), so that the writers include what it added (null or unset: nothing to catch up on).
 */
export async function completeBackfill(pool: pg.Pool, lane: string, loadedFromMs: number | null = null): Promise<void> {
  await pool.query(
    'UPDATE platform.backfills SET complete = true, loaded_from_ms = $2, updated_at = now() WHERE lane = $1',
    [lane, loadedFromMs],
  );
}

/** The complete backfills whose events no writer followed as they loaded (WriterDeps.imports). */
export async function importedBackfills(pool: pg.Pool): Promise<ImportedBackfill[]> {
  const { rows } = await pool.query<ImportedBackfill>(
    `SELECT lane, loaded_from_ms AS "loadedFromMs", (extract(epoch FROM updated_at) * 1000)::bigint AS "completedAt"
     FROM platform.backfills WHERE complete AND loaded_from_ms IS NOT NULL ORDER BY updated_at`,
  );
  return rows.map((r) => ({ ...r, loadedFromMs: Number(r.loadedFromMs), completedAt: Number(r.completedAt) }));
}

/** A lane whose checkpoints have not moved for this long is not loading (stopped, or crashed and not restarted). */
export const BACKFILL_IDLE_MS = 60_000;

/**
 * Whether a backfill lane is loading: not complete, and started or committed within BACKFILL_IDLE_MS. Any process's
 * lane counts (the rows say which ran, whoever ran them).
 */
export async function backfillLoading(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ loading: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM platform.backfills b
       WHERE NOT b.complete AND (b.updated_at > now() - make_interval(secs => $1)
         OR EXISTS (SELECT 1 FROM platform.ingest_checkpoints c
                    WHERE c.stream LIKE b.lane || '/%' AND c.updated_at > now() - make_interval(secs => $1)))
     ) AS loading`,
    [BACKFILL_IDLE_MS / 1000],
  );
  return rows[0]?.loading ?? false;
}
