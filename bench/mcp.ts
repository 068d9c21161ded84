// The MCP tool server beside compat REST, in the same run: a `tools/call` for allMids and for a user's 2 000 fills
// against the same answer over POST /info (latency, one request at a time), and what credit charging costs under
// 50 concurrent callers (throughput with a key that has credits, one conditional UPDATE a call, against a key
// without a credit limit, rounds alternating). BENCH_MCP_FILLS sets the fills generated (default 20 000, a tenth of
// them the heavy user's).

import type pg from 'pg';
import { createKey } from '../access/keys.ts';
import { userFillsSql } from '../domains/accounts/service/fills.ts';
import type { Address } from '../platform/fields.ts';
import type { Stack } from '../stack.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import type { BenchServer } from './db.ts';
import { type HttpTarget, targetsVersusBaseline, throughput } from './http-load.ts';
import type { BenchRow, BenchSection } from './section.ts';
import { percentile } from './stats.ts';

const FILLS = Number(process.env.BENCH_MCP_FILLS ?? 20_000);
const HEAVY_USER = `0x${'cd'.repeat(20)}`;
const START = Date.UTC(2026, 10, 1);
const COINS = 100;

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export interface McpBench {
  stack: Stack;
  pool: pg.Pool;
  /** A key without a credit limit, and one with credits (both far from their rate limit). */
  keys: { open: string; paid: string; paidId: number };
  close(): Promise<void>;
}

export async function startMcpBench(server: BenchServer): Promise<McpBench> {
  const { pool } = await server.freshDatabase('bench_mcp');
  // Every 10th fill the heavy user's; one trade per coin so that allMids has prices (last trade, no books).
  await pool.query(
    `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
       hash, oid, crossed, fee, tid, fee_token, cloid, twap_id)
     SELECT g / 10, CASE WHEN g % 10 = 0 THEN '${HEAVY_USER}' ELSE '0x' || lpad(to_hex(g % 1000), 40, '0') END,
       (ARRAY['BTC','ETH','SOL','HYPE'])[g % 4 + 1], 90000.5 + (g % 1000), 0.01,
       CASE WHEN g % 2 = 0 THEN 'B' ELSE 'A' END, ${START} + g * 30::bigint, 0.0,
       CASE WHEN g % 2 = 0 THEN 'Open Long' ELSE 'Open Short' END, 0.0,
       '0x' || md5(g::text) || md5((g + 1)::text), g, g % 2 = 0, 0.1, g, 'USDC', NULL, NULL
     FROM generate_series(1, $1::bigint) g`,
    [FILLS],
  );
  await pool.query(
    `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
     SELECT g, 0, ${START} + g, 'COIN' || g, 'B', 100 + g, 1, '0x' || md5(g::text), g, NULL, NULL, 0
     FROM generate_series(1, ${COINS}) g`,
  );
  await pool.query('VACUUM ANALYZE accounts.fills');
  const stack = await startStackWithoutNode(pool);
  const open = await createKey(pool, { scope: 'data', rateLimitPerMin: 1_000_000_000 });
  const paid = await createKey(pool, { scope: 'data', rateLimitPerMin: 1_000_000_000, credits: 1_000_000_000_000 });
  stack.auth.invalidate();
  return {
    stack,
    pool,
    keys: { open: open.key, paid: paid.key, paidId: paid.record.id },
    async close() {
      await stack.close();
      await pool.end();
    },
  };
}

const MCP_ACCEPT = 'application/json, text/event-stream';

function mcpTarget(b: McpBench, key: string, name: string, args: Record<string, unknown>): HttpTarget {
  return {
    url: b.stack.urls.mcp,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
  };
}

function compatTarget(b: McpBench, key: string, body: object): HttpTarget {
  return {
    url: `${b.stack.urls.compat}/info`,
    body: JSON.stringify(body),
    headers: { authorization: `Bearer ${key}` },
  };
}

/** A tool call against compat's answer to the same question, alternating rounds; the raw read as a note. */
async function toolVersusCompat(
  name: string,
  mcp: HttpTarget,
  compat: HttpTarget,
  raw: { what: string; run: () => Promise<unknown> },
  perRound: number,
): Promise<{ row: BenchRow; note: string }> {
  // Checked first: a tool error would be timed as a fast answer.
  const probe = (await (
    await fetch(mcp.url, {
      method: 'POST',
      headers: { ...mcp.headers, 'content-type': 'application/json' },
      body: mcp.body,
    })
  ).json()) as {
    result?: { isError?: boolean; content?: { text: string }[] };
  };
  if (!probe.result || probe.result.isError) throw new Error(`${name}: ${JSON.stringify(probe).slice(0, 300)}`);
  const r = await targetsVersusBaseline({ mcp, compat }, raw.run, { rounds: 5, perRound, warmup: 10 });
  const [p50, p99, compatP50] = [
    percentile(r.e2e.mcp, 0.5),
    percentile(r.e2e.mcp, 0.99),
    percentile(r.e2e.compat, 0.5),
  ];
  const ratio = p50 / compatP50;
  return {
    row: {
      name,
      value: `p50 ${ms(p50)} p99 ${ms(p99)}`,
      baseline: `compat p50 ${ms(compatP50)}`,
      ratio: ratio.toFixed(2),
      target: `<= 1.2x compat, p99 < 50 ms: ${ratio <= 1.2 && p99 < 50 ? 'met' : 'NOT met'}`,
    },
    note:
      `${name}: compat p99 ${ms(percentile(r.e2e.compat, 0.99))}; ${raw.what} p50 ${ms(percentile(r.base, 0.5))}; ` +
      `answer ${fmt(r.avgBytes.mcp)} bytes over MCP, ${fmt(r.avgBytes.compat)} over compat (${r.e2e.mcp.length} calls each)`,
  };
}

export async function benchMcpCalls(b: McpBench): Promise<BenchSection> {
  const key = b.keys.open;
  const mids = await toolVersusCompat(
    'tools/call allMids',
    mcpTarget(b, key, 'markets_all_mids', {}),
    compatTarget(b, key, { type: 'allMids' }),
    { what: 'the service call alone', run: async () => b.stack.markets.firstDexMids() },
    200,
  );
  const fills = await toolVersusCompat(
    'tools/call userFills 2000',
    mcpTarget(b, key, 'accounts_user_fills', { user: HEAVY_USER }),
    compatTarget(b, key, { type: 'userFills', user: HEAVY_USER }),
    { what: 'the SQL alone', run: () => b.pool.query(userFillsSql(HEAVY_USER as Address)) },
    40,
  );
  return { rows: [mids.row, fills.row], notes: [mids.note, fills.note] };
}

/** Throughput at 50 connections with credits charged (a key with credits) and not (a key without a limit). */
export async function benchCreditCharging(b: McpBench): Promise<BenchSection> {
  const load = { concurrency: 50, warmupMs: 1_000, durationMs: 3_000 };
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  const before = await creditsOf(b);
  let charged = 0;
  for (const [name, target] of [
    ['REST allMids', (k: string) => compatTarget(b, k, { type: 'allMids' })],
    ['MCP tools/call allMids', (k: string) => mcpTarget(b, k, 'markets_all_mids', {})],
  ] as const) {
    const on: number[] = [];
    const off: number[] = [];
    // Alternating rounds: the shared machine's speed drifts during a run.
    for (let round = 0; round < 2; round++) {
      const paid = await throughput(target(b.keys.paid), load);
      const open = await throughput(target(b.keys.open), load);
      if (paid.errors || open.errors) throw new Error(`${name}: ${paid.firstError ?? open.firstError}`);
      on.push(paid.requestsPerS);
      off.push(open.requestsPerS);
      charged += paid.requests;
    }
    const [onRate, offRate] = [on.reduce((a, x) => a + x) / on.length, off.reduce((a, x) => a + x) / off.length];
    const ratio = onRate / offRate;
    rows.push({
      name: `credits on, 50 callers: ${name}`,
      value: `${fmt(onRate)} req/s`,
      baseline: `${fmt(offRate)} off`,
      ratio: ratio.toFixed(2),
      target: `>= 0.8 of credits off: ${ratio >= 0.8 ? 'met' : 'NOT met'}`,
    });
  }
  const spent = before - (await creditsOf(b));
  notes.push(
    `credits spent ${fmt(spent)} for ${fmt(charged)} answered calls in the timed windows (the rest in warm-ups): ` +
      `one conditional UPDATE per group of concurrent calls of a key; usage counted in memory, written every 2 s`,
  );
  return { rows, notes };
}

async function creditsOf(b: McpBench): Promise<number> {
  const { rows } = await b.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [b.keys.paidId]);
  return Number(rows[0].credits);
}
