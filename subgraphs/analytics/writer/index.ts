// The analytics domain's writer (its definition's `writer`): the derivation as `npm start` runs it on the writer
// thread beside ingest (an ingest-role part: it writes, the subgraphs only read): batches of the job (job.ts) while
// ingest commits, and the leaderboard windows on their cadence. Storage
// going away is ridden out the way ingest does: the uncommitted batch is dropped and the job resumes from the
// checkpoint Postgres holds.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isStorageUnavailable } from '../../../db/pool.ts';
import type { DomainWriter, LaneView, WriterDeps } from '../../domain.ts';
import { type BatchResult, deriveBatch, derivedUntil } from './job.ts';
import { type LeaderboardWindow, refreshLeaderboard, WINDOWS } from './leaderboard.ts';

/** After ingest has stopped (a rebuild, tests): every stored event. */
export async function storedFrontier(pool: pg.Pool): Promise<number | null> {
  const { rows } = await pool.query<{ t: number | null }>(
    `SELECT greatest((SELECT max(time) FROM accounts.fills), (SELECT max(time) FROM accounts.funding_payments),
       (SELECT max(time) FROM accounts.ledger_updates)) + 1 AS t`,
  );
  return rows[0]?.t ?? null;
}

/** Derives every event before `upTo`, batch after batch (each told to `onBatch`); returns the checkpoint reached. */
export async function deriveUntil(
  pool: pg.Pool,
  upTo: number,
  maxFills?: number,
  onBatch?: (batch: BatchResult) => void,
): Promise<number | null> {
  for (;;) {
    const r = await deriveBatch(pool, upTo, maxFills);
    onBatch?.(r);
    if (r.reached) return r.cursor;
  }
}

export interface DerivationStats {
  /** Every event before this is derived (null: nothing yet). */
  cursor: number | null;
  batches: number;
  fills: number;
  /** When each leaderboard window was last refreshed. */
  refreshed: Partial<Record<LeaderboardWindow, number>>;
  storageRetries: number;
  /** Batches that failed other than by storage going away. */
  failures: number;
}

const FAILURE_RETRY_MS = 30_000;

/** A backfill lane loading older events while the present is followed (start.ts's two lanes). */
export interface BackfillProgress {
  /** Every event of the backfill is loaded. */
  complete: boolean;
  /** Every backfill event before this is loaded (null: none yet). */
  loadedUntil: number | null;
}

/** The ingest streams the derivation reads: it derives up to what ingest has committed of each. */
const DERIVED_FROM = ['node_fills_by_block', 'misc_events_by_block'] as const;

export interface DerivationOptions {
  pool: pg.Pool;
  /**
   * The lane following the node's files: the job derives what it has committed of the streams it reads, up to the
   * last stored block of a feed that pauses (ingest/options.ts committedUntil). Unset: every stored event
   * (storedFrontier), for a database no ingest writes to.
   */
  present?: LaneView;
  /**
   * A backfill in progress: the job derives only what it has committed (its cursor moves forward in time, so the
   * present's newer fills must wait for the older ones), and ranks the leaderboards once it is complete.
   */
  backfill?: () => BackfillProgress;
  log?: (line: string) => void;
  pollMs?: number;
  now?: () => number;
  /** How long to wait before trying a failed batch again (default 30 s). */
  failureRetryMs?: number;
}

export class Derivation {
  readonly stats: DerivationStats = {
    cursor: null,
    batches: 0,
    fills: 0,
    refreshed: {},
    storageRetries: 0,
    failures: 0,
  };
  private stopped = false;
  private caughtUp = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly opts: DerivationOptions) {}

  run(): Promise<void> {
    this.running ??= this.loop();
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { pool } = this.opts;
    const now = this.opts.now ?? Date.now;
    let backoffMs = 250;
    this.stats.cursor = await derivedUntil(pool).catch(() => null);
    while (!this.stopped) {
      try {
        const backfill = this.opts.backfill?.() ?? { complete: true, loadedUntil: null };
        const live = this.opts.present ? this.opts.present.loadedUntil(DERIVED_FROM) : await storedFrontier(pool);
        const upTo = backfill.complete
          ? live
          : backfill.loadedUntil === null || live === null
            ? null
            : Math.min(live, backfill.loadedUntil);
        const r = upTo === null ? null : await deriveBatch(pool, upTo);
        if (r) {
          this.stats.cursor = r.cursor;
          this.stats.batches++;
          this.stats.fills += r.fills;
        }
        // The first rankings once the job has caught up (a ranking of half the history would stand for 5 minutes
        // to an hour), then each window on its cadence.
        if ((!r || r.reached) && backfill.complete) this.caughtUp = true;
        for (const [window, cadence] of Object.entries(WINDOWS) as [LeaderboardWindow, number][]) {
          const last = this.stats.refreshed[window];
          if (this.caughtUp && (last === undefined || now() - last >= cadence)) {
            await refreshLeaderboard(pool, window, now());
            this.stats.refreshed[window] = now();
          }
        }
        backoffMs = 250;
        if (!r || r.reached) await this.pause(this.opts.pollMs ?? 1000);
      } catch (err) {
        if (!isStorageUnavailable(err)) {
          // A batch Postgres refuses (a bug): derived data stops, the service does not; the lag in dataCoverage
          // grows and the log says why, and the batch is tried again from the checkpoint.
          this.stats.failures++;
          const retryMs = this.opts.failureRetryMs ?? FAILURE_RETRY_MS;
          this.opts.log?.(
            `analytics derivation failed (${err instanceof Error ? err.message : String(err)}); retrying in ${retryMs / 1000} s`,
          );
          await this.pause(retryMs);
          continue;
        }
        this.stats.storageRetries++;
        this.opts.log?.(`analytics derivation: storage unavailable; resuming from the stored checkpoint`);
        await this.pause(backoffMs);
        backoffMs = Math.min(5000, backoffMs * 2);
      }
    }
  }

  private async pause(ms: number): Promise<void> {
    const ac = new AbortController();
    this.wake = () => ac.abort();
    await sleep(ms, undefined, { signal: ac.signal }).catch(() => undefined);
    this.wake = undefined;
  }
}

/** The domain's writer: the derivation over the writer thread's pool, following the backfill as it loads. */
export function startWriter(deps: WriterDeps): DomainWriter {
  const derivation = new Derivation({
    pool: deps.pool,
    log: deps.log,
    ...(deps.present ? { present: deps.present } : {}),
    backfill: () => ({ complete: deps.backfill.complete(), loadedUntil: deps.backfill.loadedUntil(DERIVED_FROM) }),
  });
  return {
    run: () => derivation.run(),
    stop: () => derivation.stop(),
    progress: () => ({ cursor: derivation.stats.cursor, items: derivation.stats.fills }),
  };
}
