// Accounts at scale: 10 million fills and 2 million order-status rows (one user holding 100 000 fills), generated
// in SQL once and kept in `.data/bench-pg` between runs. Measures userFills (2 000 rows) and historicalOrders in
// window mode end to end, through compat-rest and through the router, beside the raw SQL behind them.

import type pg from 'pg';
import type { FillRow } from '../db/rows/accounts.ts';
import { fillColumnsOf } from '../domains/accounts/schema/fill.ts';
import { accountsSchema } from '../domains/accounts/schema/index.ts';
import { orderColumnsOf } from '../domains/accounts/schema/order.ts';
import { fillPage } from '../domains/accounts/service/fill-pages.ts';
import { userFillsSql } from '../domains/accounts/service/fills.ts';
import { historicalOrderRows } from '../domains/accounts/service/orders.ts';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { InProcessBus } from '../events/bus.ts';
import type { Address } from '../platform/fields.ts';
import { progress } from '../platform/progress.ts';
import { composeSupergraph } from '../router/compose.ts';
import { openRouterThread } from '../router/thread.ts';
import type { Stack } from '../stack.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import { floorNote } from './bare-route.ts';
import type { BenchServer } from './db.ts';
import { targetsVersusBaseline, versusBaseline } from './http-load.ts';
import type { BenchRow, BenchSection } from './section.ts';
import { LatencyHistogram, percentile, timeSequential } from './stats.ts';
import { Subscribers, stampHash, wallMs } from './subscribers.ts';

export const HEAVY_USER = `0x${'ab'.repeat(20)}` as Address;
const FILLS = Number(process.env.BENCH_ACCOUNT_FILLS ?? 10_000_000);
const STATUSES = Number(process.env.BENCH_ACCOUNT_STATUSES ?? 2_000_000);
/** Every 100th fill and status row is the heavy user's: 100 000 fills of 10 million. */
const HEAVY_EVERY = 100;
const START = Date.UTC(2026, 10, 1);
const FILL_STEP_MS = 30;
const STATUS_STEP_MS = 150;
const USERS = 10_000;

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;

export interface AccountsBench {
  stack: Stack;
  pool: pg.Pool;
  bus: InProcessBus;
  sizes: { fills: number; statuses: number; heavyFills: number };
  close(): Promise<void>;
}

async function count(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT reltuples::bigint AS n FROM pg_class WHERE oid = $1::regclass`,
    [table],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Fills and order statuses as generate_series rows: cheap to make, shaped like the real ones. */
async function generate(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const t = performance.now();
  await pool.query('TRUNCATE accounts.fills, accounts.order_statuses');
  const user = `CASE WHEN g % ${HEAVY_EVERY} = 0 THEN '${HEAVY_USER}' ELSE '0x' || lpad(to_hex(g % ${USERS}), 40, '0') END`;
  const batch = 1_000_000;
  const bar = progress({ label: 'accounts bench data', total: FILLS + STATUSES, unit: 'rows' });
  for (let from = 1; from <= FILLS; from += batch) {
    await pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
         hash, oid, crossed, fee, tid, fee_token, cloid, twap_id)
       SELECT g / 10, ${user}, (ARRAY['BTC','ETH','SOL','HYPE'])[g % 4 + 1], 90000.5 + (g % 1000), 0.01,
         CASE WHEN g % 2 = 0 THEN 'B' ELSE 'A' END, ${START} + g * ${FILL_STEP_MS}::bigint, 0.0,
         CASE WHEN g % 2 = 0 THEN 'Open Long' ELSE 'Open Short' END, 0.0,
         '0x' || md5(g::text) || md5((g + 1)::text), g, g % 2 = 0, 0.1, g, 'USDC', NULL, NULL
       FROM generate_series($1::bigint, $2::bigint) g`,
      [from, Math.min(FILLS, from + batch - 1)],
    );
    bar.update(Math.min(FILLS, from + batch - 1));
  }
  // Two status rows per order (open, then filled or canceled); every 50th order a stop with a triggered row.
  for (let from = 1; from <= STATUSES; from += batch) {
    await pool.query(
      `INSERT INTO accounts.order_statuses (block_number, time, address, status, oid, coin, side, limit_px, sz,
         orig_sz, order_time, trigger_condition, is_trigger, trigger_px, is_position_tpsl, reduce_only, order_type, tif)
       SELECT g / 10, ${START} + g * ${STATUS_STEP_MS}::bigint, ${user.replaceAll('g %', '(g / 2) %')},
         CASE WHEN g % 2 = 1 THEN 'open' WHEN g % 4 = 0 THEN 'filled' ELSE 'canceled' END,
         g / 2, (ARRAY['BTC','ETH','SOL','HYPE'])[g % 4 + 1], CASE WHEN g % 4 < 2 THEN 'B' ELSE 'A' END,
         90000.0 + (g % 1000), CASE WHEN g % 2 = 1 THEN 0.01 ELSE 0.0 END, 0.01, ${START} + (g - g % 2) * ${STATUS_STEP_MS}::bigint,
         'N/A', false, 0.0, false, false, 'Limit', 'Gtc'
       FROM generate_series($1::bigint, $2::bigint) g`,
      [from, Math.min(STATUSES, from + batch - 1)],
    );
    bar.update(FILLS + Math.min(STATUSES, from + batch - 1));
  }
  bar.stop();
  // VACUUM sets the visibility map (index-only scans, no hint-bit writes on the first reads), as autovacuum would
  // eventually; measuring before it would time the freshly loaded state, not the service.
  await pool.query('VACUUM ANALYZE accounts.fills');
  await pool.query('VACUUM ANALYZE accounts.order_statuses');
  await pool.query('CHECKPOINT');
  log(`accounts bench: data generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

export async function startAccountsBench(server: BenchServer, log: (line: string) => void): Promise<AccountsBench> {
  const { pool } = await server.keptDatabase('bench_accounts');
  try {
    if (
      (await count(pool, 'accounts.fills')) < FILLS * 0.95 ||
      (await count(pool, 'accounts.order_statuses')) < STATUSES * 0.95
    ) {
      await generate(pool, log);
    }
    const bus = new InProcessBus();
    // No node: nothing here is proxied.
    const stack = await startStackWithoutNode(pool, { bus });
    const sizes = {
      fills: await count(pool, 'accounts.fills'),
      statuses: await count(pool, 'accounts.order_statuses'),
      heavyFills: FILLS / HEAVY_EVERY,
    };
    return {
      stack,
      pool,
      bus,
      sizes,
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

interface Latency {
  p50Ms: number;
  p99Ms: number;
}

/**
 * A compat POST against the statements behind it, in alternating rounds (versusBaseline). The note gives the
 * floors under the targets: the statements' own p99, HTTP alone for the same answer (a bare route serving the
 * answer's bytes), and both in one request (a bare route running the statements, then sending those bytes): what
 * any implementation pays.
 */
async function compare(
  name: string,
  url: string,
  body: { type: string; [field: string]: unknown },
  sql: () => Promise<unknown>,
  target: string,
): Promise<{ row: BenchRow; note: string }> {
  const request = { url, body: JSON.stringify(body) };
  const runs = await versusBaseline(request, sql, { rounds: 4, perRound: 25, warmup: 10 });
  const p50 = percentile(runs.e2e, 0.5);
  const p99 = percentile(runs.e2e, 0.99);
  const sqlP50 = percentile(runs.base, 0.5);
  const ratio = p50 / sqlP50;
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: request.body,
  });
  const floors = await floorNote(body, await answer.text(), sql, sqlP50);
  return {
    row: {
      name,
      value: `p50 ${ms(p50)} p99 ${ms(p99)}`,
      baseline: `SQL p50 ${ms(sqlP50)}`,
      ratio: ratio.toFixed(2),
      target: `${target}: ${ratio <= 1.5 && p99 < 50 ? 'met' : 'NOT met'}`,
    },
    note:
      `${name}: the SQL alone p50 ${ms(sqlP50)}, p99 ${ms(percentile(runs.base, 0.99))} (${runs.base.length} runs ` +
      `each); ${floors}`,
  };
}

/** p50 and p99 of sorted times. */
const latencyOf = (sorted: number[]): Latency => ({ p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) });

export async function benchAccountQueries(b: AccountsBench): Promise<BenchSection> {
  // The baselines run the very statements the service runs (exported by it), through pg, rows parsed.
  const end = START + FILLS * FILL_STEP_MS;
  const window = [START + STATUSES * STATUS_STEP_MS - 86_400_000, START + STATUSES * STATUS_STEP_MS] as const;
  const orderWindow = { user: HEAVY_USER, startTime: window[0], endTime: window[1] };
  const compared = [
    await compare(
      'userFills 2000 rows (compat)',
      `${b.stack.urls.compat}/info`,
      { type: 'userFills', user: HEAVY_USER },
      () => b.pool.query(userFillsSql(HEAVY_USER)),
      '<= 1.5x SQL, p99 < 50 ms',
    ),
    await compare(
      'historicalOrders window (compat)',
      `${b.stack.urls.compat}/info`,
      { type: 'historicalOrders', ...orderWindow },
      () => historicalOrderRows(b.pool, { ...orderWindow, now: Date.now() }),
      '<= 1.5x SQL, p99 < 50 ms',
    ),
  ];
  const rows: BenchRow[] = compared.map((c) => c.row);
  // User.fills and User.orders read the columns of the selected fields only (schema/fill.ts, schema/order.ts): their
  // SQL here is those statements.
  const fillsQuery = { user: HEAVY_USER, endTime: end, limit: 2000, order: 'desc', includeOrderType: false } as const;
  const fillFields = ['coin', 'px', 'sz', 'time', 'oid'];
  const orderFields = ['coin', 'side', 'limitPx', 'sz', 'oid', 'timestamp', 'orderType'];
  const queries = [
    {
      name: 'User.fills 2000',
      query: `{ user(address: "${HEAVY_USER}") { fills(first: 2000, endTime: ${end}) { edges { node { ${fillFields.join(' ')} } } } } }`,
      sql: () => fillPage(b.pool, fillsQuery, { maxLimit: 2000, columns: fillColumnsOf(fillFields) }),
    },
    {
      name: 'User.orders window',
      query: `{ user(address: "${HEAVY_USER}") { orders(first: 2000, startTime: ${window[0]}, endTime: ${window[1]}) { edges { node { status statusTimestamp order { ${orderFields.join(' ')} } } } } } }`,
      sql: () =>
        historicalOrderRows(
          b.pool,
          { ...orderWindow, now: Date.now() },
          orderColumnsOf(['status', 'statusTimestamp', 'order', ...orderFields]),
        ),
    },
  ];
  // The stack's router answers these with the subgraph's bytes (router/pass-through.ts); a second router thread over
  // the same subgraphs, with pass-through off, shows what that saves. Interleaved rounds, as elsewhere.
  const full = openRouterThread();
  const notes: string[] = [];
  try {
    const fullUrl = await full.listen({
      supergraphSdl: composeSupergraph([
        { name: 'markets', url: b.stack.urls.markets, schema: marketsSchema },
        { name: 'accounts', url: b.stack.urls.accounts, schema: accountsSchema },
      ]),
      port: 0,
      deduplicateInflightRequests: { markets: true, accounts: false },
      passThrough: false,
    });
    for (const { name, query, sql } of queries) {
      const body = JSON.stringify({ query });
      const runs = await targetsVersusBaseline(
        {
          routed: { url: b.stack.urls.router, body },
          direct: { url: b.stack.urls.accounts, body },
          full: { url: fullUrl, body },
        },
        sql,
        { rounds: 4, perRound: 50, warmup: 5 },
      );
      const t = {
        routed: latencyOf(runs.e2e.routed),
        direct: latencyOf(runs.e2e.direct),
        full: latencyOf(runs.e2e.full),
        sql: latencyOf(runs.base),
      };
      const row = (label: string, l: Latency, target: string): BenchRow => ({
        name: `${name} (${label})`,
        value: `p50 ${ms(l.p50Ms)} p99 ${ms(l.p99Ms)}`,
        baseline: `SQL p50 ${ms(t.sql.p50Ms)}`,
        ratio: (l.p50Ms / t.sql.p50Ms).toFixed(2),
        target,
      });
      const met = t.routed.p50Ms / t.sql.p50Ms <= 1.5 && t.routed.p99Ms < 50;
      rows.push(
        row('router', t.routed, `<= 1.5x SQL, p99 < 50 ms: ${met ? 'met' : 'NOT met'}`),
        row('subgraph', t.direct, 'reported'),
        row('no pass-through', t.full, 'the router without pass-through'),
      );
      notes.push(
        `${name}: p99 SQL ${ms(t.sql.p99Ms)}, subgraph ${ms(t.direct.p99Ms)}, router ${ms(t.routed.p99Ms)}; ` +
          `the router over the subgraph at p50: ${(t.routed.p50Ms / t.direct.p50Ms).toFixed(2)}x`,
      );
    }
  } finally {
    await full.close();
  }
  const wholeFills = await timeSequential(() => fillPage(b.pool, fillsQuery, { maxLimit: 2000 }), 10, 100);
  const wholeOrders = await timeSequential(
    () => historicalOrderRows(b.pool, { ...orderWindow, now: Date.now() }),
    5,
    50,
  );
  notes.push(
    `User.fills 2000 and User.orders window read the columns of the selected fields only (and their keys); the ` +
      `same pages read whole: SQL p50 ${ms(percentile(wholeFills, 0.5))} (all 25 columns of the fills), ` +
      `${ms(percentile(wholeOrders, 0.5))} (the 19 of the orders)`,
    "router: answers with the subgraph's bytes where a query's plan is one fetch (pass-through); the no pass-through " +
      'router parses, projects and serializes them, as for a query that crosses subgraphs',
  );
  return {
    rows,
    notes: [
      ...compared.map((c) => c.note),
      ...notes,
      `tables: accounts.fills ${b.sizes.fills.toLocaleString('en-US')} rows, accounts.order_statuses ${b.sizes.statuses.toLocaleString('en-US')} rows; the measured user holds ${b.sizes.heavyFills.toLocaleString('en-US')} fills`,
    ],
  };
}

const FILL_USERS = 1000;
const FILLS_PER_S = 1000;
const FILL_BLOCK_MS = 100;
const FILL_MEASURE_MS = 10_000;

/** Fresh addresses (no stored fills, so their snapshots carry no stamp). */
const latencyUser = (i: number) => `0xfe${i.toString(16).padStart(38, '0')}`;

/** A fill's latency from the ingest bus to 1 000 /ws clients, each subscribed to userFills of its own user. */
export async function benchFillLatency(b: AccountsBench): Promise<BenchSection> {
  const users = Array.from({ length: FILL_USERS }, (_, i) => latencyUser(i));
  const subs = await Subscribers.start(
    'ws',
    b.stack.urls.ws,
    FILL_USERS,
    users.map((user) => ({ type: 'userFills', user, aggregateByTime: false })),
    120_000,
  );
  let next = 0;
  let tid = 1;
  let measuring = false;
  let published = 0;
  const publish = () => {
    const at = wallMs();
    const hash = stampHash(measuring, at);
    const rows: FillRow[] = [];
    for (let k = 0; k < (FILLS_PER_S * FILL_BLOCK_MS) / 1000; k++) {
      const address = users[next++ % users.length] as string;
      rows.push({
        block_number: tid,
        address,
        coin: 'ETH',
        px: '3000.5',
        sz: '0.1',
        side: 'B',
        time: Math.floor(at),
        start_position: '0.0',
        dir: 'Open Long',
        closed_pnl: '0.0',
        hash,
        oid: tid,
        crossed: true,
        fee: '0.1',
        tid: tid++,
        fee_token: 'USDC',
        cloid: null,
        twap_id: null,
        builder: null,
        builder_fee: null,
        deployer_fee: null,
        priority_gas: null,
        liquidated_user: null,
        liquidation_mark_px: null,
        liquidation_method: null,
        event_index: k,
      });
    }
    if (measuring) published += rows.length;
    b.bus.publish('fills', rows);
  };
  const timer = setInterval(publish, FILL_BLOCK_MS);
  try {
    const deadline = performance.now() + 30_000;
    while (subs.live < FILL_USERS && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    measuring = true;
    await new Promise((r) => setTimeout(r, FILL_MEASURE_MS));
    measuring = false;
    await new Promise((r) => setTimeout(r, 1000));
  } finally {
    clearInterval(timer);
  }
  const r = await subs.stop();
  // The subscribers report frames without a stamp; here those are the (empty) storage snapshots, as they should be.
  const errors = r.errors.filter((e) => !e.includes('"isSnapshot":true'));
  const h = LatencyHistogram.from(r);
  const p99 = h.quantile(0.99);
  return {
    rows: [
      {
        name: `fill bus -> /ws userFills, ${FILL_USERS} users`,
        value: `p50 ${ms(h.quantile(0.5))} p99 ${ms(p99)}`,
        baseline: 'n/a',
        ratio: '-',
        target: `p99 < 50 ms: ${p99 < 50 && r.total === published ? 'met' : 'NOT met'}`,
      },
    ],
    notes: [
      `${FILLS_PER_S} fills/s in blocks every ${FILL_BLOCK_MS} ms, one user each, ${FILL_USERS} clients live of ${FILL_USERS} ` +
        `(${subs.live} had a warm-up fill); received ${r.total} of ${published} measured fills` +
        (r.lost ? `; ${r.lost} connections lost` : '') +
        (errors.length ? `; ${errors.join(' | ')}` : ''),
    ],
  };
}
