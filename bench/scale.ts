// Mainnet's size, day after day (issue 39 item 4, `BENCH_ONLY=scale`): N mainnet-shaped days (BENCH_SCALE_DAYS,
// default 5; BENCH_SCALE_FILLS_PER_DAY, default 6 500 000) loaded into a fresh database one UTC day at a time, the
// last ending at today's 00:00 UTC. The large tables are generated in SQL (storage.ts's fill generator; per fill half
// a trade; every open position funded every hour; ledger updates; the order statuses retention keeps of a closed
// day); what is derived from them is made by the product's own code, timed: the analytics derivation
// (`derive -- rebuild`'s deriveStored), the accounts writer's fill of the account state and the markets writer's fill
// of the HIP-3 rollup (their `catchUp`, as `npm run import` runs them), and the candles (the markets service's start).
// At days 1, 3 and 5 (those that exist for a smaller N): bytes per row of each large table, and p50/p99 of the key
// reads under 20 concurrent callers through the real HTTP service, beside day 1's. After the last: the simulator's
// mainnet profile writes a window of node files (BENCH_SCALE_INGEST_MINUTES, default 10, with a cascade minute and a
// top of hour, then BENCH_SCALE_REPLAY_MINUTES, default 5). Ingest loads the first part into the full database at
// once with the analytics derivation following it as under npm start (its lag behind ingest's committed position,
// the top of hour's funding of every open position included); then the rest of the fills stream is fed to a
// following ingest at BENCH_SCALE_REPLAY_SPEED× (default 10) mainnet's pace while the stack's servers fan its
// trades out to BENCH_SCALE_SUBSCRIBERS (default 200) /ws clients and as many graphql-ws clients through the router
// (trade-latency.ts measureFanout). BENCH_SCALE_DAYS=0 skips the days: the window alone, into an empty database.
//
// The default size does not run in well under an hour on 2 cores (measured 2026-12-02 at 200 000 fills a day: the
// rows generate at ~6 600 fills/s with the rest of their day, the analytics derivation read 1 700 perp fills/s over
// day 1 and 770 over days 2-3, and the account state fill walks every stored fill again at each checkpoint at ~1 600/s):
// 5 mainnet days take about a day. Run it smaller to see the shape (BENCH_SCALE_DAYS=3
// BENCH_SCALE_FILLS_PER_DAY=200000: ~30 min), full size on a machine that can spare one.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import type pg from 'pg';
import { DAY_MS, makePartitions, PARTITIONED } from '../db/partitions.ts';
import type { TradeRow } from '../db/rows/markets.ts';
import { perpFillsBefore, storedEventsEnd } from '../domains/accounts/port.ts';
import { userFillsSql } from '../domains/accounts/service/fills.ts';
import { catchUp as accountStateCatchUp } from '../domains/accounts/writer/index.ts';
import { derivedUntil } from '../domains/analytics/writer/job.ts';
import { deriveStored } from '../domains/analytics/writer/rebuild.ts';
import { catchUp as hip3CatchUp } from '../domains/markets/writer/index.ts';
import { InProcessBus, type Topics } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import type { WriterDeps } from '../kit/domain.ts';
import type { Address } from '../platform/fields.ts';
import { openRouterThread } from '../router/thread.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import type { BenchServer } from './db.ts';
import { type Followed, followIngest } from './derivation-lag.ts';
import { concurrent, type HttpTarget, type LatencyResult } from './http-load.ts';
import { type BenchRow, type BenchSection, int, met, ms, percent } from './section.ts';
import { percentile, timeSequential } from './stats.ts';
import {
  BUSIEST_MAKER,
  HIP3_DEXES,
  mainnetFillsSql,
  makerAddressSql,
  randomOf as r,
  traderAddressSql,
} from './storage.ts';
import { stampHash, wallMs } from './subscribers.ts';
import {
  busyShares,
  LATENCY_TARGET_MS,
  measureFanout,
  type TradeRun,
  type TradeSource,
  warmRouter,
} from './trade-latency.ts';

/** 0: no days loaded, only the window of node files (its ingest, the derivation's lag and the replay's fan-out). */
const DAYS = Math.max(0, Number(process.env.BENCH_SCALE_DAYS ?? 5));
const FILLS_PER_DAY = Number(process.env.BENCH_SCALE_FILLS_PER_DAY ?? 6_500_000);
/** Minutes of node files the simulator writes for the ingest measure (a cascade minute in the middle). */
const INGEST_MINUTES = Math.max(1, Number(process.env.BENCH_SCALE_INGEST_MINUTES ?? 10));
/** Minutes of node files after those, replayed to ingest at REPLAY_SPEED× for the fan-out measure. */
const REPLAY_MINUTES = Math.max(1, Number(process.env.BENCH_SCALE_REPLAY_MINUTES ?? 5));
/** Mainnet's pace times this: ~13.5 blocks/s and ~75 fills/s (mainnet-volumes.md) at 10×: ~135 and ~750. */
const REPLAY_SPEED = Number(process.env.BENCH_SCALE_REPLAY_SPEED ?? 10);
/** Clients of each transport (/ws, graphql-ws through the router) during the replay. */
const SUBSCRIBERS = Number(process.env.BENCH_SCALE_SUBSCRIBERS ?? 200);
const CHECKPOINTS = DAYS ? [...new Set([1, 3, 5].filter((d) => d <= DAYS).concat(DAYS))] : [];
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
    // Every dataset's first and last time: kept bounds and time indexes (migration 0060), never a table read whole.
    { name: 'dataCoverage', target: info({ type: 'dataCoverage' }), bound: 50, grows: false },
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

/**
 * The window of node files the simulator writes: INGEST_MINUTES loaded at once into the database (a cascade minute at
 * 30 % of it; a top of hour at 70 %, where the mainnet profile pays every open position's funding: simulator/risk.ts
 * payFunding), then REPLAY_MINUTES fed to ingest at REPLAY_SPEED× their pace. It ends before now, on the last top of
 * hour that leaves room for it.
 */
interface Window {
  start: number;
  cascadeAt: number;
  top: number;
  /** Where the load at once ends and the replay begins. */
  split: number;
  end: number;
}

function windowTimes(now: number): Window {
  const topAt = Math.floor(INGEST_MINUTES * 0.7 * 60_000);
  const length = (INGEST_MINUTES + REPLAY_MINUTES) * 60_000;
  let top = Math.floor(now / HOUR_MS) * HOUR_MS;
  if (top - topAt + length > now) top -= HOUR_MS;
  const start = top - topAt;
  const cascadeAt = start + Math.floor(INGEST_MINUTES * 0.3) * 60_000;
  return { start, top, cascadeAt, split: start + INGEST_MINUTES * 60_000, end: start + length };
}

/**
 * The simulator's mainnet profile over the window, a cascade minute in it, into `dir`. It writes history ending at its
 * clock's now, so it runs on a clock set back to the window's end (libfaketime, as `npm run test:clock-ahead`).
 */
async function simulateWindow(dir: string, w: Window, log: (line: string) => void): Promise<number> {
  const t = performance.now();
  const cli = path.resolve(import.meta.dirname, '../ingest/simulator/cli.ts');
  const minutes = `${INGEST_MINUTES + REPLAY_MINUTES}m`;
  const args = ['--import', 'tsx', cli, '--data-dir', dir, '--profile', 'mainnet', '--history', minutes];
  args.push('--detailed-history', minutes, '--cascade-at', new Date(w.cascadeAt).toISOString());
  args.push('--no-realtime', '--port', '0');
  const back = Math.round((Date.now() - w.end) / 1000);
  const child = spawn('faketime', ['-f', `-${back}s`, process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DONT_FAKE_MONOTONIC: '1' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d;
  });
  child.stderr.on('data', (d: Buffer) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (err) => reject(new Error(`the window needs faketime (Debian's faketime): ${err.message}`)));
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`simulator exited ${code}: ${out.slice(-2000)}`);
  const history = out.split('\n').find((l) => l.includes('history '));
  if (history) log(history.trim());
  return (performance.now() - t) / 1000;
}

/** A block's line of a node file, kept to be fed later. */
interface FedLine {
  file: string;
  line: string;
  time: number;
}

/** The block time of a `_by_block` line (null: none found). */
function blockTime(line: string): number | null {
  const m = /"block_time":"([^"]{23})/.exec(line.slice(0, 400));
  return m ? Date.parse(`${m[1]}Z`) : null;
}

/**
 * Copies the simulator's files into ingest's `dir`, each stream's blocks before `split`; returns the fills stream's
 * later blocks, in time order, for the replay (the other streams' later blocks are left out: see benchScale's notes).
 */
async function splitWindow(sim: string, dir: string, split: number): Promise<FedLine[]> {
  const later: FedLine[] = [];
  const files = (await fs.readdir(sim, { recursive: true })).filter((f) => f.includes(path.sep));
  for (const rel of files) {
    const from = path.join(sim, rel);
    if (!(await fs.stat(from)).isFile()) continue;
    const to = path.join(dir, rel);
    await fs.mkdir(path.dirname(to), { recursive: true });
    const sink = createWriteStream(to);
    const fills = rel.startsWith(`node_fills_by_block${path.sep}`);
    for await (const line of readline.createInterface({ input: createReadStream(from), crlfDelay: Infinity })) {
      const time = blockTime(line);
      if (time === null || time < split) {
        if (!sink.write(`${line}\n`)) await once(sink, 'drain');
      } else if (fills) later.push({ file: to, line, time });
    }
    await new Promise<void>((resolve, reject) => sink.end((err?: Error | null) => (err ? reject(err) : resolve())));
  }
  return later.sort((x, y) => x.time - y.time);
}

/** Appends blocks to their node files at REPLAY_SPEED× the pace of their block times, from the first `begin`. */
class Feeder {
  private next = 0;
  private startedAt: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Every block before this block time is written. */
  fedUntil: number;

  constructor(
    private readonly lines: readonly FedLine[],
    private readonly from: number,
  ) {
    this.fedUntil = from;
  }

  start(): void {
    if (this.startedAt !== null) return;
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.tick(), 10);
  }

  /** Blocks written with a block time in (from, to]. */
  blocksIn(from: number, to: number): number {
    return this.lines.filter((l) => l.time > from && l.time <= to).length;
  }

  get done(): boolean {
    return this.next >= this.lines.length;
  }

  private tick(): void {
    const due = this.from + (performance.now() - (this.startedAt as number)) * REPLAY_SPEED;
    const chunks = new Map<string, string[]>();
    for (; this.next < this.lines.length && (this.lines[this.next] as FedLine).time <= due; this.next++) {
      const { file, line } = this.lines[this.next] as FedLine;
      const chunk = chunks.get(file) ?? [];
      chunk.push(line);
      chunks.set(file, chunk);
    }
    for (const [file, chunk] of chunks) appendFileSync(file, `${chunk.join('\n')}\n`);
    this.fedUntil = due;
    if (this.done) this.stop();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/**
 * The replay as the fan-out bench's source of trades (trade-latency.ts measureFanout): ingest's bus, which hands the
 * stack's bus each batch of trades ingest publishes after its commit with the publish time stamped in their hash
 * (subscribers.ts stampHash), counted per coin in the measured phase; its first phase starts the feeder.
 */
class ReplaySource implements TradeSource {
  private measuring = false;
  private phaseStart = 0;
  private readonly counts = new Map<string, number>();
  measuredMs = 0;
  /** The feeder's position when the measured phase began and ended. */
  fed = { from: 0, to: 0 };

  constructor(
    private readonly bus: InProcessBus,
    private readonly feeder: Feeder,
  ) {}

  publish<T extends keyof Topics & string>(topic: T, items: readonly Topics[T][]): void {
    if (topic !== 'trades') {
      this.bus.publish(topic, items);
      return;
    }
    const stamp = stampHash(this.measuring, wallMs());
    const trades = (items as readonly TradeRow[]).map((t) => ({ ...t, hash: stamp }));
    if (this.measuring) for (const t of trades) this.counts.set(t.coin, (this.counts.get(t.coin) ?? 0) + 1);
    this.bus.publish('trades', trades);
  }

  begin(measuring: boolean): void {
    this.feeder.start();
    this.measuring = measuring;
    this.counts.clear();
    this.phaseStart = performance.now();
    if (measuring) this.fed.from = this.feeder.fedUntil;
  }

  stop(): void {
    if (!this.measuring) return;
    this.measuring = false;
    this.measuredMs = performance.now() - this.phaseStart;
    this.fed.to = this.feeder.fedUntil;
  }

  measured(coin?: string): number {
    if (coin !== undefined) return this.counts.get(coin) ?? 0;
    let all = 0;
    for (const n of this.counts.values()) all += n;
    return all;
  }
}

/** The busiest coins of the mainnet profile (simulator/catalog.ts NATIVE_PERPS' weights): the subscribers' coins. */
const FANOUT_COINS = ['BTC', 'ETH', 'HYPE', 'SOL'];

interface FanoutResult {
  run: TradeRun;
  busy: Record<'main' | 'router', number>;
  blocks: number;
  fills: number;
  /** Ingest's lag behind the feeder over the measured phase: its max, in data time (ms). */
  ingestLagMs: number;
}

/**
 * The stack's servers over the database (the router on its thread, as under npm start), SUBSCRIBERS clients of /ws
 * and as many of graphql-ws through the router, spread over FANOUT_COINS, while ingest follows the fills fed at
 * REPLAY_SPEED×: each trade's delay from its publication (right after its block's commit) to each client.
 */
async function measureReplayFanout(
  pool: pg.Pool,
  dir: string,
  later: readonly FedLine[],
  from: number,
): Promise<FanoutResult> {
  const bus = new InProcessBus();
  const feeder = new Feeder(later, from);
  const source = new ReplaySource(bus, feeder);
  const stack = await startStackWithoutNode(pool, { bus, openRouter: openRouterThread });
  const ingest = new Ingest({
    dataDir: dir,
    pool,
    bus: source,
    follow: true,
    streams: ['node_fills_by_block'],
    log: () => {},
  });
  const running = ingest.run();
  let lagTimer: NodeJS.Timeout | null = null;
  try {
    await ingest.caughtUp();
    await warmRouter(stack.urls.router);
    const busy = busyShares({
      main: (f) => performance.eventLoopUtilization(f),
      router: (f) => stack.routerEventLoop(f),
    });
    let ingestLagMs = 0;
    const measuring = (phase: 'start' | 'end') => {
      busy.measuring(phase);
      if (phase === 'end' && lagTimer) clearInterval(lagTimer);
      if (phase === 'start')
        lagTimer = setInterval(() => {
          const committed = ingest.stats[0]?.committed?.time;
          if (committed !== undefined) ingestLagMs = Math.max(ingestLagMs, feeder.fedUntil - committed);
        }, 50);
    };
    const graphql = (coin: string) => `subscription { trades(coin: "${coin}") { px time hash tid } }`;
    const run = await measureFanout(
      source,
      [
        {
          label: '/ws',
          protocol: 'ws',
          url: stack.urls.ws,
          count: SUBSCRIBERS,
          subscription: FANOUT_COINS.map((coin) => ({ type: 'trades', coin })),
          coin: FANOUT_COINS,
          scan: true,
        },
        {
          label: 'graphql-ws (router)',
          protocol: 'graphql-ws',
          url: stack.urls.router.replace(/^http/, 'ws'),
          count: SUBSCRIBERS,
          subscription: FANOUT_COINS.map(graphql),
          coin: FANOUT_COINS,
          scan: true,
        },
      ],
      measuring,
    );
    const { rows } = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM accounts.fills WHERE time > $1 AND time <= $2',
      [Math.floor(source.fed.from), Math.floor(source.fed.to)],
    );
    return {
      run,
      busy: { main: busy.shares.main ?? 0, router: busy.shares.router ?? 0 },
      blocks: feeder.blocksIn(source.fed.from, source.fed.to),
      fills: rows[0]?.n ?? 0,
      ingestLagMs,
    };
  } finally {
    if (lagTimer) clearInterval(lagTimer);
    feeder.stop();
    await ingest.stop();
    await running;
    await stack.close();
  }
}

interface IngestResult {
  fills: number;
  fillsPerS: number;
  cascadeFills: number;
  /** The commit lag through the cascade minute, as if ingest had been caught up at its start (ms). */
  cascadeLagMs: number;
  simS: number;
  window: Window;
  /** The analytics derivation following the load (its lag behind ingest's committed position). */
  followed: Followed;
  /** Funding rows paid at the window's top of hour (its first block), and the accounts paid. */
  funding: { rows: number; accounts: number };
  fanout: FanoutResult;
}

/**
 * The window into the loaded database: its first INGEST_MINUTES by ingest at once (every stream, the fills stream's
 * progress sampled every 50 ms) with the analytics derivation following it on its own thread as under npm start;
 * then the rest replayed at REPLAY_SPEED× to the stack's subscribers.
 */
async function ingestWindow(url: string, pool: pg.Pool, log: (line: string) => void): Promise<IngestResult> {
  const sim = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-scale-sim-'));
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-scale-'));
  try {
    const w = windowTimes(Date.now());
    const simS = await simulateWindow(sim, w, log);
    const later = await splitWindow(sim, dir, w.split);
    await fs.rm(sim, { recursive: true, force: true });
    log(`scale: window ${new Date(w.start).toISOString()} to ${new Date(w.end).toISOString()} written (${load()})`);
    const ingest = new Ingest({ dataDir: dir, pool, log: () => {} });
    const samples: { wall: number; committed: number }[] = [];
    const t = performance.now();
    let fillsDoneAt: number | null = null;
    const sampler = setInterval(() => {
      const s = ingest.stats.find((x) => x.stream === 'node_fills_by_block');
      if (s?.committed) samples.push({ wall: performance.now(), committed: s.committed.time });
      if (s?.caughtUp && fillsDoneAt === null) fillsDoneAt = performance.now();
    }, 50);
    let followed: Followed;
    try {
      followed = await followIngest(url, pool, ingest, { mark: w.top, from: w.start });
    } finally {
      clearInterval(sampler);
    }
    const wallS = ((fillsDoneAt ?? performance.now()) - t) / 1000;
    const { rows } = await pool.query<{ all: number; cascade: number }>(
      `SELECT count(*)::int AS all, (count(*) FILTER (WHERE time >= $2 AND time < $3))::int AS cascade
       FROM accounts.fills WHERE time >= $1`,
      [w.start - 60_000, w.cascadeAt, w.cascadeAt + 60_000],
    );
    const { rows: paid } = await pool.query<{ rows: number; accounts: number }>(
      `SELECT count(*)::int AS rows, count(DISTINCT address)::int AS accounts FROM accounts.funding_payments
       WHERE time >= $1 AND time < $2`,
      [w.top, w.top + 1000],
    );
    const fills = rows[0]?.all ?? 0;
    // Lag of each sample inside the minute: the wall time since ingest reached the minute's start, less the block
    // time since it: how far a caught-up ingest would fall behind a node writing the minute in real time.
    const reached = samples.find((s) => s.committed >= w.cascadeAt);
    let lag = 0;
    for (const s of samples) {
      if (!reached || s.committed < w.cascadeAt || s.committed > w.cascadeAt + 60_000) continue;
      lag = Math.max(lag, s.wall - reached.wall - (s.committed - w.cascadeAt));
    }
    const cascadeLagMs = reached ? lag : Number.NaN;
    log(`scale: window loaded; replaying ${REPLAY_MINUTES} min at ${REPLAY_SPEED}x to subscribers (${load()})`);
    const fanout = await measureReplayFanout(pool, dir, later, w.split);
    return {
      fills,
      fillsPerS: fills / wallS,
      cascadeFills: rows[0]?.cascade ?? 0,
      cascadeLagMs,
      simS,
      window: w,
      followed,
      funding: { rows: paid[0]?.rows ?? 0, accounts: paid[0]?.accounts ?? 0 },
      fanout,
    };
  } finally {
    await fs.rm(sim, { recursive: true, force: true });
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

/** What the loaded days hold: the rows' generation, and the large tables' size extrapolated to mainnet. */
function sizeNotes(checkpoints: Checkpoint[], loadS: number, notes: string[]): void {
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
}

export async function benchScale(server: BenchServer, log: (line: string) => void): Promise<BenchSection> {
  const { url, pool } = await server.freshDatabase('bench_scale');
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
    if (checkpoints.length) sizeNotes(checkpoints, loadS, notes);
    const tIngest = performance.now();
    const ing = await ingestWindow(url, pool, log);
    const { followed, fanout } = ing;
    const lag = followed.lags;
    const s1 = (msecs: number | null) => (msecs === null ? 'n/a' : `${(msecs / 1000).toFixed(1)} s`);
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
      {
        name: 'derivation lag behind ingest, wall time',
        value: `max ${s1(lag.wallMaxMs)}`,
        baseline: `p50 ${s1(lag.wallP50Ms)}`,
        ratio: '-',
        target: `<= 60 s: ${met(lag.wallMaxMs <= 60_000 && followed.markLagMs !== null)}`,
      },
      {
        name: 'derivation lag behind ingest, data time',
        value: `max ${s1(lag.dataMaxMs)}`,
        baseline: `p50 ${s1(lag.dataP50Ms)}`,
        ratio: '-',
        target: 'reported (ingest ran faster than real time)',
      },
      {
        name: 'derivation of the top-of-hour funding',
        value: s1(followed.markLagMs),
        baseline: `${int(ing.funding.rows)} payments`,
        ratio: '-',
        target: `<= 60 s after ingest committed it: ${met(followed.markLagMs !== null && followed.markLagMs <= 60_000)}`,
      },
    );
    for (const { audience, histogram: h, complete, expected, result } of fanout.run.heard) {
      const p99 = h.quantile(0.99);
      rows.push({
        name: `ingest at ${REPLAY_SPEED}x mainnet -> ${audience.label}`,
        value: `p99 ${ms(p99)}`,
        baseline: `p50 ${ms(h.quantile(0.5))}`,
        ratio: '-',
        target:
          `p99 < ${LATENCY_TARGET_MS} ms: ${met(p99 < LATENCY_TARGET_MS && complete)}` +
          (complete ? '' : ` (received ${int(result.total)} of ${int(expected)})`),
      });
    }
    const w = ing.window;
    notes.push(
      `ingest: the simulator's mainnet profile wrote ${INGEST_MINUTES + REPLAY_MINUTES} min from ` +
        `${new Date(w.start).toISOString()} (every stream; a cascade minute from ${new Date(w.cascadeAt).toISOString()}, ` +
        `the top of hour ${new Date(w.top).toISOString()}) in ${fmtS(ing.simS)}; ingest loaded its first ` +
        `${INGEST_MINUTES} min, every stream at once (fills/s: the fills stream until it caught up), with the analytics ` +
        'derivation following on its own thread as under npm start; the commit lag counts the minute as if a node ' +
        `wrote it in real time and ingest had been caught up at its start; ${load()}`,
      `derivation: ${lag.samples} samples of its checkpoint while ingest ran (${followed.seconds.toFixed(1)} s), each ` +
        "against ingest's committed position in the fills and misc events streams: wall time since ingest had " +
        'committed what it had derived, and the data time between the two; it had derived ' +
        `${int(followed.derivedDuring)} fills when ingest stopped and caught up ${s1(followed.catchUpMs)} after; the ` +
        `top of hour paid ${int(ing.funding.rows)} funding payments to ${int(ing.funding.accounts)} accounts in its ` +
        'first block, derived that long after ingest committed it',
      `fan-out: the next ${REPLAY_MINUTES} min of the fills stream fed to ingest (following, as under npm start) at ` +
        `${REPLAY_SPEED}x their pace: ${int(fanout.blocks)} blocks and ${int(fanout.fills)} fills in the measured ` +
        `${(fanout.run.measuredMs / 1000).toFixed(1)} s (${int((fanout.blocks * 1000) / fanout.run.measuredMs)} blocks/s, ` +
        `${int((fanout.fills * 1000) / fanout.run.measuredMs)} fills/s, ${int(fanout.run.expected)} trades of ` +
        `${FANOUT_COINS.join(', ')}); ingest trailed the feed by at most ${s1(fanout.ingestLagMs / REPLAY_SPEED)} ` +
        `(${s1(fanout.ingestLagMs)} of data); each trade timed from ingest's publication after its commit (its hash ` +
        `stamped) to the client; ${SUBSCRIBERS} /ws trades subscribers and ${SUBSCRIBERS} graphql-ws through the ` +
        `router, spread over the coins; busy: main thread ${percent(fanout.busy.main)} (ingest, subgraphs, compat), ` +
        `router thread ${percent(fanout.busy.router)}; server event-loop delay p99 ${ms(fanout.run.loopP99)}, max ` +
        `${ms(fanout.run.loopMax)}`,
      ...fanout.run.heard.map(
        ({ audience, histogram: h, result: r, expected }) =>
          `${audience.label}: p50 ${ms(h.quantile(0.5))}, p99 ${ms(h.quantile(0.99))}, max ${ms(h.max)}; received ` +
          `${int(r.total)} of ${int(expected)} trade events; client thread busy ${percent(r.clientBusy)}` +
          (r.lost ? `; ${r.lost} connections lost` : '') +
          (r.errors.length ? `; ${r.errors.join(' | ')}` : ''),
      ),
      `the window took ${fmtS((performance.now() - tIngest) / 1000)} in all; ${load()}`,
    );
    return { rows, notes };
  } finally {
    await pool.end();
  }
}
