// The analytics writer on a thread of its own, as `npm start` runs it (its writer thread): the bench's "ingest with
// the derivation" section follows ingest with it, so that the derivation's arithmetic does not share the event loop
// of the ingest it is measured beside. It reports its progress every 100 ms and stops when told.
import { parentPort, workerData } from 'node:worker_threads';
import { writerPool } from '../db/pool.ts';
import { startWriter } from '../domains/analytics/writer/index.ts';
import { committedUntil, type StreamStats } from '../ingest/options.ts';
import type { WriterProgress } from '../platform/metrics.ts';

export type FromDerivationThread = { type: 'progress'; progress: WriterProgress; at: number } | { type: 'stopped' };
/** The ingest it follows, as it stands (as start.ts tells npm start's writer thread), or the order to stop. */
export type ToDerivationThread = { type: 'present'; stats: StreamStats[] } | { type: 'stop' };

const port = parentPort!;
let present: StreamStats[] = [];
const pool = writerPool((workerData as { databaseUrl: string }).databaseUrl);
const writer = startWriter({
  pool,
  log: (line) => console.error(line),
  backfill: { complete: () => true, loadedUntil: () => null },
  present: { loadedUntil: (streams) => committedUntil(present, streams) },
  publish: () => {},
});
const running = writer.run();
const post = (m: FromDerivationThread) => port.postMessage(m);
const report = setInterval(() => post({ type: 'progress', progress: writer.progress(), at: Date.now() }), 100);
port.on('message', async (m: ToDerivationThread) => {
  if (m.type === 'present') {
    present = m.stats;
    return;
  }
  clearInterval(report);
  await writer.stop();
  await running;
  post({ type: 'progress', progress: writer.progress(), at: Date.now() });
  await pool.end();
  post({ type: 'stopped' });
});
