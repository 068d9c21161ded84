// The whole service for end-to-end tests: a simulated node (seeded history + real time), ingest following its
// files, and every server of stack.ts on ephemeral ports, over a test database of its own.
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { Simulator, startNodeInfoServer } from '../ingest/simulator/index.ts';
import { watchIngest } from '../platform/metrics.ts';
import { EPHEMERAL_PORTS, type Stack, type StackOptions, startStack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { tempDataDir } from './node-files.ts';

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

export async function startTestStack(
  opts: {
    historyMs?: number;
    seed?: number /** A database of the caller's (default: a clone of the template). */;
    db?: TestDatabase;
  } = {},
): Promise<TestStack> {
  const db = opts.db ?? (await createTestDatabase());
  const dataDir = await tempDataDir();
  const sim = new Simulator({ dataDir, seed: opts.seed ?? 7, fillsPerSecond: 20, blocksPerSecond: 10 });
  const now = Date.now();
  await sim.writeHistory(now - (opts.historyMs ?? 2 * 3_600_000), now);
  const nodeInfo = await startNodeInfoServer(sim, { port: 0 });
  const bus = new InProcessBus();
  const ingest = new Ingest({ dataDir, pool: db.pool, bus, follow: true, pollMs: 25, log: () => {} });
  const running = ingest.run();
  running.catch(() => {}); // surfaced by close()
  const unwatchIngest = watchIngest(() => ingest.stats);
  await ingest.caughtUp();
  const stack = await startServersOverNode(db.pool, bus, `${nodeInfo.url}/info`);
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
    },
  };
}

/** The servers over `pool` on ephemeral ports, fed by `bus`, relaying to a (simulated) node at `upstreamInfoUrl`. */
export function startServersOverNode(pool: StackOptions['pool'], bus: InProcessBus, upstreamInfoUrl: string) {
  return startStack({ pool, bus, upstreamInfoUrl, ports: EPHEMERAL_PORTS, upstreamTimeoutMs: 2000, log: () => {} });
}

/**
 * The servers alone over `pool`, on ephemeral ports, with no node behind them (proxied types fail fast) and no data
 * feed: for tests of what the servers decide themselves (keys, exposure).
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
    ...opts,
  });
}
