// The hip4 benchmarks (issue 18's "Measure"): /hip4/analytics (30 days of 1h buckets over 10 coins), /hip4/fills
// (1000 rows) and /hip4/providers end to end against the SQL behind them (the service's own statement run on the
// pool), and the same answers through the router against compat's. BENCH_HIP4_FILLS sets the data size (default
// 1 000 000 fills over 200 outcomes and 30 days, generated once into a kept database).

import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { createKey, revokeKey } from '../access/keys.ts';
import { analytics, fills, providers } from '../domains/hip4/service/fills.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { InProcessBus } from '../events/bus.ts';
import type { DomainName } from '../kit/domain.ts';
import { progress } from '../platform/progress.ts';
import { composeSupergraph } from '../router/compose.ts';
import { openRouterThread } from '../router/thread.ts';
import type { Stack } from '../stack.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import type { BenchServer } from './db.ts';
import { type HttpTarget, targetsVersusBaseline } from './http-load.ts';
import type { BenchRow, BenchSection } from './section.ts';
import { percentile } from './stats.ts';

const FILLS = Number(process.env.BENCH_HIP4_FILLS ?? 1_000_000);
const OUTCOMES = 200;
const FIRST_OUTCOME = 100;
const USERS = 5000;
const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 20);
const START = END - 30 * DAY;
const VENUES = ['predict', 'oddsx', 'hyperodds'];

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;

export interface Hip4Bench {
  stack: Stack;
  pool: pg.Pool;
  close(): Promise<void>;
}

async function count(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]?.n ?? 0);
}

/**
 * The registry (3 venues, a quarter of the outcomes oracle-emitted, 4 outcomes a question) and the fills as
 * generate_series rows: matches in pairs (taker then maker, same tid) spread evenly over 30 days and the outcomes.
 */
async function generate(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const t = performance.now();
  await pool.query('TRUNCATE hip4.fills, hip4.outcomes, hip4.questions, hip4.venues');
  await pool.query(
    `INSERT INTO hip4.venues (venue, deployer, fee_scale, sub_deployers, updated_at)
     SELECT v, '0x' || lpad(to_hex(i), 40, '0'), 0.5 + i * 0.25, '[["registerQuestion", []]]', $2
     FROM unnest($1::text[]) WITH ORDINALITY AS u(v, i)`,
    [VENUES, START],
  );
  // Outcome o belongs to question o / 4 and to venue (o % 4): 0 → oracle (''), 1..3 → the venues.
  const venue = `(ARRAY['', $1, $2, $3])[(o % 4) + 1]`;
  await pool.query(
    `INSERT INTO hip4.questions (question_id, name, description, fallback_outcome, named_outcomes, venue, deployer,
       updated_at)
     SELECT o / 4, 'question ' || o / 4, 'class:event', o + 3, ARRAY[o, o + 1, o + 2], ${venue}, '', $4
     FROM generate_series($5::int, $6::int, 4) o`,
    [...VENUES, START, FIRST_OUTCOME, FIRST_OUTCOME + OUTCOMES - 1],
  );
  await pool.query(
    `INSERT INTO hip4.outcomes (outcome_id, name, description, side_specs, question_id, quote_token, block_time,
       venue, deployer)
     SELECT o, 'outcome ' || o, 'class:priceBinary|underlying:BTC|period:1d', '[{"name":"Yes"},{"name":"No"}]', o / 4,
       'USDH', $4, ${venue}, ''
     FROM generate_series($5::int, $6::int) o`,
    [...VENUES, START, FIRST_OUTCOME, FIRST_OUTCOME + OUTCOMES - 1],
  );
  const matches = Math.floor(FILLS / 2);
  const step = (30 * DAY) / matches;
  const batch = 500_000;
  const bar = progress({ label: 'hip4 bench data', total: FILLS, unit: 'fills' });
  for (let from = 0; from < FILLS; from += batch) {
    await pool.query(
      `INSERT INTO hip4.fills (block_number, time, address, coin, outcome_id, side_index, px, sz, side, dir, closed_pnl,
         hash, oid, tid, fee, fee_token, crossed, is_settlement)
       SELECT g / 20, $1 + floor((g / 2) * $2)::bigint, '0x' || lpad(to_hex((g * 7919) % $3), 40, '0'),
         '#' || (10 * o + s), o, s, ((g / 2) % 997 + 1) / 1000.0, (g % 50) + 1,
         CASE WHEN g % 2 = 0 THEN 'B' ELSE 'A' END, 'Buy', 0, '0x' || md5((g / 2)::text) || md5((g / 2)::text), g,
         g / 2, 0.0005, 'USDH', g % 2 = 0, false
       FROM generate_series($4::bigint, $5::bigint) g,
         LATERAL (SELECT $6::int + ((g / 2) % $7)::int AS o, ((g / 2 / $7) % 2)::int AS s) x`,
      [START, step, USERS, from, Math.min(FILLS, from + batch) - 1, FIRST_OUTCOME, OUTCOMES],
    );
    bar.update(Math.min(FILLS, from + batch));
  }
  bar.stop();
  await pool.query('VACUUM ANALYZE hip4.fills');
  log(`hip4 bench: data generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

export async function startHip4Bench(server: BenchServer, log: (line: string) => void): Promise<Hip4Bench> {
  const { pool } = await server.keptDatabase(`bench_hip4_${FILLS}`);
  try {
    if ((await count(pool, 'hip4.fills')) !== FILLS || (await count(pool, 'hip4.outcomes')) !== OUTCOMES) {
      await generate(pool, log);
    }
    // The rollup as autovacuum leaves a table at rest: all-visible, so its covering index answers alone.
    await pool.query('VACUUM ANALYZE hip4.fill_hours');
    await pool.query('CHECKPOINT');
    // No node: nothing here is proxied.
    const stack = await startStackWithoutNode(pool, { bus: new InProcessBus() });
    return {
      stack,
      pool,
      async close() {
        await stack.close();
        await pool.end();
      },
    };
  } catch (err) {
    await pool.end();
    throw err;
  }
}

const get = (url: string): HttpTarget => ({ url, body: '', method: 'GET' });
const graphql = (url: string, query: string): HttpTarget => ({ url, body: JSON.stringify({ query }) });

/** The three scenarios over 30 days: compat, router and the SQL behind them, in interleaved rounds. */
export async function benchHip4Routes(b: Hip4Bench): Promise<BenchSection> {
  const coins = Array.from({ length: 10 }, (_, i) => `#${10 * (FIRST_OUTCOME + i * 7)}`);
  const page = (limit: number) => ({ limit, offset: 0 });
  const scenarios = [
    {
      name: '/hip4/analytics 30d 1h 10 coins',
      compat: `/hip4/analytics?interval=1h&coin=${encodeURIComponent(coins.join(','))}&start=${START}&end=${END}`,
      graphql: `{ hip4Analytics(interval: I1h, coins: ${JSON.stringify(coins)}, start: ${START}, end: ${END}) {
        status buckets { bucket coin fills volume buyVolume sellVolume feesUsdc uniqueUsers } } }`,
      sql: () => analytics(b.pool, { interval: '1h', coins, startTime: START, endTime: END, byCoin: true }, page(2000)),
    },
    {
      name: '/hip4/fills 1000',
      compat: '/hip4/fills?limit=1000',
      graphql: `{ hip4Fills(limit: 1000) { user { address } coin outcomeId px sz side time dir closedPnl hash oid tid
        fee feeToken crossed isSettlement } }`,
      sql: () => fills(b.pool, {}, page(1000)),
    },
    {
      name: '/hip4/providers',
      compat: '/hip4/providers',
      graphql: '{ hip4Providers { venue marketsTraded fills volumeUsdc uniqueUsers fees lastTrade } }',
      sql: () => providers(b.pool, {}, page(100)),
    },
  ];
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  for (const s of scenarios) {
    const check = await fetch(`${b.stack.urls.compat}${s.compat}`);
    if (check.status !== 200) throw new Error(`${s.compat}: ${check.status} ${await check.text()}`);
    const answer = (await check.json()) as unknown[] | { count: number };
    const size = Array.isArray(answer) ? answer.length : answer.count;
    const runs = await targetsVersusBaseline(
      { compat: get(`${b.stack.urls.compat}${s.compat}`), router: graphql(b.stack.urls.router, s.graphql) },
      s.sql,
      { rounds: 4, perRound: 15, warmup: 3 },
    );
    const p = (t: number[]) => ({ p50: percentile(t, 0.5), p99: percentile(t, 0.99) });
    const compat = p(runs.e2e.compat);
    const router = p(runs.e2e.router);
    const sql = p(runs.base);
    const compatRatio = compat.p50 / sql.p50;
    const routerRatio = router.p50 / compat.p50;
    rows.push(
      {
        name: `${s.name} (compat)`,
        value: `p50 ${ms(compat.p50)} p99 ${ms(compat.p99)}`,
        baseline: `SQL p50 ${ms(sql.p50)}`,
        ratio: compatRatio.toFixed(2),
        target: `<= 1.5x SQL, p99 < 50 ms: ${compatRatio <= 1.5 && compat.p99 < 50 ? 'met' : 'NOT met'}`,
      },
      {
        name: `${s.name} (router)`,
        value: `p50 ${ms(router.p50)} p99 ${ms(router.p99)}`,
        baseline: `compat p50 ${ms(compat.p50)}`,
        ratio: routerRatio.toFixed(2),
        target: `<= 2x compat, p99 < 50 ms: ${routerRatio <= 2 && router.p99 < 50 ? 'met' : 'NOT met'}`,
      },
    );
    notes.push(
      `${s.name}: ${size} rows, ${Math.round(runs.avgBytes.compat / 1024)} KiB compat; SQL p99 ${ms(sql.p99)}`,
    );
  }
  notes.push(`hip4.fills ${FILLS.toLocaleString('en-US')} rows over ${OUTCOMES} outcomes and 30 days`);
  return { rows, notes };
}

/**
 * Where the router's time goes on a tiny answer: the same question asked of compat, of the domain's subgraph
 * directly and through the router, for hip4's providers and for markets' allMids (another domain's tiny answer),
 * beside the floor of an HTTP round trip (compat's /health) measured in the same rounds.
 */
export async function benchHip4RouterCost(b: Hip4Bench): Promise<BenchSection> {
  const { urls } = b.stack;
  // The same router, thread and key checks as the stack's, but reaching the subgraphs over loopback HTTP as a router
  // in another process does: the stack's router asks its own process's subgraphs without a socket (issue 43).
  const httpRouter = openRouterThread({ auth: b.stack.auth });
  try {
    const overHttp = await httpRouter.listen({
      supergraphSdl: composeSupergraph(
        DOMAIN_LIST.map((d) => ({ name: d.name, url: urls[d.name as DomainName], schema: d.schema })),
      ),
      port: 0,
      deduplicateInflightRequests: Object.fromEntries(
        DOMAIN_LIST.map((d) => [d.name, d.router.deduplicateInflightRequests]),
      ),
    });
    return await routerCost(b, overHttp);
  } finally {
    await httpRouter.close();
  }
}

async function routerCost(b: Hip4Bench, overHttp: string): Promise<BenchSection> {
  const { urls } = b.stack;
  const providersQuery = '{ hip4Providers { venue marketsTraded fills volumeUsdc uniqueUsers fees lastTrade } }';
  const midsQuery = '{ allMids { coin mid } }';
  const cases = [
    {
      name: 'hip4Providers',
      targets: {
        compat: get(`${urls.compat}/hip4/providers`),
        subgraph: graphql(urls.hip4, providersQuery),
        router: graphql(urls.router, providersQuery),
        'router over HTTP': graphql(overHttp, providersQuery),
      },
    },
    {
      name: 'allMids',
      targets: {
        compat: { url: `${urls.compat}/info`, body: JSON.stringify({ type: 'allMids' }) },
        subgraph: graphql(urls.markets, midsQuery),
        router: graphql(urls.router, midsQuery),
        'router over HTTP': graphql(overHttp, midsQuery),
      },
    },
  ];
  const health = async () => (await fetch(`${urls.compat}/health`)).text();
  const rows: BenchRow[] = [];
  const measure = async (c: (typeof cases)[number]) => {
    const runs = await targetsVersusBaseline(c.targets, health, { rounds: 4, perRound: 15, warmup: 3 });
    const p50 = (t: number[]) => percentile(t, 0.5);
    const floor = p50(runs.base);
    const compat = p50(runs.e2e.compat);
    for (const [name, times] of Object.entries(runs.e2e) as [string, number[]][]) {
      const router = name.startsWith('router');
      // The routers against compat's answer, with issue 43's target; the others against a bare route's floor.
      const ratio = p50(times) / (router ? compat : floor);
      rows.push({
        name: `${c.name} via ${name}`,
        value: `p50 ${ms(p50(times))} p99 ${ms(percentile(times, 0.99))}`,
        baseline: router ? `compat p50 ${ms(compat)}` : `GET /health p50 ${ms(floor)}`,
        ratio: ratio.toFixed(2),
        target: router
          ? `<= 1.5x compat (issue 43): ${ratio <= 1.5 ? 'met' : 'NOT met'}; router - subgraph p50 ${ms(p50(times) - p50(runs.e2e.subgraph))}`
          : '',
      });
    }
  };
  for (const c of cases) await measure(c);
  // Last, and revoked after: while a key exists every request needs one (the kept database serves the next run).
  // Its credits make each call a charge (the conditional UPDATE), on compat and the router alike.
  const { key, record } = await createKey(b.pool, { scope: 'data', credits: 1e9, rateLimitPerMin: 1e6 });
  b.stack.auth.invalidate();
  try {
    const headers = { authorization: `Bearer ${key}` };
    await measure({
      name: 'allMids, key with credits',
      targets: {
        compat: { url: `${urls.compat}/info`, body: JSON.stringify({ type: 'allMids' }), headers },
        subgraph: graphql(urls.markets, midsQuery),
        router: { ...graphql(urls.router, midsQuery), headers },
        'router over HTTP': { ...graphql(overHttp, midsQuery), headers },
      },
    });
  } finally {
    await revokeKey(b.pool, String(record.id));
    b.stack.auth.invalidate();
  }
  return { rows, notes: [] };
}
