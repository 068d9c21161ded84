// `npm start`: the whole service on one machine. Postgres (embedded unless DATABASE_URL), migrations, the data
// feed (the simulator writing node files, or a real node's HL_DATA_DIR), ingest in follow mode, then the servers.
// Prints one line per listening endpoint. SIGINT (Ctrl-C), SIGTERM or SIGHUP stops everything in reverse order,
// the embedded Postgres last; a second Ctrl-C cuts the stops short but still stops Postgres.
//
// `npm start -- --role ingest|api` runs a part of it for scale-out (docs/scale-out.md): the ingest role is the one
// writer (migrations, the feed, ingest, the derivation) and publishes the events on NATS; any number of api roles
// serve them over a shared Postgres. Each part below is one function; a role is the parts it composes.

import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { isLoopbackHost } from './access/auth.ts';
import { anyKeyConfigured, CREATE_KEY_COMMAND } from './access/keys.ts';
import { createPool, type Database, openDatabase, UPKEEP_APPLICATION, upkeepPool, writerPool } from './db/pool.ts';
import { type StartupStep, startupRetry } from './db/startup.ts';
import { takeWriterLock } from './db/writer-lock.ts';
import { type OpenBus, openConfiguredBus } from './events/open.ts';
import type { Ingest } from './ingest/pipeline.ts';
import type { SimulatorThread } from './ingest/simulator/thread.ts';
import type { DomainName } from './kit/domain.ts';
import { loadStartConfig, parseDuration, type StartConfig } from './platform/config.ts';
import { watchIngest, watchWriters } from './platform/metrics.ts';
import { answerStarting, type StartingServers } from './platform/starting-server.ts';
import { tracesEndpoint, tracing } from './platform/tracing.ts';
import { Upstream } from './platform/upstream.ts';
import type { Stack } from './stack.ts';
import type { StreamName } from './wire/node-lines.ts';

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
/** Aborted at the first signal: a start-up step waiting to retry a slow Postgres gives up (db/startup.ts). */
const starting = new AbortController();

async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  starting.abort();
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

const KEY_HINT = CREATE_KEY_COMMAND;

/** The ingest side's code, imported by the roles that ingest only: an api instance loads nothing of `ingest/`. */
async function importIngestCode() {
  const [pipeline, writer, progress, formats] = await Promise.all([
    import('./ingest/pipeline.ts'),
    import('./ingest/writer-thread.ts'),
    import('./ingest/progress.ts'),
    import('./ingest/formats/index.ts'),
  ]);
  return {
    Ingest: pipeline.Ingest,
    startWriterThread: writer.startWriterThread,
    reportProgress: progress.reportProgress,
    LOADERS: formats.LOADERS,
  };
}
let ingestCodeLoaded: ReturnType<typeof importIngestCode> | undefined;
const ingestCode = () => {
  ingestCodeLoaded ??= importIngestCode();
  return ingestCodeLoaded;
};

/** How often the writer thread is told what the lane following the present has committed. */
const PRESENT_TOLD_MS = 250;

/** How long an api instance waits for the ingest role to apply the migrations (both started at once). */
const SCHEMA_WAIT_MS = 120_000;
/** How long an api instance waits for the node /info (the ingest role's simulator starts after its migrations). */
const NODE_INFO_WAIT_MS = 60_000;

const redact = (url: string) => url.replace(/:[^:@/]+@/, ':***@');

/**
 * The role's public ports (compat, router, MCP; none for the ingest role) answering 503 while its start retries a
 * slow Postgres: opened at the first retry, freed just before the real servers listen (`releasePublicPorts`).
 */
let held: Promise<StartingServers | undefined> | undefined;
function holdPublicPorts(config: StartConfig, reason: string): void {
  if (config.role === 'ingest') return;
  if (held) {
    void held.then((servers) => servers?.setReason(reason));
    return;
  }
  held = (async () => {
    const { configuredPorts } = await serverCode();
    const { compat, router, mcp } = configuredPorts(config);
    const servers = await answerStarting({ ports: [compat, router, mcp], host: config.host, reason, log });
    stops.push(() => servers.close());
    return servers;
  })().catch((err) => {
    log(`starting          ports not held: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  });
}
async function releasePublicPorts(): Promise<void> {
  await (await held)?.close();
}

/**
 * How every role runs its start-up statements (the schema, the writer lock, the key check, the services' start):
 * retried while Postgres is slow or busy, told on the console, the public ports answering 503 meanwhile.
 */
function startupSteps(config: StartConfig): StartupStep {
  return startupRetry({ log, signal: starting.signal, onRetry: (reason) => holdPublicPorts(config, reason) });
}

/** Postgres: the ingest role and `all` migrate it (embedded unless DATABASE_URL); an api instance only checks it. */
async function openServiceDatabase(config: StartConfig, retry: StartupStep): Promise<Database> {
  opening =
    config.role === 'api'
      ? openDatabase(config, log, { mode: 'guest', schema: 'check', waitMs: SCHEMA_WAIT_MS, retry })
      : openDatabase(config, log, {
          command: 'npm start',
          mode: 'own',
          service: true,
          whyNotShared: 'a second service would ingest the same files into it again',
          retry,
        });
  db = await opening;
  // A Postgres that dies under the service is started again (same data dir and port).
  db.cluster?.watch();
  log(`postgres          ${redact(db.url)}${config.role === 'api' ? ' (schema checked, not migrated)' : ''}`);
  return db;
}

/** The one-writer rule: a second process ingesting into the same database refuses to start (db/writer-lock.ts). */
async function holdWriterLock(database: Database, retry: StartupStep): Promise<void> {
  const lock = await retry('writer lock', () =>
    takeWriterLock(database.url, {
      log,
      onLost: (reason) => {
        console.error(`writer lock lost: ${reason}`);
        void shutdown(1);
      },
    }),
  );
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

/** The bus, carrying ingest's topics and those the domains declare. */
async function openBus(config: StartConfig): Promise<OpenBus> {
  const { DOMAIN_TOPICS } = await domainList();
  const bus = await openConfiguredBus(config, log, DOMAIN_TOPICS);
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
  /** The node data dir ingest follows: the present. */
  dataDir: string;
  /** The node /info the servers relay to: UPSTREAM_INFO_URL, else the simulator's. */
  upstreamInfoUrl: string;
  /** The simulator on its own thread, writing its history and then real time (none with HL_DATA_DIR). */
  simulator?: SimulatorThread;
}

/** The node files: a real node's HL_DATA_DIR, or the simulator writing them and serving its node /info. */
async function startFeed(config: StartConfig): Promise<Feed> {
  if (config.hlDataDir) return { dataDir: config.hlDataDir, upstreamInfoUrl: config.upstreamInfoUrl };
  // Only the simulator's code first: its thread computes while the rest loads.
  const [{ configuredTimeline }, { startSimulatorThread }] = await Promise.all([
    import('./ingest/simulator/timeline.ts'),
    import('./ingest/simulator/thread.ts'),
  ]);
  const dataDir = config.simDataDir;
  const historyMs = parseDuration(config.simHistory);
  const detailedMs = parseDuration(config.simDetailedHistory);
  const sim = await startSimulatorThread(
    { dataDir, params: configuredTimeline(config), historyMs, detailedMs, port: config.simPort, host: '127.0.0.1' },
    (err) => {
      console.error(`simulator failed: ${err.message}`);
      void shutdown(1);
    },
  );
  stops.push(() => sim.stop());
  log(
    `simulator         ${sim.resuming ? 'resuming' : 'writing'} the timeline from ${new Date(sim.startMs).toISOString()} in ${dataDir}` +
      (sim.resuming
        ? ''
        : ` (${config.simHistory} of history, ${detailedMs < historyMs ? `lean before the last ${config.simDetailedHistory}, ` : ''}` +
          'computed on its own thread; all but its last hour goes to the backfill lane)'),
  );
  log(`node /info        ${sim.url}/info (simulator, seed ${config.simSeed})`);
  return {
    dataDir,
    upstreamInfoUrl: config.upstreamInfoUrlSet ? config.upstreamInfoUrl : `${sim.url}/info`,
    simulator: sim,
  };
}

interface Loading {
  /** The lane following the node data dir: the present. */
  ingest: Ingest;
  /** Resolves once the lane following the present has loaded what the simulator wrote up to real time. */
  present: Promise<void>;
  /** Resolves once the backfill lane has loaded all of its history (at once without one). */
  backfilled: Promise<void>;
  /** Starts loading the backfill: after the present is served, the writer thread's work takes a core. */
  loadBackfill(): void;
}

/**
 * Ingest in two lanes and the analytics derivation. The present (the node data dir) is followed on this thread; the
 * simulator's backfill (its history before the last hour, in a directory of its own, loaded with checkpoints of its
 * own and never published as live events) and the derivation run on the writer thread, which derives the backfill
 * as it loads and the present after it. Both write through pools apart from the servers'.
 */
async function startLoading(database: Database, feed: Feed, bus: OpenBus): Promise<Loading> {
  const { Ingest, reportProgress, LOADERS, startWriterThread } = await ingestCode();
  const sim = feed.simulator;
  const fail = (what: string) => (err: unknown) => {
    console.error(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
    void shutdown(1);
  };
  const { DOMAIN_WRITERS } = await domainList();
  const writer = startWriterThread(
    {
      databaseUrl: database.url,
      writers: DOMAIN_WRITERS,
      ...(sim ? { backfillDir: sim.backfillDir } : {}),
      ...(sim?.backfillUntilMs ? { backfillUntil: sim.backfillUntilMs } : {}),
    },
    bus,
    fail('writer thread'),
  );
  stops.push(() => writer.stop());
  stops.push(watchWriters(() => writer.writerProgress()));
  log(
    `writers           ${DOMAIN_WRITERS.map((w) => w.domain).join(', ') || 'none'} (writer thread; lag in dataCoverage)`,
  );

  // Until the simulator is live, what the present's lane loads is its last hour of history: stored, not published.
  let liveFrom = sim ? Number.POSITIVE_INFINITY : 0;
  // An `ordered` stream (its rows update earlier ones) waits for its backfill: loaded in block order only.
  const hold = (stream: StreamName) => LOADERS[stream].ordered === true && !writer.backfilled();
  const pool = openWriterPool(database);
  const ingest = new Ingest({ dataDir: feed.dataDir, pool, bus, follow: true, historyBefore: () => liveFrom, hold });
  // Ingest rides out storage outages itself (it publishes from the files and resumes committing from the stored
  // checkpoint); what still rejects is fatal (a data dir it cannot read, a statement Postgres refuses: a bug).
  ingest.run().catch(fail('ingest'));
  stops.push(() => ingest.stop());
  // The writers derive what this lane has committed: told a few times a second (a feed's last block within one).
  const telling = setInterval(() => writer.present(ingest.stats), PRESENT_TOLD_MS);
  stops.push(() => clearInterval(telling));
  stops.push(keepPartitionsEvery(database));
  stops.push(watchIngest(() => ingest.stats));
  log(`ingest            following ${feed.dataDir}`);
  if (sim) log(`backfill          loading ${sim.backfillDir} behind the present (writer thread)`);

  const until = async (done: () => boolean) => {
    while (!stopping && !done()) await sleep(100);
  };
  const present = (async () => {
    if (!sim) return;
    // Its progress while it computes (a slow machine takes a while).
    const ticker = setInterval(() => log(`simulator         ${sim.describe()}`), 5000);
    const computedMs = await sim.live.finally(() => clearInterval(ticker));
    liveFrom = Date.now();
    log(`simulator         history computed in ${(computedMs / 1000).toFixed(1)} s; real time from now on`);
    // Everything the backfill lane will hold is on disk (it loads once the present is served: loadBackfill).
    writer.written(liveFrom);
    await until(() => ingest.caughtUpSince(liveFrom));
  })();
  const backfilled = (async () => {
    if (!sim) return;
    await present;
    const shown = reportProgress(
      () => writer.backfillStats(),
      process.stderr,
      () => 'backfill',
      sim.backfillUntilMs ?? undefined,
    );
    await until(() => writer.backfilled());
    shown.stop();
  })();
  return { ingest, present, backfilled, loadBackfill: () => writer.load() };
}

/** How often the one writer makes the coming days' partitions and thins or drops the closed ones (db/partitions.ts). */
const PARTITION_UPKEEP_MS = 10 * 60_000;

/**
 * The partitions' upkeep, now and every PARTITION_UPKEEP_MS, on a pool of its own without a statement limit
 * (db/pool.ts upkeepPool: a week's index rebuild takes minutes at mainnet's size). Returns its stop, which cancels a
 * round's statement rather than wait for it. A failed round is retried at the next.
 */
function keepPartitionsEvery(database: Database): () => Promise<void> {
  const pool = upkeepPool(database.url);
  let round: Promise<void> | undefined;
  const run = () => {
    // A round may outlast the interval (a week's indexes rebuilt): the next starts after it.
    round ??= import('./db/partitions.ts')
      .then(({ keepPartitions }) => keepPartitions(pool, { now: Date.now(), retention: config.retention }))
      .then(({ thinned, frozen, merged, dropped }) => {
        for (const t of thinned) log(`partitions        ${t.partition} thinned: ${t.rowsKept} of ${t.rowsBefore} kept`);
        for (const name of frozen) log(`partitions        ${name} frozen (indexes rebuilt)`);
        for (const name of merged) log(`partitions        ${name}: its thinned days merged`);
        for (const name of dropped) log(`partitions        ${name} dropped (retention)`);
      })
      .catch((err: unknown) => {
        if (!stopping) log(`partitions        upkeep failed: ${err instanceof Error ? err.message : String(err)}`);
      })
      .finally(() => {
        round = undefined;
      });
  };
  run();
  const timer = setInterval(run, PARTITION_UPKEEP_MS);
  return async () => {
    clearInterval(timer);
    if (round) {
      // A rebuild cut short leaves an invalid index, dropped and built again by the next start's round.
      await pool
        .query(
          `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
            WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`,
          [UPKEEP_APPLICATION],
        )
        .catch(() => {});
      await round;
    }
    await pool.end();
  };
}

/** A real node's files are there already: loaded before serving. */
async function loadExisting(database: Database, feed: Feed, bus: OpenBus): Promise<void> {
  const { ingest } = await startLoading(database, feed, bus);
  const { reportProgress } = await ingestCode();
  const shown = reportProgress(() => ingest.stats);
  await ingest.caughtUp();
  shown.stop();
}

/**
 * The domain list (their definitions: the bus's topics, the writers' modules, the servers'), loaded apart from this
 * module's: the simulator's thread starts computing first.
 */
let domainListLoaded: Promise<typeof import('./domains.ts')> | undefined;
function domainList() {
  domainListLoaded ??= import('./domains.ts');
  return domainListLoaded;
}

/** The servers' code, loaded apart from this module's: the simulator's thread starts computing first. */
let serverCodeLoaded: Promise<typeof import('./stack.ts') & typeof import('./domains.ts')> | undefined;
function serverCode() {
  serverCodeLoaded ??= Promise.all([import('./stack.ts'), domainList()]).then(([stack, domains]) => ({
    ...stack,
    ...domains,
  }));
  return serverCodeLoaded;
}

/** compat REST and /ws, the router, the subgraphs and MCP over the database and the bus, with a line per endpoint. */
async function serve(
  config: StartConfig,
  parts: { pool: pg.Pool; readPool?: pg.Pool; bus: OpenBus; upstreamInfoUrl: string; startsAt?: Promise<unknown> },
  retry: StartupStep,
): Promise<Stack> {
  const { configuredPorts, startStack, DOMAIN_LIST } = await serverCode();
  const stack = await startStack({
    pool: parts.pool,
    ...(parts.readPool ? { readPool: parts.readPool } : {}),
    bus: parts.bus,
    upstreamInfoUrl: parts.upstreamInfoUrl,
    ...(parts.startsAt ? { startsAt: parts.startsAt } : {}),
    host: config.host,
    allowAnonymous: config.allowAnonymous,
    mcpAllowedHosts: config.mcpAllowedHosts,
    corsOrigins: config.corsOrigins,
    ports: configuredPorts(config),
    retry,
    beforeListen: releasePublicPorts,
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

/** The pool the lane following the present writes through, closed after it. */
function openWriterPool(database: Database): pg.Pool {
  const pool = writerPool(database.url);
  stops.push(() => pool.end());
  return pool;
}

/**
 * The simulator's present and the backfill: the servers answer once the present is loaded (seconds), the history
 * fills in behind them, told when complete.
 */
async function followSimulator(loading: Loading): Promise<void> {
  await loading.present;
  if (stopping) return;
  loading.loadBackfill();
  log(`present           live (${((Date.now() - startedAt) / 1000).toFixed(1)} s after start)`);
  void loading.backfilled.then(() => {
    if (!stopping) log(`history           loaded (${((Date.now() - startedAt) / 1000).toFixed(0)} s after start)`);
  });
}

/** Everything in one process (the default). */
async function runAll(config: StartConfig): Promise<void> {
  // The simulator computes its history on its own thread while Postgres starts and the servers' code loads.
  const feeding = startFeed(config);
  feeding.catch(() => undefined);
  void serverCode();
  const retry = startupSteps(config);
  const database = await openServiceDatabase(config, retry);
  await holdWriterLock(database, retry);
  await retry('key check', () => checkKeyPolicy(config, database.pool));
  const bus = await openBus(config);
  const feed = await feeding;
  if (!feed.simulator) await loadExisting(database, feed, bus);
  const loading = feed.simulator ? await startLoading(database, feed, bus) : undefined;
  // The servers start on the present (the node's book snapshot at real time, its last hour loaded): a first answer
  // from the middle of the history would be a week old, and one before the present's lane has loaded the last hour
  // would miss its candles (the services rebuild them from what is stored as they start; a loaded machine lost up to
  // 20 of the hour's 60 minutes).
  await serve(
    config,
    {
      pool: database.pool,
      readPool: openReadReplica(config),
      bus,
      upstreamInfoUrl: feed.upstreamInfoUrl,
      ...(loading ? { startsAt: loading.present } : {}),
    },
    retry,
  );
  if (loading) await followSimulator(loading);
  log('ready');
}

/** The one writer: migrations, the feed, ingest and the derivation, publishing the events on the bus. */
async function runIngest(config: StartConfig): Promise<void> {
  const feeding = startFeed(config);
  feeding.catch(() => undefined);
  const retry = startupSteps(config);
  const database = await openServiceDatabase(config, retry);
  await holdWriterLock(database, retry);
  const bus = await openBus(config);
  const feed = await feeding;
  if (!feed.simulator) {
    await loadExisting(database, feed, bus);
    log('ready');
    return;
  }
  await followSimulator(await startLoading(database, feed, bus));
  log('ready');
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
  // Loaded while Postgres is asked: the ports held at a first retry are the servers' (configuredPorts).
  void serverCode();
  const retry = startupSteps(config);
  const database = await openServiceDatabase(config, retry);
  await retry('key check', () => checkKeyPolicy(config, database.pool));
  await awaitNodeInfo(config.upstreamInfoUrl);
  const bus = await openBus(config);
  await serve(
    config,
    { pool: database.pool, readPool: openReadReplica(config), bus, upstreamInfoUrl: config.upstreamInfoUrl },
    retry,
  );
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
