// The markets benchmarks of one run: compat /info against a bare route, candleSnapshot against its SQL, GraphQL
// through the router against the subgraph, trade latency from the ingest bus to /ws and graphql-ws clients
// (trade-latency.ts), and the HIP-3 snapshots from their rollup against the scan of every trade it replaced.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { accountsSchema } from '../domains/accounts/schema/index.ts';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { HIP3_SCAN_SQL, Hip3Rollup, hip3TradeTotals } from '../domains/markets/service/hip3.ts';
import { bucketStart } from '../domains/markets/service/intervals.ts';
import { CANDLE_SNAPSHOT_SQL, MAX_CANDLES } from '../domains/markets/service/market-data.ts';
import { fillStep } from '../domains/markets/writer/hip3-fill.ts';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { reportProgress } from '../ingest/progress.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { startNodeInfoServer } from '../ingest/simulator/node-info.ts';
import { composeSupergraph } from '../router/compose.ts';
import { startRouter } from '../router/server.ts';
import { EPHEMERAL_PORTS, type Stack, startStack } from '../stack.ts';
import { floorNote, startBareRoute } from './bare-route.ts';
import type { BenchServer } from './db.ts';
import { type HttpTarget, sequential, throughput, versusBaseline } from './http-load.ts';
import { type BenchRow, type BenchSection, int, met, ms, postJson } from './section.ts';
import { percentile, timeSequential } from './stats.ts';
import { benchTradeLatency, type InProcessTrades, MEASURE_MS, TRADES_PER_S } from './trade-latency.ts';

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
        target: `>= 0.90 of bare: ${met(ratio >= 0.9)}`,
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

// ---- 5. /hip3/snapshots and /hip3/top-movers over 2 M HIP-3 trades: the rollup against the scan it replaced ----

const HIP3_TRADES = Number(process.env.BENCH_HIP3_TRADES ?? 2_000_000);
/** Mainnet's HIP-3 share of its trades (a quarter of ~3.2 M a day): ~33 000 an hour, so 2 M are 60 hours of them. */
const HIP3_TRADES_PER_HOUR = 33_000;
const HIP3_COINS = 40;
const HIP3_READS = 200;
const HIP3_SCANS = 5;

export async function benchHip3Snapshots(b: MarketsBench): Promise<BenchSection> {
  const hour = 3_600_000;
  // They end an hour before the simulated history, before any candle: a start's candle backfill never reads them.
  const end = Math.floor(Date.now() / hour) * hour - hour;
  const span = Math.ceil(HIP3_TRADES / HIP3_TRADES_PER_HOUR) * hour;
  const loadStart = performance.now();
  // 40 coins on 8 dexes, coin k carrying a share growing with k (the busiest ~5 %, as mainnet's are uneven); prices
  // and sizes with the decimals of real ones.
  await b.pool.query(
    `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
     SELECT i / 20, i % 20, $1::bigint + (i::bigint * $2::bigint) / $3::int, 'bench' || (k % 8) || ':C' || k,
       CASE WHEN i % 2 = 0 THEN 'B' ELSE 'A' END, round(100 + k * 10 + (i % 97) * 0.01, 2),
       round(((i % 113) + 1) * 0.001, 3), '0xbench', 1000000000000 + i, '0xb', '0xs', round(((i % 53) - 10) * 0.0001, 4)
     FROM generate_series(0, $3::int - 1) AS i, LATERAL (SELECT floor(sqrt((i::bigint * 7919) % ($4::int * $4::int)))::int AS k) c`,
    [end - span, span, HIP3_TRADES, HIP3_COINS],
  );
  await b.pool.query('ANALYZE markets.trades');
  const loadS = (performance.now() - loadStart) / 1000;
  // As a database migrated with these trades stored: the rollup's fill sums them (domains/markets/writer/).
  await b.pool.query('INSERT INTO markets.hip3_trade_fill DEFAULT VALUES ON CONFLICT DO NOTHING');
  const fillStart = performance.now();
  let filled = 0;
  for (let step = await fillStep(b.pool); step; step = await fillStep(b.pool)) filled += step.trades;
  const fillS = (performance.now() - fillStart) / 1000;
  await b.pool.query('VACUUM ANALYZE markets.hip3_trade_hours, markets.hip3_trade_totals');

  // The answers are the same either way (checked here too), at one instant: the window starting an hour before the
  // data ends, 59 minutes into an hour (the most of it read as the part hour's trades).
  const sorted = (rows: { coin: string }[]) => rows.sort((x, y) => (x.coin < y.coin ? -1 : 1));
  const at = (minute: number) => end - hour + minute * 60_000 + 86_400_000;
  const rollup = new Hip3Rollup();
  const sums = (now: number, state = rollup) => hip3TradeTotals(b.pool, now, state);
  const scanAt = (now: number) => b.pool.query(HIP3_SCAN_SQL, [now - 86_400_000]);
  const worst = at(59);
  if (JSON.stringify(sorted(await sums(worst))) !== JSON.stringify(sorted((await scanAt(worst)).rows))) {
    throw new Error('the rollup and the scan differ');
  }
  const byPart = new Map<number, number[]>();
  for (const minute of [1, 30, 59]) byPart.set(minute, await timeSequential(() => sums(at(minute)), 5, HIP3_READS));
  // A call that reads its part hour's trades (a service's first call in each hour).
  const hourRead = await timeSequential(() => sums(worst, new Hip3Rollup()), 1, 10);
  const scan = await timeSequential(() => scanAt(worst), 1, HIP3_SCANS);
  const e2e = async (path: string) => {
    const url = `${b.stack.urls.compat}${path}`;
    const r = await sequential({ url, body: '', method: 'GET' }, { warmup: 20, requests: HIP3_READS });
    if (r.errors) throw new Error(`${path}: ${r.firstError}`);
    return r.times.sort((x, y) => x - y);
  };
  const snapshots = await e2e('/hip3/snapshots');
  const movers = await e2e('/hip3/top-movers?limit=10');
  const p = (times: number[]) => `p50 ${ms(percentile(times, 0.5))}, p99 ${ms(percentile(times, 0.99))}`;
  const scanP50 = percentile(scan, 0.5);
  const row = (name: string, times: number[]): BenchRow => ({
    name,
    value: ms(percentile(times, 0.99)),
    baseline: `${ms(scanP50)} scan`,
    ratio: (percentile(times, 0.99) / scanP50).toFixed(3),
    target: `p99 <= 50 ms: ${met(percentile(times, 0.99) <= 50)}`,
  });
  const part = (minute: number) => byPart.get(minute) ?? [];
  return {
    rows: [
      row('/hip3/snapshots e2e (p99)', snapshots),
      row('/hip3/top-movers e2e (p99)', movers),
      row('HIP-3 sums from the rollup (p99)', part(59)),
    ],
    notes: [
      `${int(HIP3_TRADES)} HIP-3 trades of ${HIP3_COINS} coins over ${span / hour} h (~${int(HIP3_TRADES_PER_HOUR)} an hour, mainnet's HIP-3 rate), inserted in ${loadS.toFixed(1)} s`,
      `the fill of the rollup from them (as after the migration on a database holding them): ${int(filled)} trades in ${fillS.toFixed(1)} s (${int(filled / fillS)} trades/s)`,
      `${HIP3_READS} sequential reads each: /hip3/snapshots ${p(snapshots)}; /hip3/top-movers ${p(movers)} (the window as the clock has it)`,
      `the sums (hip3TradeTotals) with the window 1, 30 and 59 minutes into an hour: ${[1, 30, 59].map((m) => p(part(m))).join('; ')}; a call reading its part hour's trades (once an hour per service): ${p(hourRead)}`,
      `baseline: the scan the snapshots ran before (${HIP3_SCANS} runs): ${p(scan)}; the answers are equal`,
    ],
  };
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
  {
    // Last: the other sections measure the fixture as it was.
    title: `hip3 snapshots and top movers over ${int(HIP3_TRADES)} HIP-3 trades: the rollup vs the scan it replaced (sequential; BENCH_HIP3_TRADES)`,
    run: benchHip3Snapshots,
  },
];
