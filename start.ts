// `npm start`: the whole service on one machine. Postgres (embedded unless DATABASE_URL), migrations, the data
// feed (the simulator writing node files, or a real node's HL_DATA_DIR), ingest in follow mode, then the servers.
// Prints one line per listening endpoint; Ctrl-C (SIGINT) or SIGTERM stops everything in reverse order.
import { openDatabase } from './db/pool.ts';
import { InProcessBus } from './ingest/bus.ts';
import { Ingest } from './ingest/pipeline.ts';
import { reportProgress } from './ingest/progress.ts';
import { startNodeInfoServer } from './ingest/simulator/index.ts';
import { openTimeline } from './ingest/simulator/timeline.ts';
import { isLoopbackHost } from './platform/auth.ts';
import { loadConfig, parseDuration } from './platform/config.ts';
import { anyKeyConfigured } from './platform/keys.ts';
import { startStack } from './stack.ts';

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
  log(`postgres          ${db.url.replace(/:[^:@/]+@/, ':***@')}`);

  let host = config.host;
  if (!(await anyKeyConfigured(db.pool))) {
    if (!isLoopbackHost(host)) log(`no API key configured: serving on loopback only, not ${host}`);
    else log('no API key configured: serving on loopback only (create one: npm run keys -- create --scope data)');
    host = '127.0.0.1';
  }

  let dataDir = config.hlDataDir;
  let upstreamInfoUrl = config.upstreamInfoUrl;
  if (!dataDir) {
    dataDir = config.simDataDir;
    const params = {
      seed: config.simSeed,
      users: 300,
      blocksPerSecond: 5,
      fillsPerSecond: config.simFillsPerSecond,
      historyFillsPerSecond: config.simHistoryFillsPerSecond,
    };
    const { sim, startMs, resuming } = openTimeline(dataDir, params, parseDuration(config.simHistory));
    stops.push(() => sim.stop());
    log(
      `simulator         ${resuming ? 'resuming' : 'writing'} the timeline from ${new Date(startMs).toISOString()} in ${dataDir}`,
    );
    await sim.writeHistory(startMs, Date.now());
    sim.startRealtime();
    const nodeInfo = await startNodeInfoServer(sim, { port: config.simPort, host: '127.0.0.1' });
    stops.push(nodeInfo.close);
    upstreamInfoUrl = process.env.UPSTREAM_INFO_URL ? upstreamInfoUrl : `${nodeInfo.url}/info`;
    log(`node /info        ${nodeInfo.url}/info (simulator, seed ${config.simSeed})`);
  }

  const bus = new InProcessBus();
  const ingest = new Ingest({ dataDir, pool: db.pool, bus, follow: true });
  const running = ingest.run();
  stops.push(() => ingest.stop());
  running.catch((err) => {
    console.error(`ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  });
  log(`ingest            following ${dataDir}`);
  const progress = reportProgress(() => ingest.stats);
  await ingest.caughtUp();
  progress.stop();

  const stack = await startStack({
    pool: db.pool,
    bus,
    upstreamInfoUrl,
    host,
    ports: {
      compat: config.compatPort,
      router: config.routerPort,
      markets: config.marketsPort,
      accounts: config.accountsPort,
    },
    onFailure: (err) => {
      console.error(`router failed: ${err.message}`);
      void shutdown(1);
    },
  });
  stops.push(stack.close);
  log(`compat REST       ${stack.urls.compat}/info`);
  log(`compat WebSocket  ${stack.urls.ws}`);
  log(`router GraphQL    ${stack.urls.router} (graphql-ws and SSE on the same path)`);
  log(`markets subgraph  ${stack.urls.markets}`);
  log(`accounts subgraph ${stack.urls.accounts}`);
  log('ready');
} catch (err) {
  console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
