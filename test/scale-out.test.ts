// Scale-out on NATS JetStream, in one process: ingest publishing on a JetStream bus, and api instances (every server of
// stack.ts) each following the stream on a bus of its own, over one shared database. A trade reaches /ws and
// graphql-ws clients on two instances; a GraphQL subscriber of instance A, which is then stopped, resumes on B with
// its cursor and gets every trade exactly once; an instance started late serves the same books as one that ran
// all along. NATS itself restarting is tested on the bus (events/jetstream.test.ts), with a server of its own.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'graphql-ws';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJetStreamBus } from '../events/jetstream.ts';
import type { OpenBus } from '../events/open.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { startNodeInfoServer } from '../ingest/simulator/node-info.ts';
import { EPHEMERAL_PORTS, type Stack, startStack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { graphqlWsClient } from './graphql.ts';
import { tempDataDir } from './node-files.ts';
import { openSocket } from './ws-client.ts';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

async function natsReachable(): Promise<boolean> {
  try {
    await (await connect({ servers: NATS_URL, timeout: 1000, reconnect: false })).close();
    return true;
  } catch {
    return false;
  }
}
const natsUp = await natsReachable();
if (!natsUp) console.warn(`SKIPPED: no NATS server at ${NATS_URL} (scale-out tests need one; set TEST_NATS_URL)`);

const STREAM = `HLTEST_SCALE_${process.pid}_${Date.now().toString(36)}`;
const busOptions = { url: NATS_URL, stream: STREAM, prefix: `hlscale${process.pid}` };

interface Instance {
  bus: OpenBus;
  stack: Stack;
  close(): Promise<void>;
}

let db: TestDatabase;
let sim: Simulator;
let ingest: Ingest;
let ingestBus: OpenBus;
let nodeInfo: Awaited<ReturnType<typeof startNodeInfoServer>>;
const instances: Instance[] = [];

/** An api instance: its own bus following the stream, and every server over the shared database. */
async function startInstance(): Promise<Instance> {
  const bus = await openJetStreamBus(busOptions);
  const stack = await startStack({
    pool: db.pool,
    bus,
    upstreamInfoUrl: `${nodeInfo.url}/info`,
    ports: EPHEMERAL_PORTS,
    upstreamTimeoutMs: 2000,
    log: () => {},
  });
  const instance = {
    bus,
    stack,
    close: async () => {
      instances.splice(instances.indexOf(instance), 1);
      await stack.close();
      await bus.close();
    },
  };
  instances.push(instance);
  return instance;
}

beforeAll(async () => {
  if (!natsUp) return;
  db = await createTestDatabase();
  const dataDir = await tempDataDir();
  sim = new Simulator({ dataDir, seed: 11, fillsPerSecond: 40, blocksPerSecond: 10 });
  const now = Date.now();
  await sim.writeHistory(now - 10 * 60_000, now);
  nodeInfo = await startNodeInfoServer(sim, { port: 0 });
  ingestBus = await openJetStreamBus(busOptions);
  ingest = new Ingest({ dataDir, pool: db.pool, bus: ingestBus, follow: true, pollMs: 25, log: () => {} });
  ingest.run().catch(() => {});
  await ingest.caughtUp();
  await startInstance();
  await startInstance();
  sim.startRealtime();
}, 180_000);

afterAll(async () => {
  if (!natsUp) return;
  await sim?.stop();
  await ingest?.stop();
  for (const instance of [...instances]) await instance.close();
  await ingestBus?.close();
  await nodeInfo?.close();
  await db?.drop();
  const nc = await connect({ servers: NATS_URL, reconnect: false });
  await (await nc.jetstreamManager()).streams.delete(STREAM).catch(() => {});
  await nc.close();
});

type TradeEvent = { tid: string; cursor: string };

/** A graphql-ws subscription to BTC trades (from `after` when given): every trade it sends, in order. */
function followTrades(client: Client, after?: string) {
  const trades: TradeEvent[] = [];
  const errors: unknown[] = [];
  const stop = client.subscribe<{ trades: TradeEvent[] }>(
    {
      query: 'subscription ($after: String) { trades(coin: "BTC", after: $after) { tid cursor } }',
      variables: { after: after ?? null },
    },
    {
      next: (frame) => {
        if (frame.errors) errors.push(frame.errors);
        else trades.push(...(frame.data?.trades ?? []));
      },
      error: (err) => errors.push(err),
      complete: () => {},
    },
  );
  return { trades, errors, stop };
}

async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

describe.skipIf(!natsUp)('scale-out on NATS JetStream', () => {
  it('delivers an ingested trade to /ws and graphql-ws clients of both instances', async () => {
    const [a, b] = instances as [Instance, Instance];
    const sockets = await Promise.all([a, b].map((i) => openSocket(i.stack.urls.ws)));
    const clients = [a, b].map((i) => graphqlWsClient(i.stack.urls.router));
    try {
      for (const s of sockets) s.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });
      const graphql = clients.map((c) => followTrades(c));
      const wsTids = await Promise.all(
        sockets.map(async (s) => {
          for (;;) {
            const m = (await s.next()) as { channel: string; data: { tid: number }[] };
            if (m.channel === 'trades') return m.data.map((t) => String(t.tid));
          }
        }),
      );
      await until(() => graphql.every((g) => g.trades.length > 0), 'graphql-ws trades on both instances');
      for (const tids of wsTids) expect(tids.length).toBeGreaterThan(0);
      // The same trades, with the same cursors, on both instances.
      const [onA, onB] = graphql as [ReturnType<typeof followTrades>, ReturnType<typeof followTrades>];
      await until(() => onA.trades.length > 3 && onB.trades.length > 3, 'more trades');
      const common = onA.trades.filter((t) => onB.trades.some((u) => u.tid === t.tid));
      expect(common.length).toBeGreaterThan(0);
      for (const t of common) expect(onB.trades.find((u) => u.tid === t.tid)?.cursor).toBe(t.cursor);
      for (const g of graphql) g.stop();
    } finally {
      for (const s of sockets) s.close();
      for (const c of clients) await c.dispose();
    }
  }, 60_000);

  it('resumes a subscriber of a stopped instance on another with its cursor: every trade exactly once', async () => {
    const [a, b] = instances as [Instance, Instance];
    const referenceClient = graphqlWsClient(b.stack.urls.router);
    const reference = followTrades(referenceClient);
    // The reference is live before A's subscriber starts, so it holds A's first trade (two subscriptions begun at
    // once on two instances go live in either order: under load the reference began a block later, once).
    await until(() => reference.trades.length > 0, 'the reference live');
    const clientA = graphqlWsClient(a.stack.urls.router);
    const onA = followTrades(clientA);
    await until(() => onA.trades.length >= 5, 'trades on A');
    await clientA.dispose();
    const last = onA.trades.at(-1) as TradeEvent;
    await a.close(); // instance A goes away; trades go on
    await sleep(1500);
    const clientB = graphqlWsClient(b.stack.urls.router);
    const resumed = followTrades(clientB, last.cursor);
    try {
      await until(() => reference.trades.some((t) => t.tid === last.tid), 'the reference to reach A’s last trade');
      const from = reference.trades.findIndex((t) => t.tid === onA.trades[0]?.tid);
      expect(from).toBeGreaterThanOrEqual(0);
      // Until the resumed subscriber has read the missed trades and gone on live a little.
      await until(() => resumed.trades.length > 5, 'the resumed subscriber');
      await sleep(500);
      expect(resumed.errors).toEqual([]);
      const seen = [...onA.trades, ...resumed.trades].map((t) => t.tid);
      expect(new Set(seen).size).toBe(seen.length);
      const compared = Math.min(seen.length, reference.trades.length - from);
      expect(compared).toBeGreaterThan(onA.trades.length + 5);
      expect(seen.slice(0, compared)).toEqual(reference.trades.slice(from, from + compared).map((t) => t.tid));
    } finally {
      resumed.stop();
      reference.stop();
      await clientB.dispose();
      await referenceClient.dispose();
    }
  }, 90_000);

  it('refuses a cursor that is not a position of the store with a clear error', async () => {
    const [b] = instances as [Instance];
    const client = graphqlWsClient(b.stack.urls.router);
    try {
      // An event log's cursor (what trades sent before they resumed from the store) is not one.
      const bad = followTrades(client, 'p123~5');
      await until(() => bad.errors.length > 0, 'the error');
      expect(JSON.stringify(bad.errors)).toMatch(/after: not a position of this subscription/);
    } finally {
      await client.dispose();
    }
  });

  it('serves from an instance started late the same books as one that ran all along', async () => {
    const late = await startInstance();
    const [b] = instances as [Instance];
    // Trading stops; once both instances have followed the stream to its end, their books must agree.
    await sim.stop();
    await sleep(1000);
    const post = async (i: Instance) =>
      (await fetch(`${i.stack.urls.compat}/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'l2Book', coin: 'BTC' }),
      }).then((r) => r.json())) as { levels: unknown[][] };
    await until(() => late.bus.position('bookDiffs') === b.bus.position('bookDiffs'), 'both instances at the end');
    const [onB, onLate] = [await post(b), await post(late)];
    expect(onB.levels[0]?.length).toBeGreaterThan(0);
    expect(onLate.levels).toEqual(onB.levels);
  }, 90_000);
});
