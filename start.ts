// `npm start`: the whole service on one machine. Postgres (embedded unless DATABASE_URL), migrations, the data
// feed (the simulator writing node files, or a real node's HL_DATA_DIR), ingest in follow mode, then the servers.
// Prints one line per listening endpoint. SIGINT (Ctrl-C), SIGTERM or SIGHUP stops everything in reverse order,
// the embedded Postgres last; a second Ctrl-C cuts the stops short but still stops Postgres.
//
// `npm start -- --role ingest|api` runs a part of it for scale-out (README "Scale-out"): the ingest role is the one
// writer (migrations, the feed, ingest, the derivation) and publishes the events on NATS; any number of api roles
// serve them over a shared Postgres. Each part below is one function; a role is the parts it composes.

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isLoopbackHost } from './access/auth.ts';
import { anyKeyConfigured, CREATE_KEY_COMMAND } from './access/keys.ts';
import { createPool, type Database, openDatabase } from './db/pool.ts';
import { takeWriterLock } from './db/writer-lock.ts';
import { DOMAIN_LIST, type DomainName } from './domains.ts';
import { type OpenBus, openConfiguredBus } from './events/open.ts';
import type { Ingest } from './ingest/pipeline.ts';
import type { BackgroundHistory } from './ingest/simulator/background.ts';
import { loadStartConfig, parseDuration, type StartConfig } from './platform/config.ts';
import { watchDerivation, watchIngest } from './platform/metrics.ts';
import { tracesEndpoint, tracing } from './platform/tracing.ts';
import { Upstream } from './platform/upstream.ts';
import { configuredPorts, type Stack, startStack } from './stack.ts';

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

const KEY_HINT = CREATE_KEY_COMMAND;

/** The ingest side's code, imported by the roles that ingest only: an api instance loads nothing of `ingest/`. */
async function importIngestCode() {
  const [pipeline, derive, progress, background, simulator, timeline] = await Promise.all([
    import('./ingest/pipeline.ts'),
    import('./ingest/derive/index.ts'),
    import('./ingest/progress.ts'),
    import('./ingest/simulator/background.ts'),
    import('./ingest/simulator/index.ts'),
    import('./ingest/simulator/timeline.ts'),
  ]);
  return {
    Ingest: pipeline.Ingest,
    Derivation: derive.Derivation,
    reportProgress: progress.reportProgress,
    writeHistoryInBackground: background.writeHistoryInBackground,
    startNodeInfoServer: simulator.startNodeInfoServer,
    openTimeline: timeline.openTimeline,
    configuredTimeline: timeline.configuredTimeline,
  };
}
let ingestCodeLoaded: ReturnType<typeof importIngestCode> | undefined;
const ingestCode = () => {
  ingestCodeLoaded ??= importIngestCode();
  return ingestCodeLoaded;
};

/** How long an api instance waits for the ingest role to apply the migrations (both started at once). */
const SCHEMA_WAIT_MS = 120_000;
/** How long an api instance waits for the node /info (the ingest role's simulator starts after its migrations). */
const NODE_INFO_WAIT_MS = 60_000;

const redact = (url: string) => url.replace(/:[^:@/]+@/, ':***@');

/** Postgres: the ingest role and `all` migrate it (embedded unless DATABASE_URL); an api instance only checks it. */
async function openServiceDatabase(config: StartConfig): Promise<Database> {
  opening =
    config.role === 'api'
      ? openDatabase(config, log, { mode: 'guest', schema: 'check', waitMs: SCHEMA_WAIT_MS })
      : openDatabase(config, log, {
          command: 'npm start',
          mode: 'own',
          service: true,
          whyNotShared: 'a second service would ingest the same files into it again',
        });
  db = await opening;
  // A Postgres that dies under the service is started again (same data dir and port).
  db.cluster?.watch();
  log(`postgres          ${redact(db.url)}${config.role === 'api' ? ' (schema checked, not migrated)' : ''}`);
  return db;
}

/** The one-writer rule: a second process ingesting into the same database refuses to start (db/writer-lock.ts). */
async function holdWriterLock(database: Database): Promise<void> {
  const lock = await takeWriterLock(database.url, {
    log,
    onLost: (reason) => {
      console.error(`writer lock lost: ${reason}`);
      void shutdown(1);
    },
  });
  stops.push(() => lock.release());
}

/** DATABASE_READ_URL's pool, for the query paths that may read a replica (SharedDeps.readPool). */
function openReadReplica(config: StartConfig): pg.Pool | undefined {
  if (!config.databaseReadUrl) return undefined;
  const pool = createPool(config.databaseReadUrl);
  stops.push(() => pool.end());
  log(`postgres replica  ${redact(config.databaseReadUrl)} (markets queries, analytics)`);
  return pool;
}

async function openBus(config: StartConfig): Promise<OpenBus> {
  const bus = await openConfiguredBus(config, log);
  stops.push(() => bus.close());
  log(`events            ${bus.describe}`);
  return bus;
}

/** Beyond loopback, the servers refuse to serve anyone without a key unless one exists or ALLOW_ANONYMOUS is set. */
async function checkKeyPolicy(config: StartConfig, pool: pg.Pool): Promise<void> {
  if (await anyKeyConfigured(pool)) return;
  if (isLoopbackHost(config.host)) {
    log(`no API key configured: serving without keys on loopback (create one: ${KEY_HINT})`);
  } else if (config.allowAnonymous) {
    log(`no API key configured: serving anonymously on ${config.host} (ALLOW_ANONYMOUS=1)`);
  } else {
    throw new Error(
      `HOST=${config.host} is reachable beyond this machine and no API key exists: refusing to serve it to anyone ` +
        `without a key. Create a key (${KEY_HINT}), or set ALLOW_ANONYMOUS=1 to serve anonymously.`,
    );
  }
}

interface Feed {
  dataDir: string;
  /** The node /info the servers relay to: UPSTREAM_INFO_URL, else the simulator's. */
  upstreamInfoUrl: string;
  /** Starts the simulator's history, written in the background while the servers already answer. */
  writeHistory?: (ingest: Ingest) => BackgroundHistory;
}

/** The node files: a real node's HL_DATA_DIR, or the simulator writing them and serving its node /info. */
async function startFeed(config: StartConfig): Promise<Feed> {
  if (config.hlDataDir) return { dataDir: config.hlDataDir, upstreamInfoUrl: config.upstreamInfoUrl };
  const { configuredTimeline, openTimeline, startNodeInfoServer, writeHistoryInBackground } = await ingestCode();
  const dataDir = config.simDataDir;
  const params = configuredTimeline(config);
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
  log(`node /info        ${nodeInfo.url}/info (simulator, seed ${config.simSeed})`);
  // Held HISTORY_LEAD_MS ahead of the fills loaded (unless the history has no fills to wait for).
  const paced = config.simLeanFillsPerSecond > 0 && config.simHistoryFillsPerSecond > 0;
  return {
    dataDir,
    upstreamInfoUrl: config.upstreamInfoUrlSet ? config.upstreamInfoUrl : `${nodeInfo.url}/info`,
    writeHistory: (ingest) => {
      // The simulator stops first too (stop is idempotent): the writer must not run on, unpaced, while ingest stops.
      stops.push(() => sim.stop());
      return writeHistoryInBackground(sim, startMs, {
        beforeChunk: (from) => {
          // Not while a restart replays the blocks on disk: ingest has nothing new to load until the writing starts.
          const writing = sim.stats.bytes > 0;
          if (paced && writing && from - HISTORY_LEAD_MS > startMs) return reached(ingest, from - HISTORY_LEAD_MS, 100);
        },
      });
    },
  };
}

interface Loading {
  ingest: Ingest;
  progress: { stop(): void };
  history: BackgroundHistory | undefined;
}

/** Ingest and the analytics derivation following the node files, with a progress display until loaded. */
async function startLoading(feed: Feed, pool: pg.Pool, bus: OpenBus, withHistory: boolean): Promise<Loading> {
  const { Ingest, Derivation, reportProgress } = await ingestCode();
  const ingest = new Ingest({ dataDir: feed.dataDir, pool, bus, follow: true });
  const running = ingest.run();
  stops.push(() => ingest.stop());
  stops.push(watchIngest(() => ingest.stats));
  // Ingest rides out storage outages itself (it publishes from the files and resumes committing from the stored
  // checkpoint); what still rejects is fatal (a data dir it cannot read, a statement Postgres refuses: a bug).
  running.catch((err) => {
    console.error(`ingest failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  });
  log(`ingest            following ${feed.dataDir}`);
  // The analytics derivation follows what ingest commits (ingest-role work, beside ingest).
  const derivation = new Derivation({ pool, log });
  derivation.run().catch((err) => {
    console.error(`analytics derivation failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  });
  stops.push(() => derivation.stop());
  stops.push(watchDerivation(() => derivation.stats));
  log('analytics         deriving round trips, snapshots, daily sums and leaderboards (lag in dataCoverage)');
  const history = withHistory ? feed.writeHistory?.(ingest) : undefined;
  const progress = reportProgress(() => ingest.stats, process.stderr, history && (() => history.describe()));
  return { ingest, progress, history };
}

/** A real node's files are there already: loaded before serving (the progress display stops then). */
async function loadExisting(feed: Feed, pool: pg.Pool, bus: OpenBus): Promise<void> {
  const { ingest, progress } = await startLoading(feed, pool, bus, false);
  await ingest.caughtUp();
  progress.stop();
}

/**
 * The simulator's history, written and loaded while the servers answer (they would otherwise wait minutes for a
 * week), dataCoverage telling how far it has come. Resolves true once loaded, false if the service stops first.
 */
async function loadHistory({ ingest, progress, history }: Loading): Promise<boolean> {
  if (!history) throw new Error('unreachable: the simulator writes a history');
  history.done.catch((err) => {
    console.error(`simulator failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  });
  await history.done;
  // The lively last minutes have fills in every second.
  await reached(ingest, history.progress().toMs - 60_000);
  progress.stop();
  if (stopping) return false;
  log(`history           loaded (${((Date.now() - startedAt) / 1000).toFixed(0)} s after start)`);
  return true;
}

/** compat REST and /ws, the router, the subgraphs and MCP over the database and the bus, with a line per endpoint. */
async function serve(
  config: StartConfig,
  parts: { pool: pg.Pool; readPool?: pg.Pool; bus: OpenBus; upstreamInfoUrl: string },
): Promise<Stack> {
  const stack = await startStack({
    pool: parts.pool,
    ...(parts.readPool ? { readPool: parts.readPool } : {}),
    bus: parts.bus,
    upstreamInfoUrl: parts.upstreamInfoUrl,
    host: config.host,
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
  if (config.role === 'api') log(`node /info relay  ${config.upstreamInfoUrl}`);
  if (tracing()) log(`traces            OTLP/HTTP to ${tracesEndpoint()} (router, subgraphs, compat, Postgres)`);
  return stack;
}

/** Everything in one process (the default). */
async function runAll(config: StartConfig): Promise<void> {
  const database = await openServiceDatabase(config);
  await holdWriterLock(database);
  await checkKeyPolicy(config, database.pool);
  const bus = await openBus(config);
  const feed = await startFeed(config);
  if (!feed.writeHistory) await loadExisting(feed, database.pool, bus);
  const stack = await serve(config, {
    pool: database.pool,
    readPool: openReadReplica(config),
    bus,
    upstreamInfoUrl: feed.upstreamInfoUrl,
  });
  log('ready');
  if (feed.writeHistory && (await loadHistory(await startLoading(feed, database.pool, bus, true)))) {
    // The books were built from the history's diffs; the node's snapshot now holds every resting order.
    await stack.services.markets
      .reloadBookSnapshot()
      .catch((err) =>
        console.error(`markets: book snapshot not reloaded (${err instanceof Error ? err.message : err})`),
      );
  }
}

/** The one writer: migrations, the feed, ingest and the derivation, publishing the events on the bus. */
async function runIngest(config: StartConfig): Promise<void> {
  const database = await openServiceDatabase(config);
  await holdWriterLock(database);
  const bus = await openBus(config);
  const feed = await startFeed(config);
  if (!feed.writeHistory) {
    await loadExisting(feed, database.pool, bus);
    log('ready');
    return;
  }
  const loading = await startLoading(feed, database.pool, bus, true);
  log('ready');
  await loadHistory(loading);
}

/**
 * Waits, bounded, for the node /info to answer: the markets service loads its books from the node's snapshot at
 * start, and an api instance started with the ingest role (a Procfile) would otherwise ask before the simulator
 * serves. Past the wait it starts anyway (the stored data is served; the books fill from live diffs).
 */
async function awaitNodeInfo(url: string): Promise<void> {
  const upstream = new Upstream(url, { timeoutMs: 2000 });
  const deadline = Date.now() + NODE_INFO_WAIT_MS;
  let told = false;
  while (!stopping) {
    const answered = await upstream.json({ type: 'meta' }).then(
      () => true,
      () => false,
    );
    if (answered) return;
    if (Date.now() >= deadline) {
      log(`node /info        ${url} still not answering after ${NODE_INFO_WAIT_MS / 1000} s: starting without it`);
      return;
    }
    if (!told) log(`node /info        waiting up to ${NODE_INFO_WAIT_MS / 1000} s for ${url}`);
    told = true;
    await sleep(500);
  }
}

/** A server of the events and the stored data; any number run side by side. */
async function runApi(config: StartConfig): Promise<void> {
  const database = await openServiceDatabase(config);
  await checkKeyPolicy(config, database.pool);
  await awaitNodeInfo(config.upstreamInfoUrl);
  const bus = await openBus(config);
  await serve(config, {
    pool: database.pool,
    readPool: openReadReplica(config),
    bus,
    upstreamInfoUrl: config.upstreamInfoUrl,
  });
  log('ready');
}

const ROLE_RUNS = { all: runAll, ingest: runIngest, api: runApi } as const;

let config: StartConfig;
try {
  config = loadStartConfig(process.argv.slice(2));
} catch (err) {
  // Nothing started yet: no stopping to report.
  console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
try {
  log(
    `role              ${config.role}` +
      (config.portOffset
        ? ` (PORT_OFFSET ${config.portOffset}: every port this instance listens on is its default + ${config.portOffset})`
        : ''),
  );
  await ROLE_RUNS[config.role](config);
} catch (err) {
  console.error(`start failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
