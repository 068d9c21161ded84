// Books every block to many subscribers (issue 41, BENCH_ONLY=books): the mainnet profile's books (every perp and
// spot pair, ingest/simulator/profile.ts) diffed every block by the real /ws server (compat-rest/ws over the markets
// service and its channels) to 1 000 l2BookDiff subscribers, half on one coin each, half on 50 coins each; the
// delay from a block's publication on the bus to each frame of it at a client. Beside it, in the same run, the floor:
// a plain `ws` server writing the same frames (the bytes the real one sent, captured per block and coin) to the same
// clients at the same pace, with nothing in between. Then an L4 snapshot of the busiest coin over /ws (subscribe to
// its Snapshot frame) beside a plain server answering the subscribe with the same bytes made once.
//
// The blocks are the simulated node's own files, read back as ingest parses them, published block by block at their
// own pace (13.5 a second) as ingest would: the order statuses, then the raw diffs. No Postgres: the books need none.
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { capabilityChannels } from '../compat-rest/capability-channels.ts';
import { encodeFrame } from '../compat-rest/ws/frames.ts';
import { attachWsServer } from '../compat-rest/ws/protocol.ts';
import type { OrderStatusRow } from '../db/rows/accounts.ts';
import type { BookDiffRow } from '../db/rows/markets.ts';
import { MARKETS_CAPABILITIES } from '../domains/markets/capabilities.ts';
import { OrderBooks } from '../domains/markets/service/book.ts';
import { MarketsService } from '../domains/markets/service/index.ts';
import { InProcessBus } from '../events/bus.ts';
import { parseBookDiff } from '../ingest/formats/book.ts';
import { parseOrderStatus } from '../ingest/formats/orders.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { closeThread, startThread, type Thread } from '../platform/threads.ts';
import { Upstream } from '../platform/upstream.ts';
import { readNodeBlocks } from '../test/book-files.ts';
import { type BenchRow, type BenchSection, int, met, ms, sleep } from './section.ts';
import { type HistogramData, LatencyHistogram, percentile } from './stats.ts';
import { wallMs } from './subscribers.ts';

const SUBSCRIBERS = 1000;
const COINS_EACH = 50;
const CLIENT_THREADS = 2;
const WARM_S = 20;
/** Seconds of blocks published (BENCH_BOOKS_SECONDS); the first BLOCKS_UNMEASURED of them warm up. */
const SECONDS = Number(process.env.BENCH_BOOKS_SECONDS ?? 30);
const BLOCKS_UNMEASURED = 40;
const SNAPSHOT_RUNS = 200;
const FANOUT_TARGET_MS = 50;
const SNAPSHOT_TARGET_MS = 20;

interface Block {
  height: number;
  time: number;
  statuses: OrderStatusRow[];
  diffs: BookDiffRow[];
}

export async function benchBooks(): Promise<BenchSection> {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const closers: (() => unknown)[] = [];
  try {
    // ---- the mainnet profile's blocks ----
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-bench-books-'));
    closers.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const t0 = Date.UTC(2026, 2, 3, 14, 0, 0);
    const sim = new Simulator({ dataDir: root, seed: 41, profile: 'mainnet', bookHistoryBlocks: 10 });
    const simStarted = performance.now();
    await sim.writeHistory(t0, t0 + WARM_S * 1000);
    const [h1, wire] = sim.l4SnapshotAt(null) ?? [0, []];
    await sim.writeHistory(t0 + WARM_S * 1000, t0 + (WARM_S + SECONDS) * 1000);
    await sim.stop();
    const diffs = readNodeBlocks(root, 'node_raw_book_diffs_by_block', parseBookDiff);
    const statuses = readNodeBlocks(root, 'node_order_statuses_by_block', (e, n) => parseOrderStatus(e, n));
    const blocks: Block[] = [];
    for (let h = h1 + 1; h <= (sim.stats.lastBlock ?? h1); h++) {
      const d = diffs.get(h) ?? [];
      const s = statuses.get(h) ?? [];
      const time = d[0]?.time ?? s[0]?.time;
      if (time !== undefined) blocks.push({ height: h, time, statuses: s, diffs: d });
    }
    notes.push(
      `mainnet profile: ${int(WARM_S)} s to warm, then ${int(blocks.length)} blocks (${SECONDS} s) made in ${int((performance.now() - simStarted) / 1000)} s`,
    );

    // ---- the real service and its /ws ----
    const bus = new InProcessBus();
    // The books need neither storage nor the node here (their snapshot is loaded below): a pool never connected.
    const pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:9/none' });
    closers.push(() => pool.end());
    const markets = new MarketsService({ pool, upstream: new Upstream('http://127.0.0.1:9/info'), bus });
    closers.push(() => markets.stop());
    const orders = OrderBooks.parseL4Snapshot(wire);
    markets.books.loadSnapshot(orders, h1, t0 + WARM_S * 1000);
    const byActivity = new Map<string, number>();
    for (const b of blocks) for (const d of b.diffs) byActivity.set(d.coin, (byActivity.get(d.coin) ?? 0) + 1);
    const coins = markets.books.coins().sort((a, b) => (byActivity.get(b) ?? 0) - (byActivity.get(a) ?? 0));
    const perBlock = blocks.reduce((n, b) => n + new Set(b.diffs.map((d) => d.coin)).size, 0) / blocks.length;
    notes.push(
      `${int(coins.length)} books, ${int(orders.length)} resting orders; ${perBlock.toFixed(0)} books changed per block on average`,
    );
    const http = createServer();
    const ws = attachWsServer(http, {
      channels: capabilityChannels(MARKETS_CAPABILITIES, markets),
      info: async () => ({ status: 400, body: null }),
      authenticate: async () => ({ key: null }),
    });
    await listen(http);
    closers.push(async () => {
      await ws.close();
      await new Promise((r) => http.close(r));
    });

    // Half on one coin each (over every book, busiest first), half on 50 coins each (windows over the list).
    const subscriptions = Array.from({ length: SUBSCRIBERS }, (_, i) => {
      if (i < SUBSCRIBERS / 2) return { type: 'l2BookDiff', coin: coins[i % coins.length] };
      const from = ((i - SUBSCRIBERS / 2) * 7) % coins.length;
      const window = [...coins, ...coins].slice(from, from + COINS_EACH);
      return { type: 'l2BookDiff', coins: window };
    });

    // What the real server sends, per block and coin (the feed the subscribers share; its frames encoded once).
    const sent = new Map<number, Map<string, Buffer>>();
    const stopCapture = coins.map((coin) =>
      markets.streams
        .l2BookDiff(coin, { nSigFigs: undefined, mantissa: undefined, levels: undefined })
        .subscribe((e) => {
          if (!('bids' in e)) return;
          let frames = sent.get(e.height);
          if (!frames) {
            frames = new Map();
            sent.set(e.height, frames);
          }
          frames.set(coin, encodeFrame('l2BookDiff', e));
        }),
    );

    const real = await runFanout(urlOf(http), subscriptions, blocks, async (b) => {
      await bus.publish('orderStatuses', b.statuses);
      await bus.publish('bookDiffs', b.diffs);
    });
    for (const stop of stopCapture) stop();

    const bare = await serveBareBooks();
    closers.push(() => bare.close());
    const floor = await runFanout(bare.url, subscriptions, blocks, async (b) => bare.publish(sent.get(b.height)));

    const p99 = real.hist.quantile(0.99);
    const floorP99 = floor.hist.quantile(0.99);
    rows.push({
      name: `l2BookDiff ${SUBSCRIBERS} subs, block->client p99`,
      value: ms(p99),
      baseline: `${ms(floorP99)} bare`,
      ratio: (p99 / floorP99).toFixed(2),
      target: `< ${FANOUT_TARGET_MS} ms: ${met(p99 < FANOUT_TARGET_MS)}`,
    });
    rows.push({
      name: '  p50',
      value: ms(real.hist.quantile(0.5)),
      baseline: `${ms(floor.hist.quantile(0.5))} bare`,
      ratio: (real.hist.quantile(0.5) / floor.hist.quantile(0.5)).toFixed(2),
      target: '',
    });
    notes.push(
      `frames measured: ${int(real.hist.total)} (bare ${int(floor.hist.total)}), ${int(real.hist.total / Math.max(1, blocks.length - BLOCKS_UNMEASURED))} a block; max ${ms(real.hist.max)} (bare ${ms(floor.hist.max)}); client threads busy ${Math.round(real.clientBusy * 100)} % (bare ${Math.round(floor.clientBusy * 100)} %); connections lost ${real.lost} (bare ${floor.lost})`,
      `blocks published late (behind their due time by over 10 ms): ${real.late} (bare ${floor.late}); load average at the end ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} cores`,
    );

    // ---- an L4 snapshot of the busiest coin ----
    const busiest = coins.reduce((a, b) =>
      (markets.books.l4(b)?.levels.flat().length ?? 0) > (markets.books.l4(a)?.levels.flat().length ?? 0) ? b : a,
    );
    const snapshotFrame = encodeFrame('l4Book', { Snapshot: markets.books.l4(busiest) });
    bare.snapshot(snapshotFrame);
    const snap = await timeSnapshots(urlOf(http), busiest);
    const snapFloor = await timeSnapshots(bare.url, busiest);
    const sp99 = percentile(snap, 0.99);
    const bp99 = percentile(snapFloor, 0.99);
    rows.push({
      name: `l4Book snapshot ${busiest} p99`,
      value: ms(sp99),
      baseline: `${ms(bp99)} bare`,
      ratio: (sp99 / bp99).toFixed(2),
      target: `< ${SNAPSHOT_TARGET_MS} ms: ${met(sp99 < SNAPSHOT_TARGET_MS)}`,
    });
    notes.push(
      `l4Book ${busiest}: ${int(markets.books.l4(busiest)?.levels.flat().length ?? 0)} orders, ${int(snapshotFrame.length)} B; subscribe to Snapshot frame p50 ${ms(percentile(snap, 0.5))} (bare ${ms(percentile(snapFloor, 0.5))}), ${SNAPSHOT_RUNS} runs one after another`,
    );
  } finally {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch(() => {});
  }
  return { rows, notes };
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
}

const urlOf = (server: Server) => `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`;

/** A plain ws server: acknowledges a subscribe, then writes each block's frames of the coins each client named. */
async function serveBareBooks() {
  const http = createServer();
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false });
  const clients = new Map<WebSocket, string[]>();
  let snapshot: Buffer = Buffer.from('{}');
  wss.on('connection', (socket) => {
    socket.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { method: string; subscription: { coin?: string; coins?: string[] } };
      socket.send(JSON.stringify({ channel: 'subscriptionResponse', data: msg }));
      if (msg.method !== 'subscribe') return;
      if ((msg.subscription as { type?: string }).type === 'l4Book') socket.send(snapshot, { binary: false });
      else clients.set(socket, msg.subscription.coins ?? [msg.subscription.coin as string]);
    });
    socket.on('close', () => clients.delete(socket));
  });
  await listen(http);
  return {
    url: urlOf(http),
    snapshot(frame: Buffer) {
      snapshot = frame;
    },
    publish(frames: Map<string, Buffer> | undefined) {
      if (!frames) return;
      for (const [socket, coins] of clients) {
        // A client's frames of the block in one write, as the real /ws sends them (its session corks the socket).
        const raw = (socket as unknown as { _socket: Duplex })._socket;
        raw.cork();
        for (const coin of coins) {
          const frame = frames.get(coin);
          if (frame) socket.send(frame, { binary: false });
        }
        raw.uncork();
      }
    },
    async close() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Subscribes l4Book to its Snapshot frame and unsubscribes, SNAPSHOT_RUNS times (after 20 untimed): ascending ms. */
async function timeSnapshots(url: string, coin: string): Promise<number[]> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let waiting: ((raw: Buffer) => void) | null = null;
  socket.on('message', (raw: Buffer) => waiting?.(raw));
  const next = (test: (raw: Buffer) => boolean) =>
    new Promise<void>((resolve) => {
      waiting = (raw) => {
        if (test(raw)) resolve();
      };
    });
  const isSnapshot = (raw: Buffer) => raw.subarray(0, 40).includes('"Snapshot"');
  const isAck = (raw: Buffer) => raw.subarray(0, 40).includes('subscriptionResponse');
  const sub = { type: 'l4Book', coin };
  const times: number[] = [];
  for (let i = 0; i < SNAPSHOT_RUNS + 20; i++) {
    const started = performance.now();
    const got = next(isSnapshot);
    socket.send(JSON.stringify({ method: 'subscribe', subscription: sub }));
    await got;
    if (i >= 20) times.push(performance.now() - started);
    const gone = next(isAck);
    socket.send(JSON.stringify({ method: 'unsubscribe', subscription: sub }));
    await gone;
  }
  socket.close();
  return times.sort((a, b) => a - b);
}

interface FanoutResult {
  hist: LatencyHistogram;
  lost: number;
  clientBusy: number;
  /** Blocks whose publication started over 10 ms after their due time (the server behind the chain). */
  late: number;
}

/**
 * Connects the subscribers (over CLIENT_THREADS threads), publishes the blocks at their own pace, tells the clients
 * when each went out, and gathers the delays they measured.
 */
async function runFanout(
  url: string,
  subscriptions: unknown[],
  blocks: Block[],
  publish: (b: Block) => Promise<void>,
): Promise<FanoutResult> {
  const threads: { thread: Thread<ToClients>; result: Promise<ClientsResult> }[] = [];
  const ready: Promise<void>[] = [];
  for (let t = 0; t < CLIENT_THREADS; t++) {
    const share = subscriptions.filter((_, i) => i % CLIENT_THREADS === t);
    let onReady!: () => void;
    let onResult!: (r: ClientsResult) => void;
    let onFail!: (e: Error) => void;
    ready.push(
      new Promise<void>((resolve, reject) => {
        onReady = resolve;
        onFail = reject;
      }),
    );
    const result = new Promise<ClientsResult>((resolve) => {
      onResult = resolve;
    });
    const thread = startThread<ToClients, FromClients>(
      new URL(import.meta.url),
      { role: 'book-clients', url, subscriptions: share } satisfies ClientsJob,
      (m) => (m.type === 'ready' ? onReady() : onResult(m)),
      (err) => onFail(err),
    );
    threads.push({ thread, result });
  }
  await Promise.all(ready);
  await sleep(500);
  const startAt = wallMs();
  const first = blocks[0]?.time ?? 0;
  let late = 0;
  for (const [i, b] of blocks.entries()) {
    const due = startAt + (b.time - first);
    const wait = due - wallMs();
    if (wait > 0) await sleep(wait);
    else if (wait < -10) late++;
    const at = wallMs();
    for (const { thread } of threads)
      thread.post({ type: 'block', height: b.height, at, measured: i >= BLOCKS_UNMEASURED });
    await publish(b);
  }
  await sleep(1000);
  const results = await Promise.all(
    threads.map(async ({ thread, result }) => {
      let r!: ClientsResult;
      await closeThread(
        thread,
        { type: 'stop' },
        result.then((x) => {
          r = x;
        }),
        10_000,
      );
      return r;
    }),
  );
  const hist = new LatencyHistogram();
  for (const r of results) if (r) hist.merge(r);
  return {
    hist,
    lost: results.reduce((n, r) => n + (r?.lost ?? 0), 0),
    clientBusy: Math.max(...results.map((r) => r?.busy ?? 0)),
    late,
  };
}

// ---- the client threads ----

interface ClientsJob {
  role: 'book-clients';
  url: string;
  subscriptions: unknown[];
}
type ToClients = { type: 'block'; height: number; at: number; measured: boolean } | { type: 'stop' };
type ClientsResult = { type: 'result'; lost: number; busy: number } & HistogramData;
type FromClients = { type: 'ready' } | ClientsResult;

const HEIGHT = Buffer.from('"height":');

/** The first `"height":N` of a frame (a diff's own; its prevHeight's key differs), or -1. */
function heightOf(frame: Buffer): number {
  const at = frame.indexOf(HEIGHT);
  if (at < 0) return -1;
  let n = 0;
  let i = at + HEIGHT.length;
  for (; i < frame.length && (frame[i] as number) >= 48 && (frame[i] as number) <= 57; i++)
    n = n * 10 + ((frame[i] as number) - 48);
  return i > at + HEIGHT.length ? n : -1;
}

async function runClients(job: ClientsJob): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const hist = new LatencyHistogram();
  /** Publication time of each measured block; null for the warm-up's. */
  const published = new Map<number, number | null>();
  /** Frames of blocks whose publication time has not come yet: [height, received at]. */
  const early: [number, number][] = [];
  let lost = 0;
  let stopping = false;
  const sockets: WebSocket[] = [];
  let acked = 0;
  const record = (height: number, at: number) => {
    const sentAt = published.get(height);
    if (sentAt === undefined) early.push([height, at]);
    else if (sentAt !== null) hist.add(at - sentAt);
  };
  for (const [i, sub] of job.subscriptions.entries()) {
    const socket = new WebSocket(job.url, { perMessageDeflate: false });
    sockets.push(socket);
    socket.on('message', (raw: RawData) => {
      const at = wallMs();
      const frame = raw as Buffer;
      if (frame.subarray(0, 40).includes('subscriptionResponse')) {
        if (++acked === job.subscriptions.length) port.postMessage({ type: 'ready' } satisfies FromClients);
        return;
      }
      if (frame.includes('"snapshot":true')) return;
      const height = heightOf(frame);
      if (height >= 0) record(height, at);
    });
    socket.on('close', () => {
      if (!stopping) lost++;
    });
    socket.on('error', () => {});
    socket.once('open', () => socket.send(JSON.stringify({ method: 'subscribe', subscription: sub })));
    // Connections opened a few at a time: a thousand at once is a burst no real client load makes.
    if (i % 50 === 49) await sleep(20);
  }
  const elu = performance.eventLoopUtilization();
  port.on('message', (m: ToClients) => {
    if (m.type === 'block') {
      published.set(m.height, m.measured ? m.at : null);
      for (let i = early.length - 1; i >= 0; i--) {
        const [height, at] = early[i] as [number, number];
        if (height === m.height) {
          early.splice(i, 1);
          if (m.measured) hist.add(at - m.at);
        }
      }
      return;
    }
    stopping = true;
    const busy = performance.eventLoopUtilization(elu).utilization;
    for (const s of sockets) s.terminate();
    port.postMessage({
      type: 'result',
      counts: hist.counts,
      overflow: hist.overflow,
      max: hist.max,
      total: hist.total,
      lost,
      busy,
    } satisfies FromClients);
  });
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'book-clients') {
  void runClients(workerData as ClientsJob);
}
