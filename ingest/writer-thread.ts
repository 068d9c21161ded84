// `npm start`'s writer thread (writer-worker.ts): the domains' writers (the analytics derivation) and the simulator's
// backfill lane, off the main thread. This side starts it, relays what they publish (the lane's gaps, the writers'
// topics) to the bus, keeps their last reported progress, and stops it.
import type { EventBus, Topic, Topics } from '../events/bus.ts';
import type { WriterProgress } from '../platform/metrics.ts';
import { closeThread, startThread, type Thread } from '../platform/threads.ts';
import type { StreamStats } from './options.ts';

export interface WriterThreadData {
  databaseUrl: string;
  /** The writing domains and their writer modules' URLs (domains.ts's `DOMAIN_WRITERS`). */
  writers: readonly { domain: string; module: string }[];
  /** The backfill lane's directory (none: no backfill, the writers alone). */
  backfillDir?: string;
  /** Where the history this run writes to the lane ends (none: this run adds nothing to it). */
  backfillUntil?: number;
}

export type ToWriterThread =
  | { type: 'load' }
  /** Everything the backfill lane will hold is written (at `at`): once read since, it is complete. */
  | { type: 'written'; at: number }
  /** The lane following the present, as it stands: what the writers may derive of it (committedUntil). */
  | { type: 'present'; stats: StreamStats[] }
  | { type: 'stop' };

export type FromWriterThread =
  | { type: 'stats'; backfill: StreamStats[]; complete: boolean; writers: Record<string, WriterProgress> }
  | { type: 'publish'; topic: Topic; items: readonly Topics[Topic][] }
  | { type: 'failed'; what: string; message: string }
  | { type: 'stopped' };

export interface WriterThread {
  /** Starts loading the backfill lane. */
  load(): void;
  /** The simulator has written all the backfill lane will hold. */
  written(at: number): void;
  /** The lane following the present, told to the writers (start.ts tells it a few times a second). */
  present(stats: StreamStats[]): void;
  /** The backfill lane's streams as last reported (empty before the first report, or without a lane). */
  backfillStats(): StreamStats[];
  /** Every backfill row is loaded (true at once without a lane). */
  backfilled(): boolean;
  /** Each writer's progress by domain, as last reported. */
  writerProgress(): Record<string, WriterProgress>;
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 15_000;

export function startWriterThread(
  data: WriterThreadData,
  bus: Pick<EventBus, 'publish'>,
  onFailure: (err: Error) => void,
): WriterThread {
  let last: Extract<FromWriterThread, { type: 'stats' }> = {
    type: 'stats',
    backfill: [],
    complete: data.backfillDir === undefined,
    writers: {},
  };
  let stopped = () => {};
  const stopping = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  let closing = false;
  const thread: Thread<ToWriterThread> = startThread<ToWriterThread, FromWriterThread>(
    new URL('./writer-worker.ts', import.meta.url),
    data,
    (m) => {
      switch (m.type) {
        case 'stats':
          last = m;
          return;
        case 'publish':
          Promise.resolve(bus.publish(m.topic, m.items)).catch((err) =>
            console.error(
              `writer thread: ${m.topic} not published (${err instanceof Error ? err.message : String(err)})`,
            ),
          );
          return;
        case 'failed':
          if (!closing) onFailure(new Error(`${m.what}: ${m.message}`));
          return;
        case 'stopped':
          stopped();
          return;
      }
    },
    (err) => {
      if (!closing) onFailure(err);
    },
  );
  return {
    load: () => thread.post({ type: 'load' }),
    written: (at) => thread.post({ type: 'written', at }),
    present: (stats) => thread.post({ type: 'present', stats }),
    backfillStats: () => last.backfill,
    backfilled: () => last.complete,
    writerProgress: () => last.writers,
    async stop() {
      if (closing) return;
      closing = true;
      await closeThread(thread, { type: 'stop' }, stopping, STOP_TIMEOUT_MS);
    },
  };
}
