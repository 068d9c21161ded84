// The writer thread (writer-thread.ts starts it): the analytics derivation and, under the simulator, the backfill
// lane. Their parsing and arithmetic run here, so that the main thread (servers, key checks, the lane following the
// present) answers at once however much history is loading. It writes through its own pool; what the main thread
// needs to know (the lane's progress, its gaps for the bus's subscribers) goes there as messages.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { writerPool } from '../db/pool.ts';
import type { BusGap } from '../events/bus.ts';
import { completeBackfill, startBackfill } from './backfills.ts';
import { Derivation } from './derive/index.ts';
import { Ingest } from './pipeline.ts';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './writer-thread.ts';

const data = workerData as WriterThreadData;
const port = parentPort!;
const post = (message: FromWriterThread) => port.postMessage(message);

/** The streams the derivation reads: a backfill is derived up to the earliest of them. */
const DERIVED_FROM = ['node_fills_by_block', 'misc_events_by_block'] as const;
const STATS_MS = 250;
/** The lane's name: its checkpoints are `backfill/<stream>`, its row in platform.backfills `backfill`. */
const LANE = 'backfill';

const pool = writerPool(data.databaseUrl);
const log = (line: string) => console.error(line);
/** When the simulator had written all of the backfill (undefined: not yet). */
let written: number | undefined;
let stopping = false;
/** The backfill is complete and dataCoverage says so: what the main thread is told (no lane: at once). */
let recorded = !data.backfillDir;

const backfill = data.backfillDir
  ? new Ingest({
      dataDir: data.backfillDir,
      pool,
      follow: true,
      lane: LANE,
      log,
      bus: { publish: (_topic, items) => post({ type: 'gaps', gaps: items as readonly BusGap[] }) },
    })
  : undefined;
const complete = () => !backfill || (written !== undefined && backfill.caughtUpSince(written));
const derivation = new Derivation({
  pool,
  log,
  backfill: () => ({ complete: complete(), loadedUntil: backfill?.loadedUntil(DERIVED_FROM) ?? null }),
});
const fail = (what: string) => (err: unknown) =>
  post({ type: 'failed', what, message: String((err as Error)?.message ?? err) });
const deriving = derivation.run().catch(fail('analytics derivation'));
let loading: Promise<void> | undefined;

const report = setInterval(() => {
  post({ type: 'stats', backfill: backfill?.stats ?? [], complete: recorded, derivation: derivation.stats });
}, STATS_MS);

port.on('message', (m: ToWriterThread) => {
  switch (m.type) {
    case 'load':
      // The present is live: the simulator's thread no longer needs the other core to itself.
      loading ??= backfill ? load(backfill).catch(fail('backfill')) : undefined;
      return;
    case 'written':
      written ??= m.at;
      return;
    case 'stop':
      void stop();
      return;
  }
});

/** The lane's run, told in platform.backfills (dataCoverage's) from its start to its completion. */
async function load(lane: Ingest): Promise<void> {
  if (data.backfillUntil !== undefined) {
    await startBackfill(pool, LANE, data.backfillUntil);
  }
  const running = lane.run();
  while (!stopping && !complete()) await sleep(200);
  if (stopping) return await running;
  // Nothing more comes to it: it stops polling its directories.
  await lane.stop();
  await running;
  await completeBackfill(pool, LANE);
  recorded = true;
}

async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(report);
  await Promise.all([backfill?.stop(), derivation.stop()]);
  await Promise.all([loading, deriving]);
  await pool.end();
  post({ type: 'stopped' });
}
