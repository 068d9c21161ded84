// The whole service for end-to-end tests: a simulated node (seeded history + real time), ingest following its
// files, and every server of stack.ts on ephemeral ports, over a test database of its own.
//
// The seeded history is written and loaded once per run for each (seed, history length): the first file that asks
// builds a template database and keeps the node files beside it (test/stack-template.ts); every file then starts
// from a clone of both, the simulator resuming from the state it saved after the history (no replay), writing the
// minutes since and going on in real time, ingest following from the template's checkpoints.
import fs from 'node:fs/promises';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { startNodeInfoServer } from '../ingest/simulator/node-info.ts';
import { watchIngest } from '../platform/metrics.ts';
import { EPHEMERAL_PORTS, type Stack, type StackOptions, startStack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { tempDataDir } from './node-files.ts';
import { openRouterHere } from './router-here.ts';
import { loadedStackTemplate, SIM_RATES } from './stack-template.ts';

export interface TestStack extends Stack {
  db: TestDatabase;
  /** The event bus ingest publishes on (tests may publish on it too). */
  bus: InProcessBus;
  sim: Simulator;
  /** The node data dir the simulator writes and ingest follows. */
  dataDir: string;
  ingest: Ingest;
  nodeInfoUrl: string;
  close(): Promise<void>;
}

/**
 * The lengths of history a test stack's template holds: a file asking for less gets the next one up, so a run builds
 * a few templates (each a history written and ingested, seconds to a minute) rather than one per length asked for.
 */
const TEMPLATE_HISTORY_MS = [20 * 60_000, 3_600_000, 2 * 3_600_000, 3 * 3_600_000] as const;

/** `historyMs` rounded up to a template's length (longer ones as they are). */
export function templateHistoryMs(historyMs: number): number {
  return TEMPLATE_HISTORY_MS.find((ms) => ms >= historyMs) ?? historyMs;
}

export async function startTestStack(
  opts: {
    /** At least this much history before now (rounded up to a template's length, templateHistoryMs). */
    historyMs?: number;
    seed?: number /** A database of the caller's (default: a clone of the template). */;
    db?: TestDatabase;
    /**
     * Where the router runs: by default its own thread, as under npm start; openRouterHere (test/router-here.ts) for
     * files about what the servers answer, not where the router runs (it saves a thread's ~4 s of CPU).
     */
    openRouter?: StackOptions['openRouter'];
  } = {},
): Promise<TestStack> {
  const seed = opts.seed ?? 7;
  const historyMs = opts.historyMs ?? 2 * 3_600_000;
  let db: TestDatabase;
  let dataDir: string;
  let sim: Simulator;
  if (opts.db) {
    // A database of the caller's: the history written and loaded here.
    db = opts.db;
    dataDir = await tempDataDir();
    sim = new Simulator({ dataDir, seed, ...SIM_RATES });
    const now = Date.now();
    await sim.writeHistory(now - historyMs, now);
  } else {
    const template = await loadedStackTemplate(seed, templateHistoryMs(historyMs));
    db = await createTestDatabase(template.database);
    dataDir = await tempDataDir();
    await fs.cp(template.dataDir, dataDir, { recursive: true });
    sim = Simulator.resume(await fs.readFile(template.simState), dataDir);
    // The blocks since the template was built.
    await sim.catchUp(Date.now());
  }
  const nodeInfo = await startNodeInfoServer(sim, { port: 0 });
  const bus = new InProcessBus();
  // Polling each stream's directory every 100 ms (the service's is 200): live enough, for a fraction of the CPU.
  const ingest = new Ingest({ dataDir, pool: db.pool, bus, follow: true, pollMs: 100, log: () => {} });
  const running = ingest.run();
  running.catch(() => {}); // surfaced by close()
  const unwatchIngest = watchIngest(() => ingest.stats);
  await ingest.caughtUp();
  const stack = await startServersOverNode(db.pool, bus, `${nodeInfo.url}/info`, { openRouter: opts.openRouter });
  sim.startRealtime();
  return {
    ...stack,
    db,
    bus,
    sim,
    dataDir,
    ingest,
    nodeInfoUrl: `${nodeInfo.url}/info`,
    async close() {
      await sim.stop();
      await ingest.stop();
      unwatchIngest();
      await stack.close();
      await nodeInfo.close();
      await db.drop();
      await running;
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The servers over a clone of a loaded template, with no simulator writing and no ingest following: see below. */
export interface FrozenTestStack extends Stack {
  db: TestDatabase;
  /** The event bus the servers follow: nothing publishes on it but a test. */
  bus: InProcessBus;
  close(): Promise<void>;
}

/**
 * Every server over a clone of the loaded template with at least `historyMs` of history (templateHistoryMs), frozen
 * as ingest left it when the template was built: for files that would stop a test stack's node at once and compare
 * answers with each other (no replay of the history, no ingest). The node the servers relay proxied types to is
 * simulatedNode's (the same seed's listings and users, its state a few minutes of trading, not the history's). The
 * router runs in the test's thread (test/router-here.ts).
 */
export async function startFrozenStack(opts: { historyMs?: number; seed?: number } = {}): Promise<FrozenTestStack> {
  const seed = opts.seed ?? 7;
  const template = await loadedStackTemplate(seed, templateHistoryMs(opts.historyMs ?? 2 * 3_600_000));
  const db = await createTestDatabase(template.database);
  const node = await simulatedNode(seed).catch(async (err) => {
    await db.drop();
    throw err;
  });
  const bus = new InProcessBus();
  const stack = await startServersOverNode(db.pool, bus, node.url, { openRouter: openRouterHere }).catch(
    async (err) => {
      await node.close();
      await db.drop();
      throw err;
    },
  );
  return {
    ...stack,
    db,
    bus,
    async close() {
      await stack.close();
      await node.close();
      await db.drop();
    },
  };
}

/** A node answering /info as the simulator does (seed `seed`), its books quoted by two minutes of trading. */
export async function simulatedNode(seed = 7): Promise<{ url: string; close(): Promise<void> }> {
  const dataDir = await tempDataDir();
  const sim = new Simulator({ dataDir, seed, ...SIM_RATES });
  const now = Date.now();
  await sim.writeHistory(now - 120_000, now);
  const server = await startNodeInfoServer(sim, { port: 0 });
  return {
    url: `${server.url}/info`,
    async close() {
      await server.close();
      await sim.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The servers over `pool` on ephemeral ports, fed by `bus`, relaying to a (simulated) node at `upstreamInfoUrl`. */
export function startServersOverNode(
  pool: StackOptions['pool'],
  bus: InProcessBus,
  upstreamInfoUrl: string,
  opts: Pick<StackOptions, 'openRouter'> = {},
) {
  return startStack({
    pool,
    bus,
    upstreamInfoUrl,
    ports: EPHEMERAL_PORTS,
    upstreamTimeoutMs: 2000,
    log: () => {},
    ...opts,
  });
}

/**
 * The servers alone over `pool`, on ephemeral ports, with no node behind them (proxied types fail fast) and no data
 * feed: for tests of what the servers decide themselves (keys, exposure). The router runs in the test's thread
 * (test/router-here.ts) unless `openRouter` says otherwise.
 */
export function startStackWithoutNode(
  pool: StackOptions['pool'],
  opts: Partial<Omit<StackOptions, 'pool'>> = {},
): Promise<Stack> {
  return startStack({
    pool,
    upstreamInfoUrl: 'http://127.0.0.1:9/info',
    upstreamTimeoutMs: 500,
    ports: EPHEMERAL_PORTS,
    log: () => {},
    openRouter: openRouterHere,
    ...opts,
  });
}
