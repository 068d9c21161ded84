// The writer thread (writer-thread.ts starts it): the domains' writers (the analytics derivation) and, under the
// simulator, the backfill lane. Their parsing and arithmetic run here, so that the main thread (servers, key checks, the lane following the
// present) answers at once however much history is loading. It writes through its own pool; what the main thread
// needs to know (the lane's progress, its gaps for the bus's subscribers) goes there as messages.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { writerPool } from '../db/pool.ts';
import type { DomainWriter, WriterModule } from '../kit/domain.ts';
import { backfillLoading, completeBackfill, importedBackfills, startBackfill } from './backfills.ts';
import { committedUntil, type StreamStats } from './options.ts';
import { Ingest } from './pipeline.ts';
import type { FromWriterThread, ToWriterThread, WriterThreadData } from './writer-thread.ts';

const data = workerData as WriterThreadData;
const port = parentPort!;
const post = (message: FromWriterThread) => port.postMessage(message);

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
      bus: { publish: (topic, items) => post({ type: 'publish', topic, items }) },
    })
  : undefined;
/** The lane following the present (on the main thread), as it last told it. */
let present: StreamStats[] = [];
const complete = () => !backfill || (written !== undefined && backfill.caughtUpSince(written));
const fail = (what: string) => (err: unknown) =>
  post({ type: 'failed', what, message: String((err as Error)?.message ?? err) });
/** Each writing domain's writer, loaded here only. */
const writers = new Map<string, DomainWriter>();
for (const { domain, module } of data.writers) {
  const { startWriter } = (await import(module)) as WriterModule;
  writers.set(
    domain,
    startWriter({
      pool,
      log,
      backfill: { complete, loadedUntil: (streams) => backfill?.loadedUntil(streams) ?? null },
      present: { loadedUntil: (streams) => committedUntil(present, streams) },
      imports: () => importedBackfills(pool),
      backfillLoading: async () => !complete() || (await backfillLoading(pool)),
      publish: (topic, items) => post({ type: 'publish', topic, items }),
    }),
  );
}
const writing = [...writers].map(([domain, writer]) => writer.run().catch(fail(`${domain} writer`)));
const progress = () => Object.fromEntries([...writers].map(([domain, writer]) => [domain, writer.progress()]));
let loading: Promise<void> | undefined;

const report = setInterval(() => {
  post({ type: 'stats', backfill: backfill?.stats ?? [], complete: recorded, writers: progress() });
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
    case 'present':
      present = m.stats;
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
  await Promise.all([backfill?.stop(), ...[...writers.values()].map((w) => w.stop())]);
  await Promise.all([loading, ...writing]);
  await pool.end();
  post({ type: 'stopped' });
}
