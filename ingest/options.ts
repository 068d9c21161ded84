// What an ingest run is given, and what it tells of each stream.
import type pg from 'pg';
import type { EventBus } from '../events/bus.ts';
import type { StreamName } from '../wire/node-lines.ts';

export interface IngestOptions {
  dataDir: string;
  pool: pg.Pool;
  /** Where committed events go (a lane gives it only its gaps). */
  bus?: Pick<EventBus, 'publish' | 'durable' | 'keepsMs'>;
  /** Keep tailing files after catching up. */
  follow?: boolean;
  streams?: readonly StreamName[];
  /** Rows per transaction. */
  batchRows?: number;
  pollMs?: number;
  log?: (line: string) => void;
  /**
   * A second lane over another directory (a backfill: the simulator's older history, an archive): its checkpoints
   * are its own (`<lane>/<stream>`), so it loads beside the lane following the node without either waiting for the
   * other. A lane's events are history: never published as live events; what it loaded is told to the bus's
   * subscribers as a gap (BusGap) each time it has caught up, so they re-read what they keep from storage. Book
   * diffs (read live only) are not loaded by a lane.
   */
  lane?: string;
  /**
   * Blocks older than this time (asked at each batch) are history, not live events: stored, told to the bus's
   * subscribers as a gap, never published (`npm start`: the last hour the simulator writes before real time).
   */
  historyBefore?: () => number;
  /** While true for a stream, its reader waits (an `ordered` stream whose backfill is still loading). */
  hold?: (stream: StreamName) => boolean;
}

export interface StreamStats {
  stream: StreamName;
  file: string | null;
  rows: number;
  lines: number;
  malformed: number;
  rewound: number;
  filesDone: number;
  lastBlock: number | null;
  lastBlockTime: number | null;
  /** The last block committed: its time, and when its line was read (null: none yet). */
  committed: BlockRead | null;
  /**
   * When the stream last found nothing new to read with everything it had read committed and no block open: it
   * held every block the node had written by then (null: not so at its last look).
   */
  quietAt: number | null;
  caughtUp: boolean;
  /** When the stream last found nothing new to read (null: not yet). */
  caughtUpAt: number | null;
  /** Times the stream resumed from its stored checkpoint after storage failed. */
  storageRetries: number;
}

/** A whole block read from a stream: its time, and when its (last) line was read. */
export interface BlockRead {
  time: number;
  readAt: number;
}

/**
 * How long after a block's line was read a quiet stream must have looked to vouch for that block: a node writes
 * one block's lines to its streams within moments of each other, so a stream that found nothing new this long after
 * another stream's block was read has nothing of that block, nor of any before it, still to come.
 */
export const QUIET_MARGIN_MS = 500;

/**
 * Every event of these streams before this time is committed (null: none committed yet). Each stream vouches for
 * the blocks up to its last committed one; a stream with nothing more to say (quiet since the newest of them was
 * read: a quiet dex, a stream without events, a feed that paused) does not hold the others back, so the last block
 * of a paused feed counts at once, without a settle delay. A block is whole once stored (by-block; a streaming
 * stream's open block is not yet, and holds it).
 */
export function committedUntil(
  stats: readonly StreamStats[],
  streams: readonly StreamName[],
  marginMs = QUIET_MARGIN_MS,
): number | null {
  const read = stats.filter((s) => streams.includes(s.stream));
  let newest: BlockRead | null = null;
  for (const s of read) if (s.committed && (!newest || s.committed.time > newest.time)) newest = s.committed;
  if (!newest) return null;
  let until = newest.time + 1;
  for (const s of read) {
    if (s.quietAt !== null && s.quietAt >= newest.readAt + marginMs) continue;
    if (!s.committed) return null;
    until = Math.min(until, s.committed.time + 1);
  }
  return until;
}
