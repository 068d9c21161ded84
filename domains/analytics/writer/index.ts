// The analytics domain's writer (its definition's `writer`): the derivation as `npm start` runs it on the writer
// thread beside ingest (an ingest-role part: it writes, the subgraphs only read): batches of the job (job.ts) while
// ingest commits, the leaderboard windows and the live boards on their cadences. Storage
// going away is ridden out the way ingest does: the uncommitted batch is dropped and the job resumes from the
// checkpoint Postgres holds.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isStorageUnavailable } from '../../../db/unavailable.ts';
import type { DomainWriter, ImportedBackfill, LaneView, WriterDeps } from '../../../kit/domain.ts';
import { storedEventsEnd } from '../../accounts/port.ts';
import { LIVE_BOARDS } from '../service/ranking.ts';
import { HOUR_MS } from '../service/window.ts';
import { deriveBatch, derivedUntil, importsToInclude, noteImports, resetDerived } from './job.ts';
import { type LeaderboardWindow, refreshLeaderboard, refreshLiveBoards, WINDOWS } from './leaderboard.ts';
import { deriveStored } from './rebuild.ts';

/**
 * Includes the archive imports completed since the derivation last looked: when one loaded events before its
 * checkpoint, the derived tables are emptied and the derivation starts again from the first stored event (exact: a
 * trip, a snapshot or a sum may hold an imported fill anywhere in time), its leaderboards standing until it ranks anew.
 * Imports wholly at or after the checkpoint are reached in order. Returns whether it started again.
 */
export async function includeImports(
  pool: pg.Pool,
  imports: readonly ImportedBackfill[],
  log: (line: string) => void = () => {},
): Promise<boolean> {
  const fresh = await importsToInclude(pool, imports);
  if (!fresh.length) return false;
  const cursor = await derivedUntil(pool);
  const from = Math.min(...fresh.map((i) => i.loadedFromMs));
  if (cursor === null || from >= cursor) {
    await noteImports(pool, fresh);
    return false;
  }
  log(
    `analytics: ${fresh.map((i) => i.lane).join(', ')} loaded events from ${new Date(from).toISOString()}, before ` +
      `the derived ${new Date(cursor).toISOString()}: deriving again from the first stored event (progress: ` +
      'dataCoverage analyticsDerivation; the leaderboards stand until it has caught up)',
  );
  await resetDerived(pool, { keepRankings: true, imports: fresh });
  return true;
}

export interface DerivationStats {
  /** Every event before this is derived (null: nothing yet). */
  cursor: number | null;
  batches: number;
  fills: number;
  /** When each leaderboard window (and the live boards) was last refreshed. */
  refreshed: Partial<Record<LeaderboardWindow | 'live', number>>;
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
   * (storedEventsEnd), for a database no ingest writes to.
   */
  present?: LaneView;
  /** The archive imports to include (WriterDeps.imports; unset: none). */
  imports?: () => Promise<readonly ImportedBackfill[]>;
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
  /** When each live board (by hours) was last numbered. */
  private readonly liveRefreshed = new Map<number, number>();
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
        if (this.opts.imports && (await includeImports(pool, await this.opts.imports(), this.opts.log))) {
          this.caughtUp = false;
          this.stats.cursor = null;
        }
        const backfill = this.opts.backfill?.() ?? { complete: true, loadedUntil: null };
        const live = this.opts.present ? this.opts.present.loadedUntil(DERIVED_FROM) : await storedEventsEnd(pool);
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
        // The live boards on their cadence, and at once when the hour turns (their hours move with it).
        const at = now();
        const due = [...LIVE_BOARDS].filter(([hours, cadence]) => {
          const last = this.liveRefreshed.get(hours);
          return last === undefined || at - last >= cadence || Math.floor(at / HOUR_MS) !== Math.floor(last / HOUR_MS);
        });
        if (this.caughtUp && due.length) {
          await refreshLiveBoards(
            pool,
            at,
            due.map(([hours]) => hours),
          );
          for (const [hours] of due) this.liveRefreshed.set(hours, at);
          this.stats.refreshed.live = at;
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
    ...(deps.imports ? { imports: deps.imports } : {}),
    backfill: () => ({ complete: deps.backfill.complete(), loadedUntil: deps.backfill.loadedUntil(DERIVED_FROM) }),
  });
  return {
    run: () => derivation.run(),
    stop: () => derivation.stop(),
    progress: () => ({ cursor: derivation.stats.cursor, items: derivation.stats.fills }),
  };
}

/** `npm run import` with no service beside it: the imports included, then every stored event derived and ranked. */
export async function catchUp(deps: WriterDeps, out?: NodeJS.WriteStream): Promise<void> {
  await includeImports(deps.pool, (await deps.imports?.()) ?? [], deps.log);
  await deriveStored(deps.pool, { ...(out ? { out } : {}), label: 'derive' });
}
