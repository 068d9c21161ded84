// A rebuild of the analytics tables (`npm run derive -- rebuild`): emptied, then derived again from every stored
// fill, funding payment and ledger update, with the fills derived so far shown as they go (platform/progress.ts:
// a bar with fills/s and the ETA on a terminal, a line per interval otherwise), then the leaderboards.
import type pg from 'pg';
import { progress } from '../../../platform/progress.ts';
import { perpFillsBefore, storedEventsEnd } from '../../accounts/port.ts';
import { derivedUntil, deriveUntil, HISTORY_MAX_FILLS, resetDerived } from './job.ts';
import { type LeaderboardWindow, refreshLeaderboard, refreshLiveBoards, WINDOWS } from './leaderboard.ts';

export interface RebuildOptions {
  out?: NodeJS.WriteStream;
  /** Between two progress lines when not on a terminal (progress.ts' default otherwise). */
  intervalMs?: number;
  /** Fills per batch (HISTORY_MAX_FILLS otherwise). */
  maxFills?: number;
}

/** Rebuilds the derived tables; returns the checkpoint reached (null: nothing stored). */
export async function rebuildDerived(pool: pg.Pool, opts: RebuildOptions = {}): Promise<number | null> {
  await resetDerived(pool);
  return deriveStored(pool, { ...opts, label: 'rebuilt' });
}

/**
 * Derives every stored event from the checkpoint, showing the fills derived, then ranks the leaderboards; returns the
 * checkpoint reached (null: nothing stored). `label` begins its last line (`rebuilt`, `derive`).
 */
export async function deriveStored(pool: pg.Pool, opts: RebuildOptions & { label: string }): Promise<number | null> {
  const started = Date.now();
  const upTo = await storedEventsEnd(pool);
  const from = await derivedUntil(pool);
  const total =
    upTo === null ? 0 : (await perpFillsBefore(pool, upTo)) - (from === null ? 0 : await perpFillsBefore(pool, from));
  const bar = progress({ label: 'derive', total, unit: 'fills', out: opts.out, intervalMs: opts.intervalMs });
  let fills = 0;
  const cursor =
    upTo === null
      ? null
      : await deriveUntil(pool, upTo, opts.maxFills ?? HISTORY_MAX_FILLS, (batch) => {
          fills += batch.fills;
          const upToText = batch.cursor === null ? '' : `up to ${new Date(batch.cursor).toISOString()}`;
          bar.update(fills, { detail: upToText });
        });
  for (const window of Object.keys(WINDOWS) as LeaderboardWindow[]) await refreshLeaderboard(pool, window, Date.now());
  await refreshLiveBoards(pool, Date.now());
  const reached = cursor === null ? 'nothing stored' : new Date(cursor).toISOString();
  const seconds = (Date.now() - started) / 1000;
  bar.stop(
    `${opts.label} the analytics tables up to ${reached}: ${fills.toLocaleString('en-US')} fills in ${seconds.toFixed(1)} s`,
  );
  return cursor;
}
