// EVM at scale (issue 19's Measure): a token with BENCH_EVM_HOLDERS holders (default 1 million) and
// BENCH_EVM_TXS transactions (default 5 million), generated in SQL once and kept in `.data/bench-pg` (database
// bench_evm). Measures a holders page (1000 rows: first page, a deep offset, and the same depth by keyset cursor),
// `/evm/transactions` (1000 rows of a time window) and `/evm/hip3/backstop/health`, each end to end through
// compat-rest and through the router, beside the service's own statements (the SQL behind them) in the same rounds.
// A small run: BENCH_ONLY=evm BENCH_EVM_HOLDERS=20000 BENCH_EVM_TXS=100000 npm run bench.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { fillSummary } from '../domains/accounts/service/fill-summary.ts';
import { principalSummaries } from '../domains/evm/service/backstop.ts';
import { transactions } from '../domains/evm/service/chain.ts';
import { backstopAddress } from '../domains/evm/service/index.ts';
import { HolderTotals, tokenHolders } from '../domains/evm/service/tokens.ts';
import { InProcessBus } from '../events/bus.ts';
import { EPHEMERAL_PORTS, type Stack, startStack } from '../stack.ts';
import type { BenchServer } from './db.ts';
import { type HttpTarget, targetsVersusBaseline } from './http-load.ts';
import type { BenchRow, BenchSection } from './section.ts';
import { percentile } from './stats.ts';

const HOLDERS = Number(process.env.BENCH_EVM_HOLDERS ?? 1_000_000);
const TXS = Number(process.env.BENCH_EVM_TXS ?? 5_000_000);
const TOKEN = `0x${'5e'.repeat(20)}`;
const START = Date.UTC(2026, 9, 1);
const TXS_PER_BLOCK = 10;
const BLOCK_MS = 1000;
/** The HIP-3 dexes the bench's node lists (index 1 and 2) and the fills the first one's backstop absorbed. */
const DEXES = ['xyz', 'flx'];
const BACKSTOP_FILLS = 20_000;
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;

export interface EvmBench {
  stack: Stack;
  pool: pg.Pool;
  sizes: { holders: number; transactions: number };
  close(): Promise<void>;
}

async function rowEstimate(pool: pg.Pool, table: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    'SELECT reltuples::bigint AS n FROM pg_class WHERE oid = $1::regclass',
    [table],
  );
  return Number(rows[0]?.n ?? 0);
}

async function generate(pool: pg.Pool, log: (line: string) => void): Promise<void> {
  const t = performance.now();
  await pool.query(
    'TRUNCATE evm.blocks, evm.transactions, evm.tokens, evm.token_holders, evm.backstop_transfers, accounts.fills',
  );
  await pool.query(`INSERT INTO evm.tokens VALUES ($1, 'BENCH', 18, 'erc20')`, [TOKEN]);
  // Balances spread over many values, some equal (ties ordered by address).
  await pool.query(
    `INSERT INTO evm.token_holders (token, address, balance_raw, updated_block)
     SELECT $1, '0x' || lpad(to_hex(g), 40, '0'), ((g::bigint * 7919) % 1000003)::numeric * 1000000000000, 1
     FROM generate_series(1, $2::int) g`,
    [TOKEN, HOLDERS],
  );
  log(`evm bench: ${HOLDERS.toLocaleString('en-US')} holders generated`);
  const blocks = Math.ceil(TXS / TXS_PER_BLOCK);
  await pool.query(
    `INSERT INTO evm.blocks SELECT b, '0x' || md5(b::text) || md5((b + 1)::text), $1 + b * $2::bigint, $3, 500000
     FROM generate_series(0, $4::int - 1) b`,
    [START, BLOCK_MS, TXS_PER_BLOCK, blocks],
  );
  const batch = 1_000_000;
  for (let from = 0; from < TXS; from += batch) {
    // One system transaction a block; recipients among 1 000 contracts.
    await pool.query(
      `INSERT INTO evm.transactions
       SELECT g / ${TXS_PER_BLOCK}, g % ${TXS_PER_BLOCK}, '0x' || md5(g::text) || md5((g + 7)::text),
         $1 + (g / ${TXS_PER_BLOCK}) * $2::bigint, 2, '0x' || lpad(to_hex(g % 50000), 40, '0'),
         '0x' || lpad(to_hex(1000000 + g % 1000), 40, '0'), (g % 1000)::numeric * 1000000000, 100000, 50000, true,
         68, g % ${TXS_PER_BLOCK} = 0
       FROM generate_series($3::bigint, $4::bigint) g`,
      [START, BLOCK_MS, from, Math.min(TXS, from + batch) - 1],
    );
    log(`evm bench: ${Math.min(TXS, from + batch).toLocaleString('en-US')} transactions generated`);
  }
  await pool.query(
    `INSERT INTO evm.backstop_transfers
     SELECT g, $1 + g * 60000::bigint, '0x' || md5(g::text), (ARRAY['xyz','flx','vntl'])[g % 3 + 1], g % 4 <> 0,
       '0x' || lpad(to_hex(g % 7), 40, '0'), 1000 + g % 5000
     FROM generate_series(1, 3000) g`,
    [START],
  );
  await pool.query(
    `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
       hash, oid, crossed, fee, tid, fee_token, liquidated_user, liquidation_mark_px, liquidation_method)
     SELECT g, $1, (ARRAY['xyz:XYZ100','xyz:GOLD'])[g % 2 + 1], 100 + g % 50, 1.5, 'B', $2 + g * 60000::bigint, 0,
       'Open Long', 0, '0x' || md5(g::text), g, false, 0.01, g, 'USDC', '0x' || lpad(to_hex(g % 100), 40, '0'), 100,
       'backstop'
     FROM generate_series(1, $3::int) g`,
    [backstopAddress(1), START, BACKSTOP_FILLS],
  );
  for (const table of [
    'evm.token_holders',
    'evm.transactions',
    'evm.blocks',
    'evm.backstop_transfers',
    'accounts.fills',
  ]) {
    await pool.query(`VACUUM ANALYZE ${table}`);
  }
  await pool.query('CHECKPOINT');
  log(`evm bench: data generated in ${((performance.now() - t) / 1000).toFixed(0)} s`);
}

/** A node that answers perpDexs only: the backstop addresses come from the dex indexes it lists. */
async function perpDexsNode(): Promise<{ url: string; close(): Promise<void> }> {
  const body = JSON.stringify([null, ...DEXES.map((name) => ({ name }))]);
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/info`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function startEvmBench(server: BenchServer, log: (line: string) => void): Promise<EvmBench> {
  const { pool } = await server.keptDatabase('bench_evm');
  const node = await perpDexsNode();
  try {
    if (
      (await rowEstimate(pool, 'evm.token_holders')) < HOLDERS * 0.95 ||
      (await rowEstimate(pool, 'evm.transactions')) < TXS * 0.95 ||
      (await rowEstimate(pool, 'evm.token_holders')) > HOLDERS * 1.05 ||
      (await rowEstimate(pool, 'evm.transactions')) > TXS * 1.05
    ) {
      await generate(pool, log);
    }
    const stack = await startStack({
      pool,
      bus: new InProcessBus(),
      upstreamInfoUrl: node.url,
      upstreamTimeoutMs: 2000,
      ports: EPHEMERAL_PORTS,
      log: () => {},
    });
    return {
      stack,
      pool,
      sizes: {
        holders: await rowEstimate(pool, 'evm.token_holders'),
        transactions: await rowEstimate(pool, 'evm.transactions'),
      },
      async close() {
        await stack.close();
        await pool.end();
        await node.close();
      },
    };
  } catch (err) {
    await pool.end();
    await node.close();
    throw err;
  }
}

interface Case {
  name: string;
  compat: string;
  graphql: string;
  sql: () => Promise<unknown>;
}

export async function benchEvm(b: EvmBench): Promise<BenchSection> {
  const compat = b.stack.urls.compat;
  const totals = new HolderTotals(b.pool);
  const deep = Math.max(0, Math.floor(b.sizes.holders * 0.9) - 1000);
  // The cursor of the holder just before the deep page: the keyset read of the same rows.
  const before = await tokenHolders(b.pool, totals, TOKEN, 18, { limit: 1, offset: Math.max(0, deep - 1) });
  const cursor = `${before.rows[0]?.balance_raw}:${before.rows[0]?.address}`;
  const end = START + Math.ceil(TXS / TXS_PER_BLOCK) * BLOCK_MS;
  const window = { startTime: end - 3_600_000, endTime: end };
  const holderFields = 'nodes { address balanceRaw balance share } hasMore endCursor';
  const cases: Case[] = [
    {
      name: 'holders 1000, first page',
      compat: `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1000`,
      graphql: `{ evmToken(address: "${TOKEN}") { holders(limit: 1000) { ${holderFields} } } }`,
      sql: () => tokenHolders(b.pool, totals, TOKEN, 18, { limit: 1000, offset: 0 }),
    },
    {
      name: `holders 1000, offset ${deep.toLocaleString('en-US')}`,
      compat: `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1000&offset=${deep}`,
      graphql: `{ evmToken(address: "${TOKEN}") { holders(limit: 1000, offset: ${deep}) { ${holderFields} } } }`,
      sql: () => tokenHolders(b.pool, totals, TOKEN, 18, { limit: 1000, offset: deep }),
    },
    {
      name: 'holders 1000, same depth by cursor',
      compat: `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1000&cursor=${cursor}`,
      graphql: `{ evmToken(address: "${TOKEN}") { holders(limit: 1000, after: "${cursor}") { ${holderFields} } } }`,
      sql: () => tokenHolders(b.pool, totals, TOKEN, 18, { limit: 1000, offset: 0, cursor }),
    },
    {
      name: '/evm/transactions 1000, 1 h window',
      compat: `/evm/transactions?limit=1000&start_time=${window.startTime}&end_time=${window.endTime}`,
      graphql: `{ evmTransactions(limit: 1000, startTime: ${window.startTime}, endTime: ${window.endTime}) { hasMore nodes { hash blockNumber index time type from to value gasLimit gasUsed success inputLen isSystem } } }`,
      sql: () => transactions(b.pool, { ...window, includeSystem: false, limit: 1000, offset: 0 }),
    },
    {
      name: '/evm/hip3/backstop/health',
      compat: '/evm/hip3/backstop/health',
      graphql:
        '{ backstopHealth { dex backstopAddress dexIndex principalDepositedUsdc principalWithdrawnUsdc netPrincipalUsdc fillCount notionalTraded feesPaid fillsLast24h firstFillTime lastFillTime coinsActive } }',
      sql: () =>
        Promise.all([
          principalSummaries(b.pool, {}),
          ...DEXES.map((_, i) => fillSummary(b.pool, backstopAddress(i + 1), Date.now() - 86_400_000)),
        ]),
    },
  ];
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  for (const c of cases) {
    // A GraphQL error answers 200 too: make sure each query is answered before timing it.
    const probe = (await (
      await fetch(b.stack.urls.router, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: c.graphql }),
      })
    ).json()) as { errors?: { message: string }[] };
    if (probe.errors) throw new Error(`${c.name} (router): ${probe.errors[0]?.message}`);
    const targets: Record<'compat' | 'router', HttpTarget> = {
      compat: { url: `${compat}${c.compat}`, body: '', method: 'GET' },
      router: { url: b.stack.urls.router, body: JSON.stringify({ query: c.graphql }) },
    };
    const runs = await targetsVersusBaseline(targets, c.sql, { rounds: 4, perRound: 25, warmup: 5 });
    const p = (xs: number[], q: number) => percentile(xs, q);
    const sqlP50 = p(runs.base, 0.5);
    const compatP50 = p(runs.e2e.compat, 0.5);
    const compatP99 = p(runs.e2e.compat, 0.99);
    const routerP50 = p(runs.e2e.router, 0.5);
    const routerP99 = p(runs.e2e.router, 0.99);
    const compatMet = compatP99 < 50 && compatP50 / sqlP50 <= 1.5;
    const routerMet = routerP99 < 50 && routerP50 / compatP50 <= 2;
    rows.push(
      {
        name: `${c.name} (compat)`,
        value: `p50 ${ms(compatP50)} p99 ${ms(compatP99)}`,
        baseline: `SQL p50 ${ms(sqlP50)}`,
        ratio: (compatP50 / sqlP50).toFixed(2),
        target: `p99 < 50 ms, <= 1.5x SQL: ${compatMet ? 'met' : 'NOT met'}`,
      },
      {
        name: `${c.name} (router)`,
        value: `p50 ${ms(routerP50)} p99 ${ms(routerP99)}`,
        baseline: `compat p50 ${ms(compatP50)}`,
        ratio: (routerP50 / compatP50).toFixed(2),
        target: `p99 < 50 ms, <= 2x compat: ${routerMet ? 'met' : 'NOT met'}`,
      },
    );
    notes.push(`${c.name}: SQL p99 ${ms(p(runs.base, 0.99))}; ${Math.round(runs.avgBytes.compat)} bytes via compat`);
  }
  notes.push(
    `tables: evm.token_holders ${b.sizes.holders.toLocaleString('en-US')} rows (one token), evm.transactions ` +
      `${b.sizes.transactions.toLocaleString('en-US')} rows, ${BACKSTOP_FILLS.toLocaleString('en-US')} absorbed fills`,
    'deep offsets read and skip every row before the page; the keyset cursor (`cursor` / `after`) reads the page alone',
  );
  return { rows, notes };
}
