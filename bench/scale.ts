// Mainnet's size, day after day (issue 39 item 4, `BENCH_ONLY=scale`): N mainnet-shaped days (BENCH_SCALE_DAYS,
// default 5; BENCH_SCALE_FILLS_PER_DAY, default 6 500 000) loaded into a fresh database one UTC day at a time, the
// last ending at today's 00:00 UTC. The large tables are generated in SQL (storage.ts's fill generator; per fill half
// a trade; every open position funded every hour; ledger updates; the order statuses retention keeps of a closed
// day); what is derived from them is made by the product's own code, timed: the analytics derivation
// (`derive -- rebuild`'s deriveStored), the accounts writer's fill of the account state and the markets writer's fill
// of the HIP-3 rollup (their `catchUp`, as `npm run import` runs them), and the candles (the markets service's start).
// At days 1, 3 and 5 (those that exist for a smaller N): bytes per row of each large table, and p50/p99 of the key
// reads under 20 concurrent callers through the real HTTP service, beside day 1's. After the last: the simulator's
// mainnet profile writes a window of node files with a cascade minute, which ingest loads into the full database.
//
// The default size does not run in well under an hour on 2 cores (measured 2026-12-02 at 200 000 fills a day: the
// rows generate at ~6 600 fills/s with the rest of their day, the analytics derivation read 1 700 perp fills/s over
// day 1 and 770 over days 2-3, and the account state fill walks every stored fill again at each checkpoint at ~1 600/s):
// 5 mainnet days take about a day. Run it smaller to see the shape (BENCH_SCALE_DAYS=3
// BENCH_SCALE_FILLS_PER_DAY=200000: ~30 min), full size on a machine that can spare one.

import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { DAY_MS, makePartitions, PARTITIONED } from '../db/partitions.ts';
import { perpFillsBefore, storedEventsEnd } from '../domains/accounts/port.ts';
import { userFillsSql } from '../domains/accounts/service/fills.ts';
import { catchUp as accountStateCatchUp } from '../domains/accounts/writer/index.ts';
import { derivedUntil } from '../domains/analytics/writer/job.ts';
import { deriveStored } from '../domains/analytics/writer/rebuild.ts';
import { catchUp as hip3CatchUp } from '../domains/markets/writer/index.ts';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import type { WriterDeps } from '../kit/domain.ts';
import type { Address } from '../platform/fields.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import type { BenchServer } from './db.ts';
import { concurrent, type HttpTarget, type LatencyResult } from './http-load.ts';
import { type BenchRow, type BenchSection, int, met, ms } from './section.ts';
import { percentile, timeSequential } from './stats.ts';
import {
  BUSIEST_MAKER,
  HIP3_DEXES,
  mainnetFillsSql,
  makerAddressSql,
  randomOf as r,
  traderAddressSql,
} from './storage.ts';

const DAYS = Math.max(1, Number(process.env.BENCH_SCALE_DAYS ?? 5));
const FILLS_PER_DAY = Number(process.env.BENCH_SCALE_FILLS_PER_DAY ?? 6_500_000);
/** Minutes of node files the simulator writes for the ingest measure (a cascade minute in the middle). */
const INGEST_MINUTES = Number(process.env.BENCH_SCALE_INGEST_MINUTES ?? 10);
const CHECKPOINTS = [...new Set([1, 3, 5].filter((d) => d <= DAYS).concat(DAYS))];
const MAINNET_FILLS_PER_DAY = 6_500_000;
const PUBLIC_HISTORY_FILLS = 3e9;
const HOUR_MS = 3_600_000;
const CALLERS = 20;
const REQUESTS = 400;
/** A read far slower than its bound is measured on the requests that fit in this (each times out after 10 s). */
const READ_MAX_MS = 60_000;
/** The most traded coins by name (rank 0 is BTC); the rest `COIN<k>`. */
/** Perps per HIP-3 dex (mainnet-volumes.md: ≥ 6 dexes; the simulator's profile lists 10 each). */
const HIP3_PER_DEX = 10;
const NAMES = ['BTC', 'ETH', 'SOL', 'HYPE', 'XRP', 'DOGE', 'SUI', 'AVAX', 'LINK', 'BNB'];
/** Per fill (mainnet-volumes.md §1): ~3.5 M funding rows a day; ~0.2 M ledger updates; order statuses kept (E). */
const FUNDING_PER_FILL = 3.5 / 6.5;
const LEDGER_PER_FILL = 0.03;
/** After a day, retention keeps the orders that filled (db/partitions.ts): their open and filled rows, ~1 per fill (E). */
const KEPT_STATUSES_PER_FILL = 1;
const FILL_BATCH = 250_000;
/** The tables that grow with the market, with the rows per fill they get. */
const LARGE_TABLES = [
  'accounts.fills',
  'markets.trades',
  'accounts.funding_payments',
  'accounts.ledger_updates',
  'accounts.order_statuses',
] as const;

const fmtS = (s: number) => `${s.toFixed(1)} s`;
const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

/** Fill i of a day starts at day + i × 24 h / F: ascending, the day's rows inside it. */
const timeOf = (day: number, i: number) => day + Math.floor((i * DAY_MS) / FILLS_PER_DAY);

/** One day's rows: fills with their trades, funding every hour, ledger updates, the kept order statuses. */
async function loadDay(pool: pg.Pool, dayIndex: number, day: number): Promise<void> {
  for (const p of PARTITIONED) await makePartitions(pool, new Map([[p.table, { min: day, max: day + DAY_MS - 1 }]]));
  const first = dayIndex * FILLS_PER_DAY;
  const fills = mainnetFillsSql({
    time: `${day} + (g - ${first}) * ${DAY_MS}::bigint / ${FILLS_PER_DAY}`,
    names: NAMES,
    hip3PerDex: HIP3_PER_DEX,
  });
  for (let i = 0; i < FILLS_PER_DAY; i += FILL_BATCH) {
    const last = Math.min(FILLS_PER_DAY, i + FILL_BATCH) - 1;
    await pool.query(fills, [first + i, first + last]);
    // Half a trade per fill: the buyer's side, its counterparty a market maker.
    await pool.query(
      `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       SELECT block_number, event_index, time, coin, CASE WHEN crossed THEN 'B' ELSE 'A' END, px, sz, hash, tid,
         address, ${makerAddressSql('1 + tid % 20')}, fee * 2
       FROM accounts.fills WHERE time >= $1 AND time <= $2 AND side = 'B'`,
      [timeOf(day, i), timeOf(day, last)],
    );
  }
  // Every open position funded at the top of every hour: positions stable over the day, payments varying.
  const positions = Math.round((FILLS_PER_DAY * FUNDING_PER_FILL) / 24);
  const hip3 = `${r(2, 'i')} < 0.25`;
  const rank = `CASE WHEN ${hip3} THEN (230 * ${r(0, 'i')} ^ 3)::int % ${HIP3_PER_DEX} ELSE (230 * ${r(0, 'i')} ^ 3)::int END`;
  const perp = `coalesce((ARRAY[${NAMES.map((n) => `'${n}'`).join(',')}])[1 + ${rank}], 'COIN' || ${rank})`;
  for (let h = 0; h < 24; h++) {
    const t = day + h * HOUR_MS;
    await pool.query(
      `INSERT INTO accounts.funding_payments (block_number, time, address, coin, usdc, szi, funding_rate)
       SELECT ${Math.floor(t / 75)}, ${t},
         CASE WHEN i % 40 = 0 THEN ${makerAddressSql('1 + (i / 40) % 20')} ELSE ${traderAddressSql('1000 + (i * 7) % 50000')} END,
         CASE WHEN ${hip3} THEN (ARRAY[${HIP3_DEXES.map((d) => `'${d}'`).join(',')}])[1 + i % 6] || ':' ELSE '' END || ${perp},
         round((${r(1, `(i + ${t})`)} - 0.5) * 20, 6), round((${r(1, 'i')} - 0.5) * 200, 4),
         round((${r(3, `(i + ${t})`)} - 0.5) * 0.0001, 8)
       FROM generate_series(0, ${positions - 1}) i`,
    );
  }
  const ledger = Math.round(FILLS_PER_DAY * LEDGER_PER_FILL);
  await pool.query(
    `INSERT INTO accounts.ledger_updates (block_number, time, hash, address, delta_type, delta)
     SELECT t / 75, t, '0x' || md5(j::text) || md5((j + 3)::text), address, kind,
       jsonb_build_object('type', kind, 'usdc', round((10 + ${r(1, 'j')} * 50000)::numeric, 2)::text)
         || CASE WHEN kind = 'withdraw' THEN jsonb_build_object('nonce', j, 'fee', '1.0') ELSE '{}' END
     FROM (SELECT j, ${day} + (j - ${dayIndex * ledger}) * ${DAY_MS}::bigint / ${ledger} AS t,
         CASE WHEN ${r(0, 'j')} < 0.05 THEN ${makerAddressSql(`1 + (20 * ${r(2, 'j')})::int`)}
              ELSE ${traderAddressSql(`1000 + (50000 * ${r(2, 'j')} ^ 3)::int`)} END AS address,
         CASE WHEN ${r(3, 'j')} < 0.6 THEN 'deposit' ELSE 'withdraw' END AS kind
       FROM generate_series(${dayIndex * ledger}, ${(dayIndex + 1) * ledger - 1}) j) l`,
  );
  // The orders that filled, as a thinned day keeps them: each its open row and its filled row.
  const statuses = Math.round(FILLS_PER_DAY * KEPT_STATUSES_PER_FILL);
  const o = '(j / 2)';
  await pool.query(
    `INSERT INTO accounts.order_statuses (block_number, time, address, status, hash, oid, cloid, coin, side, limit_px, sz,
       orig_sz, order_time, trigger_condition, is_trigger, trigger_px, is_position_tpsl, reduce_only, order_type, tif)
     SELECT t / 75, t + (j % 2) * 40, address, CASE WHEN j % 2 = 0 THEN 'open' ELSE 'filled' END,
       '0x' || md5(${o}::text) || md5((${o} + 5)::text), ${o} * 3 + 1,
       CASE WHEN ${r(0, o)} < 0.51 THEN '0x' || md5((${o} * 31)::text) END,
       coalesce((ARRAY[${NAMES.map((n) => `'${n}'`).join(',')}])[1 + (540 * ${r(3, o)} ^ 3)::int], 'COIN' || (540 * ${r(3, o)} ^ 3)::int),
       CASE WHEN ${o} % 2 = 0 THEN 'B' ELSE 'A' END, round((10 + ${r(1, o)} * 90000)::numeric, 1),
       CASE WHEN j % 2 = 0 THEN round((0.001 + ${r(2, o)} * 5)::numeric, 4) ELSE 0.0 END,
       round((0.001 + ${r(2, o)} * 5)::numeric, 4), t, 'N/A', false, 0.0, false, false,
       CASE WHEN ${r(0, o)} < 0.3 THEN 'Market' ELSE 'Limit' END, CASE WHEN ${r(0, o)} < 0.3 THEN 'Ioc' ELSE 'Alo' END
     FROM (SELECT j, ${day} + (${o} - ${(dayIndex * statuses) / 2}) * ${DAY_MS * 2}::bigint / ${statuses} AS t,
         CASE WHEN ${r(1, o)} < 0.5 THEN ${makerAddressSql(`1 + (20 * ${r(2, o)} ^ 2)::int`)}
              ELSE ${traderAddressSql(`1000 + (50000 * ${r(2, o)} ^ 3)::int`)} END AS address
       FROM generate_series(${dayIndex * statuses}, ${(dayIndex + 1) * statuses - 1}) j) s`,
  );
}

interface TableSize {
  table: string;
  rows: number;
  heap: number;
  indexes: number;
}

/** Heap (pg_table_size) and indexes of each large table, summed over its partitions (if any); rows as ANALYZE counted. */
async function tableSizes(pool: pg.Pool): Promise<TableSize[]> {
  const out: TableSize[] = [];
  for (const table of LARGE_TABLES) {
    const { rows } = await pool.query<{ n: string; heap: string; idx: string }>(
      `SELECT sum(greatest(c.reltuples, 0))::bigint::text AS n, sum(pg_table_size(t.relid))::text AS heap,
         sum(pg_indexes_size(t.relid))::text AS idx
       FROM (SELECT relid FROM pg_partition_tree($1::regclass) WHERE isleaf
             UNION SELECT $1::regclass WHERE NOT EXISTS (SELECT FROM pg_partition_tree($1::regclass))) t
       JOIN pg_class c ON c.oid = t.relid`,
      [table],
    );
    const row = rows[0];
    out.push({ table, rows: Number(row?.n ?? 0), heap: Number(row?.heap ?? 0), indexes: Number(row?.idx ?? 0) });
  }
  return out;
}

/** The writers' catch-up over stored history, each timed: how the product derives what it keeps from the rows. */
async function deriveHistory(
  pool: pg.Pool,
  log: (line: string) => void,
): Promise<{ timed: { name: string; s: number }[]; perpFills: number }> {
  const deps = { pool, log } as Pick<WriterDeps, 'pool' | 'log'> as WriterDeps;
  const timed: { name: string; s: number }[] = [];
  const time = async (name: string, step: () => Promise<unknown>) => {
    const t = performance.now();
    await step();
    timed.push({ name, s: (performance.now() - t) / 1000 });
  };
  log(`scale: deriving (${load()})`);
  // The fills the derivation reads (the perp ones since its checkpoint), counted as deriveStored counts them.
  const upTo = (await storedEventsEnd(pool)) ?? 0;
  const from = await derivedUntil(pool);
  const perpFills = (await perpFillsBefore(pool, upTo)) - (from === null ? 0 : await perpFillsBefore(pool, from));
  await time('analytics derivation (deriveStored, leaderboards ranked)', () =>
    deriveStored(pool, { label: 'scale: derived', intervalMs: 30_000 }),
  );
  // Rows stored without ingest (as before migrations 0028 and 0024): the markers the migrations set on a database
  // with history, which the writers' fill then walks to its end.
  await pool.query('INSERT INTO accounts.account_state_fill (single) VALUES (true) ON CONFLICT DO NOTHING');
  await time('account state fill (accounts writer catchUp)', () => accountStateCatchUp(deps));
  await pool.query('INSERT INTO markets.hip3_trade_fill (single) VALUES (true) ON CONFLICT DO NOTHING');
  await time('HIP-3 rollup fill (markets writer catchUp)', () => hip3CatchUp(deps));
  return { timed, perpFills };
}

interface Read {
  name: string;
  target: HttpTarget;
  /** p99 bound in ms. */
  bound: number;
  /** Whether it is per user or per coin (the growth rule: p99 at the last day ≤ 1.3× day 1's). */
  grows: boolean;
}

function reads(compat: string, lastHour: number): Read[] {
  const info = (body: unknown): HttpTarget => ({ url: `${compat}/info`, body: JSON.stringify(body) });
  const get = (p: string): HttpTarget => ({ url: `${compat}${p}`, body: '', method: 'GET' });
  const user = BUSIEST_MAKER;
  const window = { startTime: lastHour, endTime: lastHour + HOUR_MS };
  return [
    {
      name: "userFills, a market maker's 2 000 newest",
      target: info({ type: 'userFills', user }),
      bound: 50,
      grows: true,
    },
    {
      name: 'userFillsByTime, one hour',
      target: info({ type: 'userFillsByTime', user, ...window }),
      bound: 50,
      grows: true,
    },
    {
      name: 'userFunding, a day',
      target: info({ type: 'userFunding', user, startTime: lastHour - 23 * HOUR_MS, endTime: lastHour + HOUR_MS }),
      bound: 50,
      grows: true,
    },
    {
      name: 'userNonFundingLedgerUpdates',
      target: info({ type: 'userNonFundingLedgerUpdates', user: `0x${'3e8'.padStart(40, '0')}`, startTime: 0 }),
      bound: 50,
      grows: true,
    },
    { name: '/hip3/snapshots', target: get('/hip3/snapshots'), bound: 50, grows: true },
    { name: '/hip3/top-movers', target: get('/hip3/top-movers'), bound: 50, grows: true },
    { name: 'leaderboard 7d page', target: get('/users/leaderboard?window=7d'), bound: 20, grows: false },
    { name: 'recentTrades BTC', target: info({ type: 'recentTrades', coin: 'BTC' }), bound: 50, grows: true },
    {
      name: 'candleSnapshot BTC 1m, a day',
      target: info({
        type: 'candleSnapshot',
        req: { coin: 'BTC', interval: '1m', startTime: lastHour - 23 * HOUR_MS, endTime: lastHour + HOUR_MS },
      }),
      bound: 50,
      grows: true,
    },
    // Last: the slowest (its cost is the service's own CPU).
    { name: 'account state, a market maker', target: get(`/users/${user}/account`), bound: 100, grows: true },
  ];
}

/** A read's latencies and the callers that asked it at once, or why it has none. */
type Measured = (LatencyResult & { callers: number; aloneP50Ms: number }) | { error: string };

/** Slower than this with one caller, a read is not loaded with 20: the server would queue them for minutes. */
const ALONE_MS = 1000;

async function measureRead(read: Read): Promise<Measured> {
  try {
    const alone = await concurrent(read.target, { concurrency: 1, warmup: 1, requests: 3 });
    if (alone.p50Ms > ALONE_MS) return { ...alone, callers: 1, aloneP50Ms: alone.p50Ms };
    const loaded = await concurrent(read.target, {
      concurrency: CALLERS,
      warmup: CALLERS,
      requests: REQUESTS,
      maxMs: READ_MAX_MS,
    });
    return { ...loaded, callers: CALLERS, aloneP50Ms: alone.p50Ms };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

async function measureReads(
  pool: pg.Pool,
  lastHour: number,
  log: (line: string) => void,
): Promise<{ results: Map<string, Measured>; sql: number[]; startS: number; list: Read[] }> {
  const t = performance.now();
  // The servers as `npm start` runs them (no node: nothing here is proxied); the markets service's start writes the
  // closed candles of the trades loaded since it last ran.
  const stack = await startStackWithoutNode(pool, { bus: new InProcessBus() });
  const startS = (performance.now() - t) / 1000;
  const results = new Map<string, Measured>();
  const list = reads(stack.urls.compat, lastHour);
  try {
    // The SQL behind userFills, one caller: what the read costs without the service and without the load. First: the
    // stack runs in this process, and a read that holds its event loop (account state) would be timed here too.
    const sql = await timeSequential(() => pool.query(userFillsSql(BUSIEST_MAKER as Address)), 5, 50);
    for (const read of list) {
      results.set(read.name, await measureRead(read));
      log(`scale: ${read.name}: ${describeRead(results.get(read.name))}`);
    }
    return { results, sql, startS, list };
  } finally {
    await stack.close();
  }
}

interface Checkpoint {
  day: number;
  sizes: TableSize[];
  results: Map<string, Measured>;
}

/** The simulator's mainnet profile for INGEST_MINUTES up to now, a cascade minute in the middle, into `dir`. */
async function simulateWindow(dir: string, cascadeAt: number, log: (line: string) => void): Promise<number> {
  const t = performance.now();
  const cli = path.resolve(import.meta.dirname, '../ingest/simulator/cli.ts');
  const args = ['--import', 'tsx', cli, '--data-dir', dir, '--profile', 'mainnet', '--history', `${INGEST_MINUTES}m`];
  args.push('--detailed-history', `${INGEST_MINUTES}m`, '--cascade-at', new Date(cascadeAt).toISOString());
  args.push('--no-realtime', '--port', '0');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`simulator exited ${code}: ${out.slice(-2000)}`);
  const history = out.split('\n').find((l) => l.includes('history '));
  if (history) log(history.trim());
  return (performance.now() - t) / 1000;
}

interface IngestResult {
  fills: number;
  fillsPerS: number;
  cascadeFills: number;
  /** The commit lag through the cascade minute, as if ingest had been caught up at its start (ms). */
  cascadeLagMs: number;
  simS: number;
}

/** Ingest of the simulator's window into the loaded database, the fills stream's progress sampled every 50 ms. */
async function ingestWindow(pool: pg.Pool, log: (line: string) => void): Promise<IngestResult> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-scale-'));
  try {
    const now = Date.now();
    const cascadeAt = Math.floor((now - (INGEST_MINUTES / 2) * 60_000) / 60_000) * 60_000;
    const simS = await simulateWindow(dir, cascadeAt, log);
    const windowStart = now - INGEST_MINUTES * 60_000 - 60_000;
    const ingest = new Ingest({ dataDir: dir, pool, log: () => {} });
    const samples: { wall: number; committed: number }[] = [];
    const t = performance.now();
    let fillsDoneAt: number | null = null;
    const sampler = setInterval(() => {
      const s = ingest.stats.find((x) => x.stream === 'node_fills_by_block');
      if (s?.committed) samples.push({ wall: performance.now(), committed: s.committed.time });
      if (s?.caughtUp && fillsDoneAt === null) fillsDoneAt = performance.now();
    }, 50);
    await ingest.run();
    clearInterval(sampler);
    const wallS = ((fillsDoneAt ?? performance.now()) - t) / 1000;
    const { rows } = await pool.query<{ all: number; cascade: number }>(
      `SELECT count(*)::int AS all, (count(*) FILTER (WHERE time >= $2 AND time < $3))::int AS cascade
       FROM accounts.fills WHERE time >= $1`,
      [windowStart, cascadeAt, cascadeAt + 60_000],
    );
    const fills = rows[0]?.all ?? 0;
    // Lag of each sample inside the minute: the wall time since ingest reached the minute's start, less the block
    // time since it: how far a caught-up ingest would fall behind a node writing the minute in real time.
    const reached = samples.find((s) => s.committed >= cascadeAt);
    let lag = 0;
    for (const s of samples) {
      if (!reached || s.committed < cascadeAt || s.committed > cascadeAt + 60_000) continue;
      lag = Math.max(lag, s.wall - reached.wall - (s.committed - cascadeAt));
    }
    const cascadeLagMs = reached ? lag : Number.NaN;
    return { fills, fillsPerS: fills / wallS, cascadeFills: rows[0]?.cascade ?? 0, cascadeLagMs, simS };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const describeRead = (m: Measured | undefined) =>
  !m
    ? 'n/a'
    : 'error' in m
      ? `FAILED: ${m.error.slice(0, 60)}`
      : `p50 ${ms(m.p50Ms)} p99 ${ms(m.p99Ms)}${m.callers === 1 ? ' (1 caller)' : ''}` +
        `${m.errors ? ` (${m.errors} of ${m.errors + m.requests} failed)` : ''}`;
/** p99, or infinite when any request failed (a timeout or an error is slower than any bound). */
const p99Of = (m: Measured | undefined) =>
  m && !('error' in m) ? (m.errors ? Number.POSITIVE_INFINITY : m.p99Ms) : Number.NaN;

export async function benchScale(server: BenchServer, log: (line: string) => void): Promise<BenchSection> {
  const { pool } = await server.freshDatabase('bench_scale');
  const rows: BenchRow[] = [];
  const notes: string[] = [
    `${DAYS} days of ${int(FILLS_PER_DAY)} fills (mainnet ${int(MAINNET_FILLS_PER_DAY)}), checkpoints at day ${CHECKPOINTS.join(', ')}; ${os.cpus().length} cores; at start: ${load()}`,
  ];
  try {
    const firstDay = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAYS * DAY_MS;
    const checkpoints: Checkpoint[] = [];
    let loadS = 0;
    for (let d = 0; d < DAYS; d++) {
      const day = firstDay + d * DAY_MS;
      const t = performance.now();
      await loadDay(pool, d, day);
      const s = (performance.now() - t) / 1000;
      loadS += s;
      log(`scale: day ${d + 1} of ${DAYS} generated in ${fmtS(s)} (${load()})`);
      if (!CHECKPOINTS.includes(d + 1)) continue;
      const tv = performance.now();
      for (const table of LARGE_TABLES) await pool.query(`VACUUM ANALYZE ${table}`);
      const vacuumS = (performance.now() - tv) / 1000;
      const derived = await deriveHistory(pool, log);
      const sizes = await tableSizes(pool);
      const fillsStored = sizes.find((x) => x.table === 'accounts.fills')?.rows ?? 0;
      const lastHour = day + 23 * HOUR_MS;
      const measured = await measureReads(pool, lastHour, log);
      checkpoints.push({ day: d + 1, sizes, results: measured.results });
      const base = checkpoints[0] as Checkpoint;
      const label = `day ${d + 1}`;
      for (const x of derived.timed) {
        const analytics = x.name.startsWith('analytics');
        // The analytics derivation goes on from its checkpoint (its perp fills); the two fills walk every stored row.
        const fills = analytics ? derived.perpFills : fillsStored;
        rows.push({
          name: `${label}: ${x.name}`,
          value: fmtS(x.s),
          baseline: `${int(fills / x.s)} ${analytics ? 'perp fills/s' : 'stored fills/s'}`,
          ratio: '-',
          target: analytics ? `>= 20,000 fills/s: ${met(fills / x.s >= 20_000)}` : 'reported',
        });
      }
      rows.push({
        name: `${label}: stack start (candles of the new trades)`,
        value: fmtS(measured.startS),
        baseline: `VACUUM ANALYZE ${fmtS(vacuumS)}`,
        ratio: '-',
        target: 'reported',
      });
      for (const size of sizes) {
        const before = base.sizes.find((x) => x.table === size.table);
        const per = (s: TableSize) => (s.rows ? (s.heap + s.indexes) / s.rows : Number.NaN);
        rows.push({
          name: `${label}: B/row ${size.table}`,
          value: `${int(per(size))} B`,
          baseline: `${int(size.rows)} rows; heap ${int(size.rows ? size.heap / size.rows : 0)}`,
          ratio: before && checkpoints.length > 1 ? (per(size) / per(before)).toFixed(2) : '-',
          target: size.table === 'accounts.fills' ? `<= 520 B: ${met(per(size) <= 520)}` : 'reported',
        });
      }
      for (const read of measured.list) {
        const m = measured.results.get(read.name);
        const first = base.results.get(read.name);
        const growth = p99Of(m) / p99Of(first);
        const isLast = d + 1 === DAYS && checkpoints.length > 1;
        const p99ok = p99Of(m) <= read.bound;
        const growthOk = !read.grows || !isLast || growth <= 1.3;
        // Beside it: one caller's p50 (what the load adds), the SQL of userFills, day 1's p99 (the growth).
        const alone = m && !('error' in m) ? `1 caller p50 ${ms(m.aloneP50Ms)}` : '';
        const sql =
          read.name.startsWith('userFills,') && measured.sql.length
            ? `SQL p50 ${ms(percentile(measured.sql, 0.5))} p99 ${ms(percentile(measured.sql, 0.99))}`
            : '';
        const sqlNote =
          [alone, sql, checkpoints.length > 1 ? `day 1 p99 ${ms(p99Of(first))}` : ''].filter(Boolean).join('; ') || '-';
        rows.push({
          name: `${label}: ${read.name}`,
          value: describeRead(m),
          baseline: sqlNote,
          ratio: checkpoints.length > 1 ? growth.toFixed(2) : '-',
          target:
            `p99 <= ${read.bound} ms${isLast && read.grows ? ', <= 1.3x day 1' : ''}: ` + `${met(p99ok && growthOk)}`,
        });
      }
      notes.push(`day ${d + 1} measured at ${load()}`);
    }
    notes.push(
      `generating the rows took ${fmtS(loadS)} (${int((FILLS_PER_DAY * DAYS) / loadS)} fills/s with their trades, funding, ledger and order statuses)`,
    );
    const last = checkpoints.at(-1) as Checkpoint;
    const total = last.sizes.reduce((s, x) => s + x.heap + x.indexes, 0);
    const fills = last.sizes.find((x) => x.table === 'accounts.fills')?.rows ?? 1;
    const perFill = total / fills;
    const perDay = perFill * MAINNET_FILLS_PER_DAY;
    notes.push(
      `the large tables hold ${(total / 1e9).toFixed(2)} GB after ${last.day} days: ${int(perFill)} B per stored fill ` +
        `with its trade, funding, ledger and kept order statuses; at mainnet's ${int(MAINNET_FILLS_PER_DAY)} fills a day ` +
        `${(perDay / 1e9).toFixed(1)} GB/day, ${((perDay * 365) / 1e12).toFixed(2)} TB a year; the full public history ` +
        `(~3 B fills) ${((perFill * PUBLIC_HISTORY_FILLS) / 1e12).toFixed(2)} TB (the order statuses as thinned: the day ` +
        'kept whole is not generated)',
    );
    const tIngest = performance.now();
    const ing = await ingestWindow(pool, log);
    rows.push(
      {
        name: `ingest of node files, indexes at ${DAYS} days`,
        value: `${int(ing.fillsPerS)} fills/s`,
        baseline: `${int(ing.fills)} fills`,
        ratio: '-',
        target: `>= 20,000 fills/s: ${met(ing.fillsPerS >= 20_000)}`,
      },
      {
        name: 'cascade minute: commit lag',
        value: ms(ing.cascadeLagMs),
        baseline: `${int(ing.cascadeFills)} fills`,
        ratio: '-',
        target: `<= 10 s: ${met(ing.cascadeLagMs <= 10_000)}`,
      },
    );
    notes.push(
      `ingest: the simulator's mainnet profile wrote ${INGEST_MINUTES} min (every stream, a cascade minute in the middle) ` +
        `in ${fmtS(ing.simS)}; ingest loaded every stream at once (fills/s: the fills stream until it caught up); the ` +
        `commit lag counts the minute as if a node wrote it in real time and ingest had been caught up at its start; ` +
        `${fmtS((performance.now() - tIngest) / 1000)} in all; ${load()}`,
    );
    return { rows, notes };
  } finally {
    await pool.end();
  }
}
