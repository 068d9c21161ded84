// A backfill lane's run as dataCoverage reads it (platform.backfills, platform/coverage.ts): started with where its
// history ends, marked complete once loaded. npm start's simulated history and `npm run import`'s archive use it.
import type pg from 'pg';

/** The lane is loading: complete coverage starts at `untilMs` (the later of what it held and this) until it is done. */
export async function startBackfill(pool: pg.Pool, lane: string, untilMs: number): Promise<void> {
  await pool.query(
    `INSERT INTO platform.backfills (lane, until_ms) VALUES ($1, $2)
     ON CONFLICT (lane) DO UPDATE SET until_ms = greatest(platform.backfills.until_ms, EXCLUDED.until_ms),
       complete = false, updated_at = now()`,
    [lane, untilMs],
  );
}

export async function completeBackfill(pool: pg.Pool, lane: string): Promise<void> {
  await pool.query('UPDATE platform.backfills SET complete = true, updated_at = now() WHERE lane = $1', [lane]);
}
