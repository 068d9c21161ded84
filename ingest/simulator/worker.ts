// The simulator's own thread under `npm start` (thread.ts starts it): the simulated node, its node `/info` server and
// its history. The history is computed and written at full speed on this thread, so that the present, the state the
// live market is served from, exists seconds after the start instead of after ingest has loaded a week; ingest loads
// the older blocks apart (the backfill lane) while following the present.
import { parentPort, workerData } from 'node:worker_threads';
import { writeHistoryInBackground } from './background.ts';
import { startNodeInfoServer } from './node-info.ts';
import type { FromSimulatorThread, SimulatorThreadData, ToSimulatorThread } from './thread.ts';
import { LIVE_LANE_MS, openTimeline } from './timeline.ts';

const data = workerData as SimulatorThreadData;
const port = parentPort!;
const post = (message: FromSimulatorThread) => port.postMessage(message);

/** Progress is told at most this often. */
const PROGRESS_MS = 250;

const now = Date.now();
const timeline = openTimeline(data.dataDir, data.params, data.historyMs, now, data.detailedMs);
const { sim, startMs } = timeline;
const server = await startNodeInfoServer(sim, { port: data.port, host: data.host });
post({
  type: 'started',
  url: server.url,
  startMs,
  toMs: now,
  resuming: timeline.resuming,
  backfillDir: timeline.backfill.dir,
  writesBackfill: timeline.backfillNow !== null,
  backfillUntilMs: timeline.backfillNow ? now - LIVE_LANE_MS : null,
});

const progress = setInterval(() => post({ type: 'progress', writtenUntilMs: sim.currentTimeMs }), PROGRESS_MS);
// Its own thread: no server shares it but the node /info, which answers between 100 ms slices.
const history = writeHistoryInBackground(sim, startMs, { toMs: now, share: { sliceMs: 100, restMs: 0 } });
history.done.then(
  () => {
    clearInterval(progress);
    if (!sim.stopped) post({ type: 'live', writtenUntilMs: sim.currentTimeMs, computedMs: Date.now() - now });
  },
  (err: unknown) => {
    clearInterval(progress);
    throw err;
  },
);

port.on('message', (m: ToSimulatorThread) => {
  if (m.type !== 'stop') return;
  clearInterval(progress);
  void (async () => {
    await sim.stop();
    await server.close();
    post({ type: 'stopped' });
  })();
});
