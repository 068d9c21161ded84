// `npm start`: the whole service on one machine. Postgres (embedded unless DATABASE_URL), migrations, the data
// feed (the simulator writing node files, or a real node's HL_DATA_DIR), ingest in follow mode, and the servers.
// Prints one line per listening endpoint; Ctrl-C (SIGINT) or SIGTERM stops everything in reverse order.
import fs from 'node:fs/promises';
import { openDatabase } from './db/pool.ts';
import { InProcessBus } from './ingest/bus.ts';
import { Ingest } from './ingest/pipeline.ts';
import { reportProgress } from './ingest/progress.ts';
import { Simulator, startNodeInfoServer } from './ingest/simulator/index.ts';
import { loadConfig, parseDuration } from './platform/config.ts';

const config = loadConfig();
const log = (line: string) => console.log(line);
const stops: (() => Promise<void> | void)[] = [];
let stopping = false;

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping...');
  for (const stop of stops.reverse()) {
    try {
      await stop();
    } catch (err) {
      console.error(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  process.exit(code);
}
process.once('SIGINT', () => void shutdown(0));
process.once('SIGTERM', () => void shutdown(0));

try {
  const db = await openDatabase(config, log);
  stops.push(db.close);
  log(`postgres      ${db.url.replace(/:[^:@/]+@/, ':***@')}`);

  let dataDir = config.hlDataDir;
  if (!dataDir) {
    dataDir = config.simDataDir;
    const fresh = !(await fs.readdir(dataDir).catch(() => [])).length;
    const sim = new Simulator({ dataDir, seed: config.simSeed });
    stops.push(() => sim.stop());
    const historyMs = parseDuration(config.simHistory ?? '6h');
    if (fresh && historyMs > 0) {
      const now = Date.now();
      log(`simulator     writing ${config.simHistory ?? '6h'} of history into ${dataDir}`);
      await sim.writeHistory(now - historyMs, now);
    }
    sim.startRealtime();
    const nodeInfo = await startNodeInfoServer(sim, { port: config.simPort, host: '127.0.0.1' });
    stops.push(nodeInfo.close);
    log(`node /info    ${nodeInfo.url} (simulator, seed ${config.simSeed})`);
  }

  const bus = new InProcessBus();
  const ingest = new Ingest({ dataDir, pool: db.pool, bus, follow: true });
  const running = ingest.run();
  stops.push(() => ingest.stop());
  running.catch((err) => {
    console.error(`ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  });
  const progress = reportProgress(() => ingest.stats);
  stops.push(() => progress.stop());
  log(`ingest        following ${dataDir}`);
  await ingest.caughtUp();
  log('ready');
} catch (err) {
  console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
