// The markets benchmarks of one run: compat /info against a bare route, candleSnapshot against its SQL, GraphQL
// through the router against the subgraph, and trade latency from the ingest bus to /ws and graphql-ws clients.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { TradeRow } from '../db/rows/markets.ts';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { reportProgress } from '../ingest/progress.ts';
import { Simulator, startNodeInfoServer } from '../ingest/simulator/index.ts';
import { composeSupergraph } from '../router/compose.ts';
import { startRouter } from '../router/server.ts';
import { EPHEMERAL_PORTS, type Stack, startStack } from '../stack.ts';
import { accountsSchema } from '../subgraphs/accounts/schema/index.ts';
import { marketsSchema } from '../subgraphs/markets/schema/index.ts';
import { toWireTrade } from '../subgraphs/markets/service/index.ts';
import { bucketStart } from '../subgraphs/markets/service/intervals.ts';
import { CANDLE_SNAPSHOT_SQL, MAX_CANDLES } from '../subgraphs/markets/service/market-data.ts';
import { startBareFanout } from './bare-fanout.ts';
import { floorNote, startBareRoute } from './bare-route.ts';
import type { BenchServer } from './db.ts';
import { type HttpTarget, sequential, throughput, versusBaseline } from './http-load.ts';
import { LatencyHistogram, percentile } from './stats.ts';
import { type SubscriberProtocol, type SubscriberResult, Subscribers, stampHash, wallMs } from './subscribers.ts';

export interface BenchRow {
  name: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
}

export interface BenchSection {
  rows: BenchRow[];
  notes: string[];
}

export interface MarketsBench {
  stack: Stack;
  pool: pg.Pool;
  /** The database's URL (for api instances started as processes of their own). */
  databaseUrl: string;
  /** The simulated node's /info. */
  upstreamInfoUrl: string;
  bus: InProcessBus;
  /** The in-process trade latency of this run, once measured (the NATS section prints its figures beside it). */
  inProcessTrades?: InProcessTrades;
  close(): Promise<void>;
}

const CONCURRENCY = 32;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
export const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const sleep = (msecs: number) => new Promise((r) => setTimeout(r, msecs));

async function until(ready: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/**
 * A fresh database with 30 simulated minutes of history (trades, books, contexts) loaded by ingest, the node's
 * /info served by the simulator (the books start from its L4 snapshot), and the stack on ephemeral ports.
 */
export async function startMarketsBench(server: BenchServer): Promise<MarketsBench> {
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse())
      await c().catch((err: unknown) => console.error(`markets bench close: ${err}`));
  };
  try {
    const { pool, url: databaseUrl } = await server.freshDatabase('bench_markets');
    closers.push(() => pool.end());
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-markets-'));
    closers.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const sim = new Simulator({ dataDir, seed: 7, fillsPerSecond: 20, blocksPerSecond: 10 });
    closers.push(() => sim.stop());
    const now = Date.now();
    await sim.writeHistory(now - 30 * 60_000, now);
    const nodeInfo = await startNodeInfoServer(sim, { port: 0 });
    closers.push(() => nodeInfo.close());
    const bus = new InProcessBus();
    const ingest = new Ingest({ dataDir, pool, bus, log: () => {} });
    const loading = reportProgress(() => ingest.stats);
    await ingest.run();
    loading.stop();
    // Otherwise autovacuum, or the checkpoint after this load (and the ingest bench's), may run mid-measurement.
    await pool.query('VACUUM ANALYZE');
    await pool.query('CHECKPOINT');
    const stack = await startStack({
      pool,
      bus,
      upstreamInfoUrl: `${nodeInfo.url}/info`,
      ports: EPHEMERAL_PORTS,
      upstreamTimeoutMs: 5000,
      log: (line) => console.error(line),
    });
    closers.push(() => stack.close());
    return { stack, pool, databaseUrl, upstreamInfoUrl: `${nodeInfo.url}/info`, bus, close };
  } catch (err) {
    await close();
    throw err;
  }
}

// ---- 1. compat /info against a bare fastify route serving the same bytes ----

export async function benchCompatInfo(b: MarketsBench): Promise<BenchSection> {
  const requests = [
    { label: 'allMids', body: { type: 'allMids' } },
    { label: 'l2Book BTC', body: { type: 'l2Book', coin: 'BTC' } },
  ];
  const compatInfo = `${b.stack.urls.compat}/info`;
  const answers = new Map<string, string>();
  for (const r of requests) {
    const { status, text } = await postJson(compatInfo, r.body);
    if (status !== 200 || text === 'null' || text.length < 50) throw new Error(`compat ${r.label}: ${status} ${text}`);
    answers.set(r.body.type, text);
  }
  const bare = await startBareRoute(answers);
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    for (const r of requests) {
      const load = { concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
      const compat = await throughput({ url: compatInfo, body: JSON.stringify(r.body) }, load);
      const baseline = await throughput({ url: bare.url, body: JSON.stringify(r.body) }, load);
      const ratio = compat.requestsPerS / baseline.requestsPerS;
      rows.push({
        name: `compat ${r.label} c=${CONCURRENCY}`,
        value: `${int(compat.requestsPerS)} req/s`,
        baseline: `${int(baseline.requestsPerS)} bare`,
        ratio: ratio.toFixed(2),
        target: `>= 0.50 of bare: ${met(ratio >= 0.5)}`,
      });
      notes.push(
        `${r.label}: ${int(compat.avgBytes)} B per answer; errors compat ${compat.errors}, bare ${baseline.errors}` +
          (compat.firstError ? ` (${compat.firstError})` : ''),
      );
    }
  } finally {
    await bare.close();
  }
  return { rows, notes };
}

// ---- 2. candleSnapshot of 5000 candles, end to end, against the SQL behind it ----

const CANDLE_COIN = 'BENCHCANDLE';
const CANDLES = 6000;
const CANDLE_RUNS = 60;
const CANDLE_ROUNDS = 4;

export async function benchCandleSnapshot(b: MarketsBench): Promise<BenchSection> {
  const minute = 60_000;
  const last = bucketStart('1m', Date.now()) - minute;
  // Prices around 90 000 with realistic decimals, so the numeric → text conversions cost what they do live.
  await b.pool.query(
    `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n, closed, reconciled)
     SELECT $1, '1m', t, t + 59999, 90000 + (i % 97) * 1.5, 90050 + (i % 89) * 1.5, 89950 + (i % 83) * 1.5,
       90010 + (i % 79) * 1.5, round((i % 113) * 0.01731 + 0.5, 5), 10 + i % 50, true, true
     FROM generate_series(0, $2::int - 1) AS i, LATERAL (SELECT $3::bigint - i::bigint * 60000 AS t) bucket
     ON CONFLICT DO NOTHING`,
    [CANDLE_COIN, CANDLES, last],
  );
  await b.pool.query('ANALYZE markets.candles');
  const startTime = last - (CANDLES - 1) * minute;
  const endTime = Date.now();
  const body = { type: 'candleSnapshot', req: { coin: CANDLE_COIN, interval: '1m', startTime, endTime } };
  const target: HttpTarget = { url: `${b.stack.urls.compat}/info`, body: JSON.stringify(body) };
  const check = await postJson(target.url, body);
  const candles = check.status === 200 ? (JSON.parse(check.text) as unknown[]) : [];
  if (candles.length !== MAX_CANDLES) {
    throw new Error(`candleSnapshot returned ${candles.length} candles: ${check.status}`);
  }

  const params = [CANDLE_COIN, '1m', bucketStart('1m', startTime), endTime];
  const runs = await versusBaseline(target, () => b.pool.query(CANDLE_SNAPSHOT_SQL, params), {
    rounds: CANDLE_ROUNDS,
    perRound: CANDLE_RUNS / CANDLE_ROUNDS,
    warmup: 5,
  });
  const sqlTimes = runs.base;
  const e2e = { p50Ms: percentile(runs.e2e, 0.5), p99Ms: percentile(runs.e2e, 0.99), avgBytes: runs.avgBytes };
  const sqlP50 = percentile(sqlTimes, 0.5);
  const ratio = e2e.p50Ms / sqlP50;
  const floors = await floorNote(body, check.text, () => b.pool.query(CANDLE_SNAPSHOT_SQL, params), sqlP50);
  return {
    rows: [
      {
        name: `candleSnapshot ${MAX_CANDLES} 1m (p50)`,
        value: ms(e2e.p50Ms),
        baseline: `${ms(sqlP50)} SQL`,
        ratio: ratio.toFixed(2),
        target: `<= 1.5 x SQL: ${met(ratio <= 1.5)}`,
      },
    ],
    notes: [
      `${CANDLE_RUNS} sequential runs each, in ${CANDLE_ROUNDS} alternating rounds; end to end = compat POST /info from a worker thread (${int(e2e.avgBytes)} B), ` +
        `SQL = the same SELECT through pg (rows parsed); p99 ${ms(e2e.p99Ms)} vs ${ms(percentile(sqlTimes, 0.99))}`,
      floors,
    ],
  };
}

// ---- 3. a markets query through the router against the subgraph directly ----

const MARKET_QUERY = '{ market(coin:"BTC") { mid trades(limit: 50) { px sz time users { address } } } }';
const QUERY_RUNS = 300;
const QUERY_ROUNDS = 3;

export async function benchRouter(b: MarketsBench): Promise<BenchSection> {
  const { markets } = b.stack;
  // The same supergraph as the stack's router, so that only the merging setting differs.
  const supergraphSdl = composeSupergraph([
    { name: 'markets', url: b.stack.urls.markets, schema: marketsSchema },
    { name: 'accounts', url: b.stack.urls.accounts, schema: accountsSchema },
  ]);
  const routers: { close(): Promise<void> }[] = [];
  // Each execution of the query on the subgraph reads trades once: counting those calls shows what merging saved.
  const readTrades = markets.trades;
  let subgraphExecutions = 0;
  markets.trades = (q) => {
    subgraphExecutions++;
    return readTrades.call(markets, q);
  };
  try {
    const targets: { label: string; url: string; merging: boolean | null }[] = [
      { label: 'subgraph', url: b.stack.urls.markets, merging: null },
    ];
    const variants = [
      { passThrough: true, merging: true },
      { passThrough: false, merging: true },
      { passThrough: false, merging: false },
    ];
    for (const { passThrough, merging } of variants) {
      const router = await startRouter({
        supergraphSdl,
        port: 0,
        auth: b.stack.auth,
        deduplicateInflightRequests: merging,
        passThrough,
      });
      routers.push(router);
      const label = `router, pass-through ${passThrough ? 'on' : 'off'}, merging ${merging ? 'on' : 'off'}`;
      targets.push({ label, url: router.url, merging });
    }
    const body = JSON.stringify({ query: MARKET_QUERY });
    let expected: string | null = null;
    for (const t of targets) {
      const { status, text } = await postJson(t.url, { query: MARKET_QUERY });
      const parsed = JSON.parse(text) as { data?: { market?: { trades?: unknown[] } }; errors?: unknown };
      if (status !== 200 || parsed.errors || parsed.data?.market?.trades?.length !== 50) {
        throw new Error(`${t.label}: ${status} ${text.slice(0, 300)}`);
      }
      if (expected !== null && text !== expected) throw new Error(`${t.label}: a different answer than the subgraph`);
      expected = text;
    }

    const loads = [];
    for (const t of targets) {
      const before = subgraphExecutions;
      const load = await throughput(
        { url: t.url, body },
        { concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS },
      );
      loads.push({ ...t, load, executions: subgraphExecutions - before });
    }
    // Sequential latency in interleaved rounds, so that no target gets all the cold (or all the warm) minutes.
    const times = targets.map((): number[] => []);
    for (let round = 0; round < QUERY_ROUNDS; round++) {
      for (const [i, t] of targets.entries()) {
        const r = await sequential({ url: t.url, body }, { warmup: 30, requests: QUERY_RUNS / QUERY_ROUNDS });
        times[i]?.push(...r.times);
      }
    }
    const measured = loads.map((l, i) => {
      const sorted = (times[i] ?? []).sort((a, b) => a - b);
      return { ...l, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
    });
    const [direct, ...viaRouter] = measured;
    if (!direct) throw new Error('no direct measurement');
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    for (const r of viaRouter) {
      const ratio = r.load.requestsPerS / direct.load.requestsPerS;
      rows.push({
        name: `GraphQL ${r.label} c=${CONCURRENCY}`,
        value: `${int(r.load.requestsPerS)} req/s`,
        baseline: `${int(direct.load.requestsPerS)} direct`,
        ratio: ratio.toFixed(2),
        target: 'none set (router overhead)',
      });
    }
    for (const r of viaRouter) {
      const ratio = r.p50Ms / direct.p50Ms;
      rows.push({
        name: `GraphQL ${r.label} p50 seq`,
        value: ms(r.p50Ms),
        baseline: `${ms(direct.p50Ms)} direct`,
        ratio: ratio.toFixed(2),
        target: 'none set (router overhead)',
      });
    }
    for (const r of measured) {
      // Executions are counted over warm-up and measurement, the requests the worker counted over measurement only.
      const perRequest = r.executions / (r.load.requestsPerS * ((WARMUP_MS + DURATION_MS) / 1000));
      notes.push(
        `${r.label}: ~${perRequest.toFixed(2)} subgraph executions per client request under load; ` +
          `errors under load ${r.load.errors}${r.load.firstError ? ` (${r.load.firstError})` : ''}; ` +
          `p99 seq ${ms(r.p99Ms)}`,
      );
    }
    notes.push(
      `query: ${MARKET_QUERY} (${int(direct.load.avgBytes)} B); merging = deduplicateInflightRequests; ` +
        "pass-through = the subgraph's answer bytes for a query planned as one fetch (router/pass-through.ts)",
    );
    return { rows, notes };
  } finally {
    markets.trades = readTrades;
    for (const r of routers) await r.close().catch(() => {});
  }
}

// ---- 4. trade latency from the ingest bus to /ws and graphql-ws clients ----

export const TRADES_PER_S = 1000;
export const BLOCK_MS = 100;
export const MEASURE_MS = 10_000;
export const LATENCY_TARGET_MS = 50;
const GRAPHQL_SUBSCRIPTION = 'subscription { trades(coin: "BTC") { px time hash tid } }';
/** The /ws subscription (the bare baseline acknowledges it the same way). */
const TRADES_CHANNEL = { type: 'trades', coin: 'BTC' };

/** Synthetic BTC trades published at a fixed rate (on the ingest bus, or to the bare baseline), one batch per block. */
class TradePublisher {
  private timer: NodeJS.Timeout | null = null;
  private phaseStart = 0;
  /** Trades published in this phase, and trades skipped because the timer ran late. */
  private sentInPhase = 0;
  private skippedInPhase = 0;
  private measuring = false;
  private block = 1_000_000_000;
  private tid = 1;
  measuredTrades = 0;
  measuredMs = 0;

  constructor(private readonly publish: (trades: TradeRow[]) => void) {}

  /** (Re)starts the clock of a phase: warm-up trades are not counted by the clients. */
  begin(measuring: boolean): void {
    this.stop();
    this.measuring = measuring;
    this.phaseStart = performance.now();
    this.sentInPhase = 0;
    this.skippedInPhase = 0;
    this.timer = setInterval(() => this.tick(), BLOCK_MS);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    if (this.measuring) {
      this.measuredTrades = this.sentInPhase;
      this.measuredMs = performance.now() - this.phaseStart;
    }
  }

  private tick(): void {
    // A late timer publishes what is due, but at most two blocks' worth: a stalled server is not fed a burst that
    // stalls it further, and the rate it really sustained is reported instead.
    const perBlock = (TRADES_PER_S * BLOCK_MS) / 1000;
    const owed =
      Math.floor(((performance.now() - this.phaseStart) * TRADES_PER_S) / 1000) -
      this.sentInPhase -
      this.skippedInPhase;
    const due = Math.min(owed, 2 * perBlock);
    if (due <= 0) return;
    this.skippedInPhase += owed - due;
    const block = this.block++;
    const at = wallMs();
    const hash = stampHash(this.measuring, at);
    const trades: TradeRow[] = [];
    for (let seq = 0; seq < due; seq++) {
      trades.push({
        block_number: block,
        seq,
        time: Math.floor(at),
        coin: 'BTC',
        side: seq % 2 ? 'A' : 'B',
        px: (90_000 + (seq % 40) * 0.5).toFixed(1),
        sz: '0.01234',
        hash,
        tid: this.tid++,
        buyer: '0x56fb916e2767e1048b78e3c76532b8b104febc76',
        seller: '0x7f34dc766b0ea373eefd9a03beb46df2898d88d4',
        fees: '0.5',
      });
    }
    this.sentInPhase += due;
    this.publish(trades);
  }
}

/** One group of clients: `count` of them over `protocol`, each with the same subscription. */
interface Audience {
  label: string;
  protocol: SubscriberProtocol;
  /** The server, or several (client i on the i-th). */
  url: string | readonly string[];
  count: number;
  subscription: unknown;
}

interface Heard {
  audience: Audience;
  histogram: LatencyHistogram;
  result: SubscriberResult;
  /** Every client received every measured trade. */
  complete: boolean;
}

export interface TradeRun {
  heard: Heard[];
  expected: number;
  measuredMs: number;
  /** Event-loop delay of this thread while measuring (p99 and max, ms). */
  loopP99: number;
  loopMax: number;
}

/**
 * Connects the audiences (each in its own client thread), publishes warm-up trades until every client has seen one,
 * goes on for `settleMs`, then publishes MEASURE_MS of measured trades and collects what each client received.
 * `measuring` brackets the measured phase (the caller samples its threads' busy share there).
 */
export async function measureTrades(
  publish: (trades: TradeRow[]) => void,
  audiences: Audience[],
  measuring: (phase: 'start' | 'end') => void = () => {},
  settleMs = 1000,
): Promise<TradeRun> {
  const publisher = new TradePublisher(publish);
  const subscribers: { audience: Audience; subs: Subscribers }[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    for (const audience of audiences) {
      const { protocol, url, count, subscription } = audience;
      subscribers.push({ audience, subs: await Subscribers.start(protocol, url, count, subscription, 60_000) });
    }
    // graphql-ws never acknowledges a subscription: warm up until every client has seen a trade.
    publisher.begin(false);
    const live = await until(() => subscribers.every(({ subs }) => subs.live === subs.count), 30_000);
    if (!live) {
      const seen = subscribers.map(({ audience, subs }) => `${audience.label} ${subs.live}/${subs.count}`).join(', ');
      const errors = [];
      for (const { subs } of subscribers) errors.push(...(await subs.stop().catch(() => ({ errors: [] }))).errors);
      throw new Error(`not every client got a warm-up trade (${seen}): ${errors.join(' | ')}`);
    }
    await sleep(settleMs);
    publisher.begin(true);
    loop.enable();
    measuring('start');
    await sleep(MEASURE_MS);
    measuring('end');
    publisher.stop();
    const expected = publisher.measuredTrades;
    await until(
      () => subscribers.every(({ subs }) => subs.received >= expected * subs.count || subs.failed !== null),
      15_000,
    );
    loop.disable();
    const heard: Heard[] = [];
    for (const { audience, subs } of subscribers) {
      const result = await subs.stop();
      heard.push({
        audience,
        result,
        histogram: LatencyHistogram.from(result),
        complete: result.total === expected * subs.count,
      });
    }
    return {
      heard,
      expected,
      measuredMs: publisher.measuredMs,
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
    };
  } finally {
    publisher.stop();
    loop.disable();
    for (const { subs } of subscribers) await subs.stop(1000).catch(() => {});
  }
}

/** The bench's clients: `ws` on /ws (or its floor), `graphqlWs` through the router (or its floor). */
export function tradeAudiences(
  clients: { ws: number; graphqlWs: number },
  urls: { ws: string | readonly string[]; graphqlWs: string | readonly string[] },
): Audience[] {
  const all: Audience[] = [
    { label: '/ws', protocol: 'ws', url: urls.ws, count: clients.ws, subscription: TRADES_CHANNEL },
    {
      label: 'graphql-ws (router)',
      protocol: 'graphql-ws',
      url: urls.graphqlWs,
      count: clients.graphqlWs,
      subscription: GRAPHQL_SUBSCRIPTION,
    },
  ];
  return all.filter((a) => a.count > 0);
}

type EventLoopUse = ReturnType<typeof performance.eventLoopUtilization>;

/** Busy shares (event-loop utilization) of named threads over measureTrades' measured phase. */
function busyShares(threads: Record<string, (from?: EventLoopUse) => EventLoopUse>) {
  const from: Record<string, EventLoopUse> = {};
  const shares: Record<string, number> = {};
  const measuring = (phase: 'start' | 'end') => {
    for (const [name, use] of Object.entries(threads)) {
      if (phase === 'start') from[name] = use();
      else shares[name] = use(from[name]).utilization;
    }
  };
  return { shares, measuring };
}

export const percent = (share: number | undefined) => `${Math.round((share ?? 0) * 100)} %`;

/**
 * The router loads its supergraph on its first HTTP request; a graphql-ws subscription arriving before any fails
 * with "Expected null to be a GraphQL schema", so the router gets one query first.
 */
export async function warmRouter(routerUrl: string): Promise<void> {
  const warm = await postJson(routerUrl, { query: '{ __typename }' });
  if (warm.status !== 200) throw new Error(`router: ${warm.status} ${warm.text}`);
}

export interface InProcessTrades {
  clients: { ws: number; graphqlWs: number };
  run: TradeRun;
  /** Busy shares of the main thread and the router thread while measuring. */
  busy: Record<'main' | 'router', number>;
}

/** Trades on the stack's in-process bus to its /ws and graphql-ws clients; kept on the fixture for later sections. */
export async function measureInProcessTrades(
  b: MarketsBench,
  clients: { ws: number; graphqlWs: number },
): Promise<InProcessTrades> {
  await warmRouter(b.stack.urls.router);
  const busy = busyShares({
    main: (from) => performance.eventLoopUtilization(from),
    router: (from) => b.stack.routerEventLoop(from),
  });
  const run = await measureTrades(
    (trades) => b.bus.publish('trades', trades),
    tradeAudiences(clients, { ws: b.stack.urls.ws, graphqlWs: b.stack.urls.router.replace(/^http/, 'ws') }),
    busy.measuring,
  );
  b.inProcessTrades = { clients, run, busy: { main: busy.shares.main ?? 0, router: busy.shares.router ?? 0 } };
  return b.inProcessTrades;
}

/** A trade's path from the ingest bus to /ws and graphql-ws clients, beside the bare fan-out of the same frames. */
export async function benchTradeLatency(
  b: MarketsBench,
  clients: { ws: number; graphqlWs: number } = { ws: 500, graphqlWs: 500 },
): Promise<BenchSection> {
  const bare = await startBareFanout();
  let floor: TradeRun;
  try {
    floor = await measureTrades(
      (trades) => bare.publish(trades.map(toWireTrade)),
      tradeAudiences(clients, { ws: bare.wsUrl, graphqlWs: bare.graphqlWsUrl }),
    );
  } finally {
    await bare.close();
  }
  const { run, busy } = await measureInProcessTrades(b, clients);

  const rows: BenchRow[] = [];
  const notes = [
    `offered ${int(TRADES_PER_S)} trades/s in blocks every ${BLOCK_MS} ms; published ${int(run.expected)} in ` +
      `${(run.measuredMs / 1000).toFixed(1)} s (${int((run.expected * 1000) / run.measuredMs)}/s: ` +
      'blocks due while the event loop was late are skipped, and that wait is not in the latencies) to ' +
      `${clients.ws} /ws + ${clients.graphqlWs} graphql-ws clients at once (each in its worker thread); ` +
      `server event-loop delay p99 ${ms(run.loopP99)}, max ${ms(run.loopMax)}; ` +
      `busy: main thread ${percent(busy.main)} (ingest bus, subgraphs, compat), router thread ` +
      `${percent(busy.router)}; ` +
      `graphql-ws: ${GRAPHQL_SUBSCRIPTION} (hash carries the publish time)`,
    'baseline "bare": the same frames to the same clients from plain ws servers, /ws on the main thread and ' +
      'graphql-ws on a worker thread that gets each block first, with nothing in between (bench/bare-fanout.ts): ' +
      floor.heard
        .map(
          ({ audience, histogram: h, complete }) =>
            `${audience.label} p50 ${ms(h.quantile(0.5))}, p99 ${ms(h.quantile(0.99))}, max ${ms(h.max)}` +
            (complete ? '' : ' (INCOMPLETE: some clients missed trades)'),
        )
        .join('; '),
  ];
  for (const [i, { audience, histogram: h, result: r, complete }] of run.heard.entries()) {
    const p99 = h.quantile(0.99);
    const floorP99 = floor.heard[i]?.histogram.quantile(0.99) ?? Number.NaN;
    rows.push({
      name: `trade bus -> ${audience.label} p99`,
      value: ms(p99),
      baseline: `bare ${ms(floorP99)}`,
      ratio: (p99 / floorP99).toFixed(2),
      target: `p99 < ${LATENCY_TARGET_MS} ms: ${met(p99 < LATENCY_TARGET_MS && complete)}`,
    });
    notes.push(
      `${audience.label}: ${audience.count} clients, p50 ${ms(h.quantile(0.5))}, p99 ${ms(p99)}, max ${ms(h.max)}; ` +
        `received ${int(r.total)} of ${int(run.expected * audience.count)} trade events (fewest per client ` +
        `${int(r.minPerClient)}); client thread busy ${Math.round(r.clientBusy * 100)} %` +
        (r.lost ? `; ${r.lost} connections lost` : '') +
        (r.errors.length ? `; ${r.errors.join(' | ')}` : ''),
    );
  }
  return { rows, notes };
}

/** The sections in the order they run, with the header line each prints. */
export const MARKETS_SECTIONS: { title: string; run: (b: MarketsBench) => Promise<BenchSection> }[] = [
  {
    title: `compat POST /info vs a bare fastify route with the same bytes (${CONCURRENCY} keep-alive connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s, load from a worker thread)`,
    run: benchCompatInfo,
  },
  {
    title: `candleSnapshot of ${MAX_CANDLES} 1m candles: compat end to end vs the SQL behind it (sequential, p50 of ${CANDLE_RUNS})`,
    run: benchCandleSnapshot,
  },
  {
    title: `markets GraphQL query via the router (pass-through and merging on; pass-through off; both off) vs the subgraph directly (c=${CONCURRENCY}; p50 of ${QUERY_RUNS} sequential in ${QUERY_ROUNDS} interleaved rounds)`,
    run: benchRouter,
  },
  {
    title: `trade latency from the ingest bus to subscribers (${TRADES_PER_S} trades/s, ${MEASURE_MS / 1000} s measured)`,
    run: (b) => benchTradeLatency(b),
  },
];
