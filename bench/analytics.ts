// Analytics: the derivation job's throughput (alone; and ingest with the job following it on its own thread, beside
// ingest alone, with the job's lag behind ingest; BENCH_FILLS sizes that one, default 500 000), and
// the reads the routes serve (a leaderboard page, performance, pnl-calendar, a 500-wallet batch) end to end through
// compat-rest beside the raw SQL behind them. Size by env: BENCH_ANALYTICS_FILLS (default 10 000 000, at mainnet's
// rate: ~37 h) over BENCH_ANALYTICS_USERS (default 100 000), BENCH_ANALYTICS_POSITIONS held positions paid funding
// every hour (default 350 000); the data set is kept in .data/bench-pg (or BENCH_DATABASE_URL's server) between runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { Authenticator } from '../access/auth.ts';
import { buildCompatApp } from '../compat-rest/app.ts';
import { inTransaction } from '../db/pool.ts';
import { storedEventsEnd } from '../domains/accounts/port.ts';
import { LIVE_BOARDS, METRICS, metricOrder, rankColumn } from '../domains/analytics/service/ranking.ts';
import { windowHours, windowParams } from '../domains/analytics/service/window.ts';
import { deriveUntil, HISTORY_MAX_FILLS, LIVE_MAX_FILLS, resetDerived } from '../domains/analytics/writer/job.ts';
import { refreshLeaderboard, refreshLiveBoards } from '../domains/analytics/writer/leaderboard.ts';
import { resummedBoard, resummedSums } from '../domains/analytics/writer/resummed.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { type DomainServices, startDomainServices } from '../kit/domain.ts';
import { Upstream } from '../platform/upstream.ts';
import { compatServicesOf } from '../stack.ts';
import { writeSyntheticFills } from '../test/node-files.ts';
import type { BenchServer } from './db.ts';
import { type Followed, followIngest } from './derivation-lag.ts';
import { type BenchRow, type BenchSection, met } from './section.ts';
import { percentile, timeSequential } from './stats.ts';

const FILLS = Number(process.env.BENCH_ANALYTICS_FILLS ?? 10_000_000);
const USERS = Number(process.env.BENCH_ANALYTICS_USERS ?? 100_000);
const DAY_MS = 86_400_000;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const user = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
/** The machine is shared: every section says how loaded it was. */
const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${os.cpus().length} cores`;

export interface AnalyticsBench {
  pool: pg.Pool;
  server: BenchServer;
  app: FastifyInstance;
  now: number;
  close(): Promise<void>;
}

/** Open positions funded every hour (mainnet: ~350 k; 6.76 M funding rows a day). */
const POSITIONS = Number(process.env.BENCH_ANALYTICS_POSITIONS ?? 350_000);
/** Market makers: half of all fills between them (mainnet: the largest 10^5-10^6 fills a day). */
const MARKET_MAKERS = 20;
/** Fills a day at mainnet's rate (issue 39): the generated span keeps it, so each hour is a mainnet hour. */
const MAINNET_FILLS_A_DAY = 6_430_000;
const HOUR_MS = 3_600_000;
/** The generated span: FILLS at mainnet's rate, whole hours. */
const SPAN_MS = Math.max(1, Math.ceil((FILLS / MAINNET_FILLS_A_DAY) * 24)) * HOUR_MS;

/**
 * A mainnet-shaped stretch (issue 39, `../shared/reference/mainnet-volumes.md`), generated in SQL: FILLS at mainnet's
 * rate (6.43 M a day, so SPAN_MS is that many hours) over USERS addresses and 540 coins (230 perps, 250 spot `@n`, 60
 * HIP-3 `xyz:` ones: a quarter of the fills off the main perp dex, which the derivation skips). Half of the fills
 * are MARKET_MAKERS' (each ~1/40 of all), the other half spread over the other users; each user's fills alternate an
 * open (1 unit, long or short) and its close with a closedPnl, a coin per pair; every third fill through one of 10
 * builders. POSITIONS more perp positions are opened by a fill each in the first hour (in coins their holders do not
 * trade) and held, each paid funding at every hour's close, all of an hour's payments at one millisecond as on
 * mainnet.
 */
async function generate(pool: pg.Pool, start: number, log: (line: string) => void): Promise<void> {
  const t = performance.now();
  await pool.query('TRUNCATE accounts.fills, accounts.funding_payments, accounts.ledger_updates');
  const positions = Math.min(POSITIONS, Math.floor(FILLS / 4));
  const others = USERS - MARKET_MAKERS;
  const batch = 1_000_000;
  const perp = (i: string) => `'P' || ${i}`;
  for (let from = 0; from < FILLS; from += batch) {
    // g: the fill. The first `positions` open the held ones (j: the position; its user and a coin of 115-229); the
    // rest (i) trade: u the user, k its k-th fill (even: an open, odd: its close), p = k / 2 the pair.
    await pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
         hash, oid, crossed, fee, tid, fee_token, builder)
       SELECT (time - $3::bigint) / 80, '0x' || lpad(to_hex(u), 40, '0'), coin, 100 + (g % 50), 1,
         CASE WHEN held OR (k % 2 = 0) = (p % 2 = 0) THEN 'B' ELSE 'A' END, time,
         CASE WHEN held OR k % 2 = 0 THEN 0 WHEN p % 2 = 0 THEN 1 ELSE -1 END,
         'Open Long', CASE WHEN held OR k % 2 = 0 THEN 0 ELSE (g % 7) - 3 END,
         '0x' || md5(g::text) || md5((g + 1)::text), g, true, 0.05, g, 'USDC',
         CASE WHEN g % 3 = 0 THEN '0x' || lpad(to_hex(g % 10 + 1), 40, '0') END
       FROM (
         SELECT g, held, u, k, p,
           CASE WHEN held THEN ${perp('(115 + (g / $7) % 115)')}
             WHEN p % 4 <> 3 THEN ${perp('((u * 7 + p) % 115)')}
             WHEN p % 8 = 3 THEN '@' || ((u + p) % 250) ELSE 'xyz:C' || ((u + p) % 60) END AS coin,
           CASE WHEN held THEN $3::bigint + g * ${HOUR_MS}::bigint / $6
             ELSE $3::bigint + floor((g - $6) * $4::float8)::bigint END AS time
         FROM (
           SELECT g, g < $6 AS held, i,
             CASE WHEN g < $6 THEN $5 + g % $7 WHEN i % 2 = 0 THEN (i / 2) % $5 ELSE $5 + (i / 2) % $7 END AS u,
             CASE WHEN i % 2 = 0 THEN i / 2 / $5 ELSE i / 2 / $7 END AS k,
             CASE WHEN i % 2 = 0 THEN i / 2 / $5 ELSE i / 2 / $7 END / 2 AS p
           FROM (SELECT g, g - $6 AS i FROM generate_series($1::bigint, $2::bigint) g) s) s) s`,
      [from, Math.min(FILLS, from + batch) - 1, start, SPAN_MS / (FILLS - positions), MARKET_MAKERS, positions, others],
    );
    log(`analytics bench: ${fmt(Math.min(FILLS, from + batch))} fills generated`);
  }
  // Each held position's funding at every hour's close after its open (szi 1, rates of both signs).
  await pool.query(
    `INSERT INTO accounts.funding_payments (block_number, time, address, coin, usdc, szi, funding_rate)
     SELECT h * ${HOUR_MS / 80}, $1::bigint + h * ${HOUR_MS}::bigint, '0x' || lpad(to_hex($3 + j % $4), 40, '0'),
       ${perp('(115 + (j / $4) % 115)')}, ((j * 31 + h * 7) % 201 - 100) * 0.0001, 1,
       ((j * 31 + h * 7) % 201 - 100) * 0.000001
     FROM generate_series(1, $2::int) h, generate_series(0, $5::int - 1) j`,
    [start, SPAN_MS / HOUR_MS, MARKET_MAKERS, others, positions],
  );
  log(`analytics bench: ${fmt(positions * (SPAN_MS / HOUR_MS))} funding payments generated`);
  await pool.query('VACUUM ANALYZE accounts.fills');
  await pool.query('VACUUM ANALYZE accounts.funding_payments');
  log(`analytics bench: data generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

export async function startAnalyticsBench(server: BenchServer, log: (line: string) => void): Promise<AnalyticsBench> {
  const { pool } = await server.keptDatabase(`bench_analytics_${FILLS}_${USERS}_${POSITIONS}`);
  const { rows } = await pool.query<{ n: number; t: number | null }>(
    'SELECT count(*)::int8 AS n, min(time) AS t FROM accounts.fills',
  );
  let start = rows[0]?.t ?? 0;
  if (Number(rows[0]?.n) !== FILLS) {
    start = Math.floor((Date.now() - 7 * DAY_MS) / HOUR_MS) * HOUR_MS;
    await generate(pool, start, log);
  }
  // "now" is the end of the generated week: the 7d windows hold it all.
  const now = start + 7 * DAY_MS;
  return { pool, server, now, ...(await compatOver(pool, now)) };
}

/** The compat app over every domain's services on `pool`, their clock at `now`; `close` ends the pool too. */
async function compatOver(pool: pg.Pool, now: number): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const upstream = new Upstream('http://127.0.0.1:9', { timeoutMs: 500 });
  const started = await startDomainServices(DOMAIN_LIST, { pool, upstream, bus: new InProcessBus(), now: () => now });
  const services = compatServicesOf(started.services as unknown as DomainServices, upstream, pool);
  const app = await buildCompatApp({
    services,
    auth: new Authenticator(pool, { alwaysRequireKey: false }),
    pool,
    log: () => {},
  });
  return {
    app,
    async close() {
      await app.close();
      await started.stop();
      await pool.end();
    },
  };
}

/**
 * The derivation of the whole stored data set from scratch (a rebuild's batches, HISTORY_MAX_FILLS), beside the same
 * job in the live path's batches (LIVE_MAX_FILLS, as every derivation ran before issue 39's work; skipped with
 * BENCH_ANALYTICS_LIVE_BATCHES=0) and one GROUP BY computing the daily sums from the same fills.
 */
export async function benchDerivation(b: AnalyticsBench): Promise<BenchSection> {
  const upTo = (await storedEventsEnd(b.pool)) as number;
  const timedDerivation = async (maxFills: number) => {
    await resetDerived(b.pool);
    const started = performance.now();
    await deriveUntil(b.pool, upTo, maxFills);
    return (performance.now() - started) / 1000;
  };
  const liveS = process.env.BENCH_ANALYTICS_LIVE_BATCHES === '0' ? null : await timedDerivation(LIVE_MAX_FILLS);
  const liveLoad = load();
  const jobS = await timedDerivation(HISTORY_MAX_FILLS);
  for (const w of ['7d', '30d', 'all'] as const) await refreshLeaderboard(b.pool, w, b.now);
  const t = performance.now();
  await b.pool.query(
    `CREATE TEMP TABLE raw_daily AS SELECT address, (time / ${DAY_MS}) AS day, count(*) AS fills,
       sum(px * sz) AS volume, sum(closed_pnl) AS realized, sum(fee) AS fees FROM accounts.fills GROUP BY 1, 2`,
  );
  const rawS = (performance.now() - t) / 1000;
  await b.pool.query('DROP TABLE raw_daily');
  const { rows: stored } = await b.pool.query<{ n: string }>(
    `SELECT (SELECT count(*) FROM analytics.round_trips) + (SELECT count(*) FROM analytics.account_snapshots)
       + (SELECT count(*) FROM analytics.user_daily) + (SELECT count(*) FROM analytics.user_hourly)
       + (SELECT count(*) FROM analytics.builder_hourly) AS n`,
  );
  const t2 = performance.now();
  await refreshLeaderboard(b.pool, '30d', b.now);
  const refreshMs = performance.now() - t2;
  return {
    rows: [
      {
        name: `derivation of history (${fmt(FILLS)} fills, batches of ${fmt(HISTORY_MAX_FILLS)})`,
        value: `${fmt(FILLS / jobS)} fills/s`,
        baseline:
          (liveS === null ? '' : `${fmt(FILLS / liveS)} in ${fmt(LIVE_MAX_FILLS)}-fill batches; `) +
          `${fmt(FILLS / rawS)} GROUP BY`,
        ratio: liveS === null ? (rawS / jobS).toFixed(2) : (liveS / jobS).toFixed(2),
        target: `>= 20 000 fills/s: ${met(FILLS / jobS >= 20_000)}`,
      },
      {
        name: 'leaderboard window refresh (30d)',
        value: `${fmt(refreshMs)} ms`,
        baseline: '',
        ratio: '',
        target: `< 5 min cadence: ${refreshMs < 300_000 ? 'met' : 'NOT met'}`,
      },
    ],
    notes: [
      `${fmt(USERS)} users (${MARKET_MAKERS} market makers with half the fills), ${fmt(POSITIONS)} positions paid ` +
        `funding each hour over ${SPAN_MS / HOUR_MS} h; the job also writes round trips, hourly snapshots and ` +
        `builder activity: ${(Number(stored[0]?.n) / FILLS).toFixed(2)} rows stored per fill; ratio: time in ` +
        `history batches over time in live ones; live batches: ${liveLoad}; history batches: ${load()}`,
    ],
  };
}

/**
 * Ingest alone, then ingest with the analytics writer following it on a thread of its own (as `npm start` runs it),
 * over the same node files into fresh databases: ingest's throughput with the writer beside it against alone, and
 * the writer's lag behind ingest in wall-clock time (how long after ingest read an event the writer had derived it),
 * its steady state after the first fifth of the run, and how long it takes to catch up once ingest has stopped.
 */
export async function benchIngestWithJobs(b: AnalyticsBench): Promise<BenchSection> {
  const fills = Number(process.env.BENCH_FILLS ?? 500_000);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-analytics-'));
  try {
    const blocksPerHour = 2000;
    const fillsPerBlock = 20;
    const hours = Math.max(1, Math.ceil(fills / (blocksPerHour * fillsPerBlock)));
    const written = await writeSyntheticFills(dataDir, { hours, blocksPerHour, fillsPerBlock });
    const ingestOf = (pool: pg.Pool) => new Ingest({ dataDir, pool, streams: ['node_fills_by_block'], log: () => {} });
    const alone = await (async () => {
      const { pool } = await b.server.freshDatabase('bench_analytics_ingest');
      try {
        const t = performance.now();
        await ingestOf(pool).run();
        return (performance.now() - t) / 1000;
      } finally {
        await pool.end();
      }
    })();
    const followed = await ingestFollowed(b, ingestOf);
    const ratio = alone / followed.seconds;
    const lagS = followed.lags.wallMaxMs / 1000;
    return {
      rows: [
        {
          name: `ingest with the derivation (${fmt(written)} fills)`,
          value: `${fmt(written / followed.seconds)} fills/s`,
          baseline: `${fmt(written / alone)} alone`,
          ratio: ratio.toFixed(2),
          target: `>= 0.80 of ingest alone: ${ratio >= 0.8 ? 'met' : 'NOT met'}`,
        },
        {
          name: 'derivation while ingest runs',
          value: `${fmt(followed.derivedDuring / followed.seconds)} fills/s`,
          baseline: `${fmt(written / followed.seconds)} ingest`,
          ratio: (followed.derivedDuring / written).toFixed(2),
          target: 'derives what ingest stores as it goes',
        },
        {
          name: 'derivation lag behind ingest (steady)',
          value: `${lagS.toFixed(1)} s max`,
          baseline: `${(followed.lags.wallP50Ms / 1000).toFixed(1)} s p50`,
          ratio: '',
          target: `< 60 s: ${lagS < 60 ? 'met' : 'NOT met'}`,
        },
        {
          name: 'derivation catch-up after ingest stops',
          value: `${(followed.catchUpMs / 1000).toFixed(1)} s`,
          baseline: '',
          ratio: '',
          target: `< 60 s: ${followed.catchUpMs < 60_000 ? 'met' : 'NOT met'}`,
        },
      ],
      notes: [`the writer on its own thread (as npm start's writer thread), polling as in the service; ${load()}`],
    };
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/** Ingest into a fresh database with the analytics writer following it on its own thread. */
async function ingestFollowed(b: AnalyticsBench, ingestOf: (pool: pg.Pool) => Ingest): Promise<Followed> {
  const { url, pool } = await b.server.freshDatabase('bench_analytics_follow');
  try {
    // The lag after the first fifth of the run: the writer starts behind.
    return await followIngest(url, pool, ingestOf(pool), { steadyFrom: 1 / 5 });
  } finally {
    await pool.end();
  }
}

/** Each route end to end (fastify inject: routing, validation, service, serialization) beside its raw SQL. */
export async function benchAnalyticsReads(b: AnalyticsBench): Promise<BenchSection> {
  // The data set derived (the derivation section leaves it so; run alone, this section derives it first).
  await deriveUntil(b.pool, (await storedEventsEnd(b.pool)) as number);
  for (const w of ['7d', '30d', 'all'] as const) await refreshLeaderboard(b.pool, w, b.now);
  const runs = 200;
  const someone = () => user(Math.floor(Math.random() * USERS));
  const wallets = Array.from({ length: 500 }, (_, i) => user((i * 197) % USERS));
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) => async () => {
    const res = await b.app.inject({ method, url, payload });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  };
  const from = b.now - 30 * DAY_MS;
  const cases: { name: string; target: number; route: () => Promise<unknown>; raw: () => Promise<unknown> }[] = [
    {
      name: 'leaderboard page (7d, pnl, 100)',
      target: 50,
      route: inject('GET', '/users/leaderboard?window=7d&by=pnl&limit=100'),
      // The statement behind the page: the refresh's precomputed ranks (migration 0015).
      raw: () =>
        b.pool.query(
          `SELECT * FROM analytics.leaderboard WHERE window_name = '7d' AND rank_pnl > 0 AND rank_pnl <= 100
           ORDER BY rank_pnl`,
        ),
    },
    {
      name: 'performance (30d)',
      target: 50,
      route: () => inject('GET', `/users/${someone()}/performance?window=30d`)(),
      raw: () =>
        b.pool.query(
          `SELECT sum(fills), sum(volume), sum(realized_pnl), sum(fees) FROM analytics.user_hourly
           WHERE address = $1 AND hour >= $2`,
          [someone(), from],
        ),
    },
    {
      name: 'pnl-calendar (30d)',
      target: 50,
      route: () => inject('GET', `/users/${someone()}/pnl-calendar`)(),
      raw: () =>
        b.pool.query(`SELECT * FROM analytics.user_daily WHERE address = $1 AND day >= $2::date`, [
          someone(),
          new Date(from).toISOString().slice(0, 10),
        ]),
    },
    {
      name: 'batch performance (500 wallets)',
      target: 500,
      route: inject('POST', '/users/batch/performance', { addresses: wallets, window: '30d' }),
      raw: () =>
        b.pool.query(
          `SELECT address, sum(fills), sum(volume), sum(realized_pnl), sum(fees) FROM analytics.user_hourly
           WHERE address = ANY($1) AND hour >= $2 GROUP BY address`,
          [wallets, from],
        ),
    },
  ];
  const rows: BenchRow[] = [];
  for (const c of cases) {
    const route = await timeSequential(c.route, 10, runs);
    const raw = await timeSequential(c.raw, 10, runs);
    const p99 = percentile(route, 0.99);
    rows.push({
      name: c.name,
      value: `p50 ${percentile(route, 0.5).toFixed(1)} p99 ${p99.toFixed(1)} ms`,
      baseline: `p99 ${percentile(raw, 0.99).toFixed(1)} ms raw`,
      ratio: (p99 / percentile(raw, 0.99)).toFixed(2),
      target: `p99 < ${c.target} ms: ${p99 < c.target ? 'met' : 'NOT met'}`,
    });
  }
  return { rows, notes: [`${runs} sequential requests each; random users over ${fmt(USERS)}; ${load()}`] };
}

// ---- leaderboards over a mainnet-sized population (issue 39) ----

const LB_ADDRESSES = Number(process.env.BENCH_LEADERBOARD_ADDRESSES ?? 1_400_000);
const LB_ACTIVE = Number(process.env.BENCH_LEADERBOARD_ACTIVE ?? 60_000);
/** BENCH_LEADERBOARD_OLD=0 leaves out the old way (its `all` refresh alone takes ~12 min here): the figures only. */
const LB_OLD = process.env.BENCH_LEADERBOARD_OLD !== '0';
/** The population's "now": fixed, so that the kept data set keeps its windows. */
const LB_NOW = Date.UTC(2026, 10, 30, 12, 30);

/**
 * The derived tables of a mainnet-sized population, generated in SQL (no fills): LB_ADDRESSES addresses with 4 days
 * each of older history (8 to 127 days back), LB_ACTIVE of them active each of the last 8 days in 3 hours (hourly rows
 * and their days), a snapshot at each address's last active day, the running state and totals as the derivation
 * keeps them.
 */
async function generatePopulation(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const t = performance.now();
  await pool.query(`TRUNCATE analytics.user_daily, analytics.user_hourly, analytics.account_snapshots,
    analytics.account_state, analytics.user_totals, analytics.leaderboard, analytics.live_boards,
    analytics.live_leaderboard, analytics.derive_checkpoint`);
  const today = Math.floor(LB_NOW / DAY_MS) * DAY_MS;
  const address = (i: string) => `'0x' || lpad(to_hex(${i}), 40, '0')`;
  // Figures of row `g` (an int8 expression): cents and fractions, some trips of every result.
  const figures = (
    g: string,
  ) => `1 + ${g} % 20, ((${g} * 31) % 100000) * 1.37 + 0.5, ((${g} * 13) % 2001 - 1000) * 0.25,
    ((${g} * 31) % 100000) * 0.00048, ((${g} % 21) - 10) * 0.01, ${g} % 4 / 2, ${g} % 4 - ${g} % 4 / 2 - (${g} % 7 = 0)::int,
    ${g} % 4, ${g} % 3, ${g} % 2`;
  const sums = 'fills, volume, realized_pnl, fees, funding, wins, losses, trips, longs, shorts';
  await pool.query(
    `INSERT INTO analytics.user_hourly (address, hour, ${sums})
     SELECT ${address('a')}, h, ${figures('(j * 3 + k + d)')}
     FROM generate_series(0, 7) d, generate_series(0, $1::int - 1) j, generate_series(0, 2) k,
       LATERAL (SELECT (j::int8 * 7919 + d * 104729) % $2 AS a,
                       $3::int8 - d * ${DAY_MS} + ((j + k * 5 + d) % 24) * ${HOUR_MS}::int8 AS h) x
     WHERE h <= $4`,
    [LB_ACTIVE, LB_ADDRESSES, today, LB_NOW],
  );
  log(`leaderboard bench: hourly rows generated`);
  await pool.query(
    `INSERT INTO analytics.user_daily (address, day, ${sums})
     SELECT address, '1970-01-01'::date + (hour / ${DAY_MS})::int, ${sums
       .split(', ')
       .map((c) => `sum(${c})`)
       .join(', ')}
     FROM analytics.user_hourly GROUP BY 1, 2`,
  );
  await pool.query(
    `INSERT INTO analytics.user_daily (address, day, ${sums})
     SELECT ${address('i')}, '1970-01-01'::date + ($2::int - 8 - (i * 31 + k * 29) % 120)::int, ${figures('(i + k)')}
     FROM generate_series(0, $1::int8 - 1) i, generate_series(0, 3) k`,
    [LB_ADDRESSES, today / DAY_MS],
  );
  log(`leaderboard bench: daily rows generated`);
  // A snapshot at the close of each address's last day (some days of history end in a loss below zero).
  await pool.query(
    `INSERT INTO analytics.account_snapshots (address, time, account_value, cash, position_value, unrealized_pnl,
       n_positions)
     SELECT address, (day - '1970-01-01'::date + 1)::int8 * ${DAY_MS}, v + u, v, abs(u) * 3, u, 1
     FROM (SELECT address, day, (hashtext(address || day) % 100000) * 0.37 AS v,
             (hashtext(day || address) % 1000) * 0.11 AS u
           FROM analytics.user_daily) d`,
  );
  await pool.query(
    `INSERT INTO analytics.account_state (address, cash, last_event, snapshot_value, snapshot_unrealized)
     SELECT DISTINCT ON (address) address, cash, time - 1, account_value, unrealized_pnl
     FROM analytics.account_snapshots ORDER BY address, time DESC`,
  );
  await pool.query(
    `INSERT INTO analytics.user_totals (address, first_hour, ${sums})
     SELECT d.address, least(h.first, d.first), ${sums
       .split(', ')
       .map((c) => `d.${c}`)
       .join(', ')}
     FROM (SELECT address, (min(day) - '1970-01-01'::date)::int8 * ${DAY_MS} AS first, ${sums
       .split(', ')
       .map((c) => `sum(${c}) AS ${c}`)
       .join(', ')} FROM analytics.user_daily GROUP BY address) d
     LEFT JOIN (SELECT address, min(hour) AS first FROM analytics.user_hourly GROUP BY address) h USING (address)`,
  );
  await pool.query(`INSERT INTO analytics.derive_checkpoint (job, cursor_time) VALUES ('analytics', $1)`, [LB_NOW]);
  await pool.query('VACUUM ANALYZE');
  log(`leaderboard bench: population generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

export interface LeaderboardBench {
  pool: pg.Pool;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startLeaderboardBench(
  server: BenchServer,
  log: (line: string) => void,
): Promise<LeaderboardBench> {
  const { pool } = await server.keptDatabase(`bench_leaderboards_${LB_ADDRESSES}_${LB_ACTIVE}`);
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM analytics.user_totals');
  if (Number(rows[0]?.n) !== LB_ADDRESSES) await generatePopulation(pool, log);
  return { pool, ...(await compatOver(pool, LB_NOW)) };
}

/**
 * The `all` and 7d refreshes and the live boards' minute, and the pages read from them, beside the old way in the
 * same run: the old refresh (writer/resummed.ts: every day of history re-summed, a snapshot probed per address,
 * DELETE + INSERT into an unpartitioned board with the same 7 indexes) and the old live top 100 (summed and probed at
 * each request).
 */
export async function benchLeaderboards(b: LeaderboardBench): Promise<BenchSection> {
  const { pool } = b;
  const timed = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  // The old board: as migration 0015 left it, filled as the old refresh left it.
  await pool.query(`DROP TABLE IF EXISTS analytics.bench_old_leaderboard`);
  await pool.query(`CREATE TABLE analytics.bench_old_leaderboard (LIKE analytics.leaderboard INCLUDING DEFAULTS,
    PRIMARY KEY (window_name, address))`);
  for (const m of METRICS) {
    const rank = rankColumn(m);
    await pool.query(
      `CREATE INDEX ON analytics.bench_old_leaderboard (window_name, ${rank}) WHERE ${rank} IS NOT NULL`,
    );
  }
  const oldRefresh = (window: '7d' | 'all') => {
    const hours = windowHours(window === 'all' ? null : LB_NOW - 7 * DAY_MS, LB_NOW);
    return inTransaction(pool, async (c) => {
      await c.query('DELETE FROM analytics.bench_old_leaderboard WHERE window_name = $1', [window]);
      await c.query(
        `INSERT INTO analytics.bench_old_leaderboard (${OLD_BOARD_COLUMNS}) SELECT $1, r.address, r.fills, r.volume,
           r.realized_pnl, r.fees, r.funding, r.wins, r.losses, r.trades, r.win_rate, r.pnl_pct, r.account_value,
           r.unrealized_pnl, to_timestamp($2::float8 / 1000), ${METRICS.map(rankColumn).join(', ')}
         FROM (${resummedBoard(3)}) r`,
        [window, LB_NOW, ...windowParams(hours)],
      );
    });
  };
  const rows: BenchRow[] = [];
  for (const window of ['all', '7d'] as const) {
    await refreshLeaderboard(pool, window, LB_NOW);
    const fresh = await timed(() => refreshLeaderboard(pool, window, LB_NOW));
    let old = Number.NaN;
    if (LB_OLD) {
      await oldRefresh(window);
      old = await timed(() => oldRefresh(window));
    }
    const target = window === 'all' ? `<= 60 s: ${met(fresh <= 60_000)}` : '< its 5 min cadence';
    rows.push({
      name: `leaderboard refresh ${window} (${fmt(LB_ADDRESSES)} addresses)`,
      value: `${(fresh / 1000).toFixed(1)} s`,
      baseline: LB_OLD ? `${(old / 1000).toFixed(1)} s old` : 'old left out',
      ratio: LB_OLD ? (fresh / old).toFixed(2) : '',
      target,
    });
  }
  for (const [hours, cadence] of LIVE_BOARDS) {
    const live = await timed(() => refreshLiveBoards(pool, LB_NOW, [hours]));
    rows.push({
      name: `live board ${hours} h (every metric, top 100)`,
      value: `${(live / 1000).toFixed(1)} s`,
      baseline: '',
      ratio: '',
      target: `< its ${cadence / 60_000} min cadence`,
    });
  }
  const inject = (url: string) => async () => {
    const res = await b.app.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  };
  const p99 = (sorted: number[]) => percentile(sorted, 0.99);
  const pages: {
    name: string;
    fresh: () => Promise<unknown>;
    /** The fresh page's statement alone (beside the old one's). */
    freshRaw?: () => Promise<unknown>;
    old: () => Promise<unknown>;
    oldRuns: number;
  }[] = [
    {
      name: 'leaderboard page (all, pnl, 100, page 50)',
      fresh: inject('/users/leaderboard?window=all&by=pnl&limit=100&page=50'),
      freshRaw: () =>
        pool.query(
          `SELECT * FROM analytics.leaderboard WHERE window_name = 'all' AND rank_pnl > 4900 AND rank_pnl <= 5000
           ORDER BY rank_pnl`,
        ),
      // The same rank range on the old board, after its DELETE + INSERT.
      old: () =>
        pool.query(
          `SELECT * FROM analytics.bench_old_leaderboard WHERE window_name = 'all' AND rank_pnl > 4900
             AND rank_pnl <= 5000 ORDER BY rank_pnl`,
        ),
      oldRuns: 200,
    },
    {
      name: 'live top 100 (24 h, pnl)',
      fresh: inject('/users/leaderboard?by=pnl&hours=24'),
      old: () => {
        const params = windowParams(windowHours(LB_NOW - 24 * HOUR_MS, LB_NOW));
        return pool.query(
          `SELECT *, count(*) OVER () FROM (${resummedSums(1)}) r
           ORDER BY ${metricOrder('pnl', 'r')} DESC NULLS LAST, r.address LIMIT 100`,
          params,
        );
      },
      oldRuns: 20,
    },
  ];
  for (const page of pages) {
    const fresh = await timeSequential(page.fresh, 10, 200);
    const old = LB_OLD ? await timeSequential(page.old, 2, page.oldRuns) : [Number.NaN];
    const raw = page.freshRaw ? `raw ${p99(await timeSequential(page.freshRaw, 10, 200)).toFixed(1)}, ` : '';
    rows.push({
      name: page.name,
      value: `p50 ${percentile(fresh, 0.5).toFixed(1)} p99 ${p99(fresh).toFixed(1)} ms`,
      baseline: LB_OLD ? `p99 ${raw}old raw ${p99(old).toFixed(1)} ms` : `p99 ${raw}old left out`,
      ratio: LB_OLD ? (p99(fresh) / p99(old)).toFixed(2) : '',
      target: `p99 <= 20 ms: ${met(p99(fresh) <= 20)}`,
    });
  }
  const { rows: size } = await pool.query<{ daily: string; hourly: string }>(
    `SELECT (SELECT count(*) FROM analytics.user_daily) AS daily, (SELECT count(*) FROM analytics.user_hourly) AS hourly`,
  );
  await pool.query('DROP TABLE analytics.bench_old_leaderboard');
  return {
    rows,
    notes: [
      `${fmt(LB_ADDRESSES)} addresses, ${fmt(LB_ACTIVE)} active a day; ${fmt(Number(size[0]?.daily))} daily and ` +
        `${fmt(Number(size[0]?.hourly))} hourly rows (the old \`all\` re-sums every daily row: at 500 days of ` +
        `mainnet, 30-50 M); pages: 200 sequential requests end to end beside the statements alone (old: its statement, the live one ` +
        `${pages[1]?.oldRuns} times); ${load()}`,
    ],
  };
}

const OLD_BOARD_COLUMNS = `window_name, address, fills, volume, realized_pnl, fees, funding, wins, losses, trades,
  win_rate, pnl_pct, account_value, unrealized_pnl, refreshed_at, ${METRICS.map(rankColumn).join(', ')}`;
