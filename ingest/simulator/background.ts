// A timeline's history written while the service already serves. The simulator is one state machine walking
// forward in time, and ingest's checkpoints and the analytics cursor only move forward too, so history cannot be
// written newest first: it is written oldest first, a chunk at a time, in the background (writeHistory yields to
// the event loop every 100 ms), while the servers answer and ingest follows the files as they appear. Real time
// starts once the history reaches the moment it was asked for.
//
// The caller holds the writer back between chunks (`beforeChunk`) until ingest has nearly caught up: written at
// full speed, the simulator took most of the one thread it shares with ingest and the servers, so that ingest's
// commits waited past the pool's connect timeout and the servers answered slowly; days written ahead of ingest
// are of no use anyway.
import type { HistoryShare, Simulator } from './index.ts';

/**
 * At most half the thread, in short slices: with 100 ms slices and bare yields, a restart's silent replay of a week
 * kept the servers' answers and ingest's commits waiting seconds (past the pool's 3 s connect timeout).
 */
const BACKGROUND_SHARE: HistoryShare = { sliceMs: 20, restMs: 20 };

const DEFAULT_CHUNK_MS = 15 * 60_000;

export interface HistoryProgress {
  fromMs: number;
  toMs: number;
  /** Time of the last block produced (written, or replayed on a resume); null before the first. */
  writtenUntilMs: number | null;
  done: boolean;
}

export interface BackgroundHistory {
  /** Resolves once the history is written and real time has started (or the simulator was stopped). */
  done: Promise<void>;
  progress(): HistoryProgress;
  /** One line for a progress display. */
  describe(): string;
}

export interface BackgroundHistoryOptions {
  /** End of the history (default: now). */
  toMs?: number;
  /** Simulated time written between two calls of `beforeChunk` (default 15 minutes). */
  chunkMs?: number;
  /**
   * Awaited before each chunk, with the chunk's start: `npm start` waits here for ingest to come within reach; a
   * test holds the writer to look at the service mid-history.
   */
  beforeChunk?: (chunkFromMs: number) => Promise<void> | void;
  /** Start real time after the history (default true). */
  realtime?: boolean;
  /** How the writer shares its thread (default: at most half of it, in short slices). */
  share?: HistoryShare;
}

export function writeHistoryInBackground(
  sim: Simulator,
  fromMs: number,
  opts: BackgroundHistoryOptions = {},
): BackgroundHistory {
  const toMs = opts.toMs ?? Date.now();
  const chunkMs = opts.chunkMs ?? DEFAULT_CHUNK_MS;
  let finished = false;
  const done = (async () => {
    // writeHistory continues from the last block produced; `fromMs` only places the first.
    for (let at = fromMs; at < toMs && !sim.stopped; at = Math.min(toMs, at + chunkMs)) {
      await opts.beforeChunk?.(at);
      await sim.writeHistory(fromMs, Math.min(toMs, at + chunkMs), opts.share ?? BACKGROUND_SHARE);
    }
    finished = true;
    if (opts.realtime !== false) sim.startRealtime();
  })();
  const progress = (): HistoryProgress => ({ fromMs, toMs, writtenUntilMs: sim.currentTimeMs, done: finished });
  return {
    done,
    progress,
    describe: () => describeHistory(progress()),
  };
}

/** One line for a progress display: how much of the history is written. */
export function describeHistory({ fromMs, toMs, writtenUntilMs, done }: HistoryProgress): string {
  const span = Math.max(1, toMs - fromMs);
  const at = Math.min(toMs, writtenUntilMs ?? fromMs);
  const pct = done ? 100 : Math.floor((100 * (at - fromMs)) / span);
  const days = (ms: number) => (ms / 86_400_000).toFixed(1);
  return `history: ${days(at - fromMs)} of ${days(span)} days written (${pct}%), up to ${new Date(at).toISOString().slice(0, 16)}Z`;
}
