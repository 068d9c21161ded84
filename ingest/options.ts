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
  caughtUp: boolean;
  /** When the stream last found nothing new to read (null: not yet). */
  caughtUpAt: number | null;
  /** Times the stream resumed from its stored checkpoint after storage failed. */
  storageRetries: number;
}
