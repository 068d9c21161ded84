// `npm start`: the whole service on one machine. Postgres (embedded unless DATABASE_URL), migrations, the data
// feed (the simulator writing node files, or a real node's HL_DATA_DIR), ingest in follow mode, then the servers.
// Prints one line per listening endpoint. SIGINT (Ctrl-C), SIGTERM or SIGHUP stops everything in reverse order,
// the embedded Postgres last; a second Ctrl-C cuts the stops short but still stops Postgres.

import { setTimeout as sleep } from 'node:timers/promises';
import { isLoopbackHost } from './access/auth.ts';
import { anyKeyConfigured } from './access/keys.ts';
import { type Database, openDatabase } from './db/pool.ts';
import { DOMAIN_LIST, type DomainName } from './domains.ts';
import { InProcessBus } from './events/bus.ts';
import { Derivation } from './ingest/derive/index.ts';
import { Ingest } from './ingest/pipeline.ts';
import { reportProgress } from './ingest/progress.ts';
import { type BackgroundHistory, writeHistoryInBackground } from './ingest/simulator/background.ts';
import { startNodeInfoServer } from './ingest/simulator/index.ts';
import { openTimeline } from './ingest/simulator/timeline.ts';
import { type Config, loadConfig, parseDuration } from './platform/config.ts';
import { watchDerivation, watchIngest } from './platform/metrics.ts';
import { tracesEndpoint, tracing } from './platform/tracing.ts';
import { configuredPorts, startStack } from './stack.ts';

const log = (line: string) => console.log(line);
// Output to a terminal that went away (SIGHUP) must not stop the shutdown half-way.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

/** How long the stops may take before they are cut short, as by a second Ctrl-C. */
const STOP_PATIENCE_MS = 20_000;

const stops: (() => Promise<void> | void)[] = [];
let db: Database | undefined;
let opening: Promise<Database> | undefined;
let stopping = false;
let hurried = false;
let hurry = () => {};

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  log('stopping...');
  const cutShort = new Promise<'hurried'>((resolve) => {
    hurry = () => {
      if (hurried) return;
      hurried = true;
      log('stopping Postgres now');
      resolve('hurried');
      void db?.cluster?.stop({ hurry: true });
    };
  });
  // Ref'd: a stop that waits on something no handle keeps alive must not let node exit before Postgres is stopped.
  setTimeout(hurry, STOP_PATIENCE_MS);
  for (const stop of stops.reverse()) {
    const done = Promise.resolve()
      .then(stop)
      .then(
        () => 'done' as const,
        (err) => console.error(`while stopping: ${err instanceof Error ? err.message : String(err)}`),
      );
    if ((await Promise.race([done, cutShort])) === 'hurried') break;
  }
  // The database last, also when the signal came while it was still opening.
  const database = db ?? (await opening?.catch(() => undefined));
  try {
    await database?.close({ hurry: hurried });
  } catch (err) {
    console.error(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
  }
  process.exit(code);
}

// A terminal's Ctrl-C under `npm start` arrives twice at once: from the terminal, to the whole process group, and
// forwarded by npm (which also forwards SIGTERM). Signals within a second of the first are that same one; a later
// one (a second Ctrl-C) hurries the stop.
let firstSignalAt = 0;
function onSignal() {
  if (!firstSignalAt) {
    firstSignalAt = Date.now();
    void shutdown(0);
  } else if (Date.now() - firstSignalAt > 1000) hurry();
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, onSignal);

const startedAt = Date.now();

/** How far the simulator's history may be written ahead of the fills ingest has loaded. */
const HISTORY_LEAD_MS = 30 * 60_000;

/** Time of the last block of fills ingest has loaded (0: none yet). */
const fillsLoaded = (ingest: Ingest) =>
  ingest.stats.find((s) => s.stream === 'node_fills_by_block')?.lastBlockTime ?? 0;

/** Resolves once ingest has loaded fills from `timeMs` on, or the service stops. */
async function reached(ingest: Ingest, timeMs: number, pollMs = 500): Promise<void> {
  while (!stopping && fillsLoaded(ingest) < timeMs) await sleep(pollMs);
}

const KEY_HINT = 'npm run -s keys -- create --scope data';

try {
  const config: Config = loadConfig();
  opening = openDatabase(config, log, {
    command: 'npm start',
    mode: 'own',
    service: true,
    whyNotShared: 'a second service would ingest the same files into it again',
  });
  db = await opening;
  // A Postgres that dies under the service is started again (same data dir and port).
  db.cluster?.watch();
  log(`postgres          ${db.url.replace(/:[^:@/]+@/, ':***@')}`);

  const host = config.host;
  if (!(await anyKeyConfigured(db.pool))) {
    if (isLoopbackHost(host)) {
      log(`no API key configured: serving without keys on loopback (create one: ${KEY_HINT})`);
    } else if (config.allowAnonymous) {
      log(`no API key configured: serving anonymously on ${host} (ALLOW_ANONYMOUS=1)`);
    } else {
      throw new Error(
        `HOST=${host} is reachable beyond this machine and no API key exists: refusing to serve it to anyone ` +
          `without a key. Create a key (${KEY_HINT}), or set ALLOW_ANONYMOUS=1 to serve anonymously.`,
      );
    }
  }

  let dataDir = config.hlDataDir;
  let upstreamInfoUrl = config.upstreamInfoUrl;
  /** Starts the simulator's history, written in the background while the servers already answer. */
  let writeHistory: ((ingest: Ingest) => BackgroundHistory) | undefined;
  if (!dataDir) {
    dataDir = config.simDataDir;
    const params = {
      seed: config.simSeed,
      users: 300,
      blocksPerSecond: 5,
      fillsPerSecond: config.simFillsPerSecond,
      historyFillsPerSecond: config.simHistoryFillsPerSecond,
      leanFillsPerSecond: config.simLeanFillsPerSecond,
    };
    const historyMs = parseDuration(config.simHistory);
    const detailedMs = parseDuration(config.simDetailedHistory);
    const { sim, startMs, resuming } = openTimeline(dataDir, params, historyMs, Date.now(), detailedMs);
    stops.push(() => sim.stop());
    log(
      `simulator         ${resuming ? 'resuming' : 'writing'} the timeline from ${new Date(startMs).toISOString()} in ${dataDir}` +
        (resuming
          ? ''
          : ` (${config.simHistory} of history, ${detailedMs < historyMs ? `lean before the last ${config.simDetailedHistory}, ` : ''}in the background)`),
    );
    const nodeInfo = await startNodeInfoServer(sim, { port: config.simPort, host: '127.0.0.1' });
    stops.push(nodeInfo.close);
    upstreamInfoUrl = process.env.UPSTREAM_INFO_URL ? upstreamInfoUrl : `${nodeInfo.url}/info`;
    log(`node /info        ${nodeInfo.url}/info (simulator, seed ${config.simSeed})`);
    // Held HISTORY_LEAD_MS ahead of the fills loaded (unless the history has no fills to wait for).
    const paced = config.simLeanFillsPerSecond > 0 && config.simHistoryFillsPerSecond > 0;
    writeHistory = (ingest) => {
      // The simulator stops first too (stop is idempotent): the writer must not run on, unpaced, while ingest stops.
      stops.push(() => sim.stop());
      return writeHistoryInBackground(sim, startMs, {
        beforeChunk: (from) => {
          // Not while a restart replays the blocks on disk: ingest has nothing new to load until the writing starts.
          const writing = sim.stats.bytes > 0;
          if (paced && writing && from - HISTORY_LEAD_MS > startMs) return reached(ingest, from - HISTORY_LEAD_MS, 100);
        },
      });
    };
  }

  const pool = db.pool;
  const bus = new InProcessBus();
  /** Ingest and the analytics derivation following the node files, with a progress display until loaded. */
  const startLoading = (history: (ingest: Ingest) => BackgroundHistory | undefined) => {
    const ingest = new Ingest({ dataDir, pool, bus, follow: true });
    const running = ingest.run();
    stops.push(() => ingest.stop());
    stops.push(watchIngest(() => ingest.stats));
    // Ingest rides out storage outages itself (it publishes from the files and resumes committing from the stored
    // checkpoint); what still rejects is fatal (a data dir it cannot read, a statement Postgres refuses: a bug).
    running.catch((err) => {
      console.error(`ingest failed: ${err instanceof Error ? err.message : String(err)}`);
      void shutdown(1);
    });
    log(`ingest            following ${dataDir}`);
    // The analytics derivation follows what ingest commits (ingest-role work, beside ingest).
    const derivation = new Derivation({ pool, log });
    derivation.run().catch((err) => {
      console.error(`analytics derivation failed: ${err instanceof Error ? err.message : String(err)}`);
      void shutdown(1);
    });
    stops.push(() => derivation.stop());
    stops.push(watchDerivation(() => derivation.stats));
    log('analytics         deriving round trips, snapshots, daily sums and leaderboards (lag in dataCoverage)');
    const loading = history(ingest);
    const progress = reportProgress(() => ingest.stats, process.stderr, loading && (() => loading.describe()));
    return { ingest, progress, loading };
  };
  // A real node's files are there already: they are loaded before serving. The simulator's history is written and
  // loaded after the servers start (they would otherwise wait minutes for a week), dataCoverage telling how far
  // it has come.
  if (!writeHistory) {
    const { ingest, progress } = startLoading(() => undefined);
    await ingest.caughtUp();
    progress.stop();
  }

  const stack = await startStack({
    pool: db.pool,
    bus,
    upstreamInfoUrl,
    host,
    allowAnonymous: config.allowAnonymous,
    mcpAllowedHosts: config.mcpAllowedHosts,
    ports: configuredPorts(config),
    onFailure: (err) => {
      console.error(`router failed: ${err.message}`);
      void shutdown(1);
    },
  });
  stops.push(stack.close);
  log(`compat REST       ${stack.urls.compat}/info`);
  log(`compat WebSocket  ${stack.urls.ws}`);
  log(`router GraphQL    ${stack.urls.router} (graphql-ws and SSE on the same path)`);
  log(`MCP tools         ${stack.urls.mcp} (Streamable HTTP, stateless; a key is always required)`);
  for (const { name } of DOMAIN_LIST) log(`${`${name} subgraph`.padEnd(17)} ${stack.urls[name as DomainName]}`);
  if (tracing()) log(`traces            OTLP/HTTP to ${tracesEndpoint()} (router, subgraphs, compat, Postgres)`);
  log('ready');
  if (writeHistory) {
    const { ingest, progress, loading } = startLoading(writeHistory);
    if (!loading) throw new Error('unreachable: the simulator writes a history');
    loading.done.catch((err) => {
      console.error(`simulator failed: ${err instanceof Error ? err.message : String(err)}`);
      void shutdown(1);
    });
    await loading.done;
    // The lively last minutes have fills in every second.
    await reached(ingest, loading.progress().toMs - 60_000);
    progress.stop();
    if (!stopping) {
      // The books were built from the history's diffs; the node's snapshot now holds every resting order.
      await stack.services.markets
        .reloadBookSnapshot()
        .catch((err) =>
          console.error(`markets: book snapshot not reloaded (${err instanceof Error ? err.message : err})`),
        );
      log(`history           loaded (${((Date.now() - startedAt) / 1000).toFixed(0)} s after start)`);
    }
  }
} catch (err) {
  console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
