// The MCP tool server end to end, with the SDK's own client over Streamable HTTP against the running stack
// (simulated node, ingest, every server): initialize, the catalog, every tool called with valid arguments and with
// bad ones; the key rules of spec §5.4–5.5 and §7 (401 JSON-RPC body and WWW-Authenticate, /health public,
// mcp-only keys refused on every other interface); the Host/Origin guard.
import { request } from 'node:http';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey } from '../access/keys.ts';
import { errorBody } from '../platform/error-codes.ts';
import { mcpClient } from '../test/mcp-client.ts';
import { openRouterHere } from '../test/router-here.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { SEND_KEY_MESSAGE } from './server.ts';
import { toolCatalog } from './tools.ts';

let stack: TestStack;
let dataKey: string;
let mcpKey: string;
let user: string;
let token: string;
let client: Client;

/** Every tool the server lists: the domains'. */
const TOOLS = [...toolCatalog().keys()];

beforeAll(async () => {
  stack = await startTestStack({ historyMs: 15 * 60_000, openRouter: openRouterHere });
  dataKey = (await createKey(stack.db.pool, { scope: 'data', rateLimitPerMin: 100_000 })).key;
  mcpKey = (await createKey(stack.db.pool, { scope: 'mcp', rateLimitPerMin: 100_000 })).key;
  stack.auth.invalidate();
  const { rows } = await stack.db.pool.query<{ address: string }>(
    'SELECT address FROM accounts.fills GROUP BY address ORDER BY count(*) DESC LIMIT 1',
  );
  user = rows[0]?.address as string;
  const tokens = await stack.db.pool.query<{ address: string }>('SELECT address FROM evm.tokens LIMIT 1');
  token = tokens.rows[0]?.address ?? `0x${'0'.repeat(40)}`;
  client = await mcpClient(stack.urls.mcp, mcpKey);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await stack?.close();
});

const now = () => Date.now();

/** Valid arguments of every tool of every domain (each domain adds its own tools' lines). */
function validArguments(): Record<string, Record<string, unknown>> {
  const hourAgo = now() - 3_600_000;
  return {
    markets_all_mids: {},
    markets_market_info: { coin: 'BTC' },
    markets_perp_meta: {},
    markets_spot_meta: {},
    markets_perp_contexts: {},
    markets_spot_contexts: {},
    markets_asset_context: { coin: 'ETH' },
    markets_l2_book: { coin: 'BTC', nSigFigs: 5 },
    markets_l2_books: { coins: ['BTC', 'ETH'] },
    markets_l4_book: { coin: 'BTC' },
    markets_best_bid_offer: { coin: 'BTC' },
    markets_current_depth: { coin: 'BTC' },
    markets_candles: { coin: 'BTC', interval: '1m', startTime: hourAgo },
    markets_trades: { coin: 'BTC', limit: 5 },
    markets_funding_history: { coin: 'BTC', startTime: hourAgo },
    markets_reserve_states: {},
    markets_reserve_history: { limit: 5 },
    markets_history_coins: {},
    markets_history: { series: 'bbo', coin: 'BTC', limit: 5 },
    markets_liquidity_report: { coin: 'BTC' },
    markets_available_dates: { coin: 'BTC' },
    markets_data_coverage: {},
    markets_hip3_snapshots: { dexId: 'xyz' },
    markets_hip3_top_movers: { limit: 3 },
    markets_perp_dexs: {},
    markets_max_market_order_notionals: {},
    markets_vault_summaries: {},
    markets_collect_trades: { coin: 'BTC', seconds: 1, maxTrades: 2 },
    markets_collect_candles: { coin: 'BTC', interval: '1m', seconds: 1 },
    markets_collect_bbo: { coin: 'BTC', seconds: 1 },
    markets_collect_mids: { coins: ['BTC', 'ETH'], seconds: 1 },
    accounts_account_state: { user },
    accounts_open_orders: { user },
    accounts_spot_balances: { user },
    accounts_clearinghouse_state: { user },
    accounts_user_fees: { user },
    accounts_sub_accounts: { user },
    accounts_delegations: { user },
    accounts_twap_history: { user },
    accounts_user_fills: { user },
    accounts_fills: { user, limit: 3, order: 'desc' },
    accounts_twap_slice_fills: { user },
    accounts_historical_orders: { user, limit: 3 },
    accounts_order_status: { user, oid: 1 },
    accounts_funding_payments: { user },
    accounts_ledger_updates: { user },
    accounts_liquidations: { user, limit: 3 },
    accounts_borrow_lend_state: { user },
    accounts_collect_user_events: { user, seconds: 1 },
    accounts_collect_liquidations: { seconds: 1 },
    hip4_questions: { questionId: 1 },
    hip4_markets: {},
    hip4_fills: { limit: 5, startTime: hourAgo },
    hip4_providers: {},
    hip4_deployers: {},
    hip4_analytics: { interval: '1h' },
    evm_transactions: { limit: 5 },
    evm_token_holders: { token, limit: 5 },
    evm_ledger_transfers: { limit: 5 },
    evm_user_ledger_events: { user, limit: 5 },
    evm_backstop_transfers: { limit: 5 },
    evm_backstop_summary: {},
    evm_backstop_health: {},
    evm_backstop_fills: { dex: 'xyz', limit: 5 },
    analytics_leaderboard: { limit: 5, minTrades: 0 },
    analytics_performance: { user, startTime: hourAgo },
    analytics_batch_performance: { addresses: [user], includeDrawdown: true },
    analytics_pnl_calendar: { user },
    analytics_equity_history: { user },
    analytics_top_trades: { user, includeOpen: false },
    analytics_builder_external_activity: { builder: user, addresses: [user] },
  };
}

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

const rpc = (body: unknown, headers: Record<string, string>) =>
  fetch(stack.urls.mcp, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

describe('the MCP tool server', () => {
  it('serves /health without a key', async () => {
    const res = await fetch(stack.urls.mcp.replace(/\/mcp$/, '/health'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, name: 'hl-data-graph', protocol: 'stateless' });
  });

  it('refuses /mcp without a key, with a bad one and with a key in another form: 401, JSON-RPC body, WWW-Authenticate', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const forms: Record<string, string>[] = [
      {},
      { authorization: 'Bearer hlk_not_a_key' },
      { 'x-api-key': dataKey },
      { authorization: dataKey },
    ];
    for (const headers of forms) {
      const res = await rpc(list, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: SEND_KEY_MESSAGE },
        id: null,
      });
    }
    expect(SEND_KEY_MESSAGE).toMatch(/Authorization: Bearer/);
  });

  it('takes data keys as well as mcp keys', async () => {
    const dataClient = await mcpClient(stack.urls.mcp, dataKey);
    const r = (await dataClient.callTool({ name: 'markets_all_mids', arguments: {} })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    await dataClient.close();
  });

  it('refuses a foreign Host or Origin (DNS rebinding)', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const auth = { authorization: `Bearer ${mcpKey}` };
    // fetch cannot set Host: node's http client can.
    const url = new URL(stack.urls.mcp);
    const hostStatus = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { ...auth, host: 'evil.example:8090' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(JSON.stringify(list));
    });
    expect(hostStatus).toBe(403);
    const origin = await rpc(list, { ...auth, origin: 'http://evil.example' });
    expect(origin.status).toBe(403);
    expect(((await origin.json()) as { error: { message: string } }).error.message).toContain('evil.example');
    const local = await rpc(list, { ...auth, origin: 'http://localhost:3000' });
    expect(local.status).toBe(200);
  });

  it('initializes and lists every domain tool with a description and an object input schema', async () => {
    expect(client.getServerVersion()?.name).toBe('hl-data-graph');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([...TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations?.readOnlyHint).toBe(true);
    }
  });

  it('answers every tool called with valid arguments: structured content and a short text', async () => {
    const examples = validArguments();
    const missing = TOOLS.filter((name) => !(name in examples));
    expect(missing, 'tools without valid arguments in this test').toEqual([]);
    for (const name of TOOLS) {
      const r = await call(name, examples[name] as Record<string, unknown>);
      expect(r.isError, `${name}: ${textOf(r)}`).toBeFalsy();
      expect(typeof r.structuredContent, name).toBe('object');
      expect(textOf(r).length, name).toBeGreaterThan(0);
      expect(textOf(r).length, name).toBeLessThan(400);
    }
  });

  it('answers the same data as the other interfaces', async () => {
    const mids = (await call('markets_all_mids', {})).structuredContent as { mids: Record<string, string> };
    expect(Object.keys(mids.mids).length).toBeGreaterThan(0);
    const fills = (await call('accounts_user_fills', { user })).structuredContent as { fills: { tid: number }[] };
    const rest = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dataKey}` },
      body: JSON.stringify({ type: 'userFills', user }),
    });
    const restFills = (await rest.json()) as { tid: number }[];
    expect(fills.fills.length).toBeGreaterThan(0);
    // Fills may arrive between the two calls, newest first, and a capped answer then drops its oldest: the later
    // (REST) answer is the earlier one with new fills in front and as many of the oldest cut off the end.
    const older = fills.fills.map((f) => f.tid);
    const newer = restFills.map((f) => f.tid);
    const start = newer.indexOf(older[0] as number);
    expect(start, "the MCP answer's newest fill is in the later REST answer").toBeGreaterThanOrEqual(0);
    expect(newer.slice(start)).toEqual(older.slice(0, newer.length - start));
  });

  it('answers a bad argument with a tool error naming it, and the connection keeps serving', async () => {
    const examples = validArguments();
    for (const name of TOOLS) {
      const unknown = await call(name, { ...examples[name], bogusArgument: 1 });
      expect(unknown.isError, name).toBe(true);
      expect(textOf(unknown)).toBe('bogusArgument: not an argument of this tool');
      // For programs, the error body of every interface, its code from platform/error-codes.ts.
      expect(unknown.structuredContent).toEqual(
        errorBody('unknown_parameter', 'bogusArgument: not an argument of this tool'),
      );
    }
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['markets_trades', { coin: 'BTC', limit: 0 }, /^limit: must be an integer from 1 to 1000, got 0$/],
      ['markets_trades', {}, /^coin: is required/],
      ['markets_candles', { coin: 'BTC', interval: '7m', startTime: 0 }, /^interval: must be one of 5s, 30s, 1m/],
      ['markets_candles', { coin: 'BTC', interval: '1m', startTime: 10, endTime: 5 }, /startTime/],
      ['accounts_user_fills', { user: '0x123' }, /^user: must be a 0x address, got "0x123"$/],
      ['markets_collect_trades', { coin: 'BTC', seconds: 61 }, /^seconds: must be an integer from 1 to 60/],
      ['markets_l2_books', { coins: [] }, /^coins/],
      // One naming convention across the catalog: the REST routes' snake_case names are not arguments.
      ['analytics_performance', { user, start_time: 0 }, /^start_time: not an argument of this tool$/],
      ['analytics_performance', { user, startTime: 10, endTime: 5 }, /^startTime: must not be after endTime$/],
      ['hip4_questions', { question_id: 1 }, /^question_id: not an argument of this tool$/],
      ['no_such_tool', {}, /unknown tool "no_such_tool"/],
    ];
    for (const [name, args, message] of cases) {
      const r = await call(name, args);
      expect(r.isError, name).toBe(true);
      expect(textOf(r)).toMatch(message);
      const code =
        name === 'no_such_tool'
          ? 'unknown_type'
          : /not an argument/.test(textOf(r))
            ? 'unknown_parameter'
            : 'bad_input';
      expect(r.structuredContent, name).toEqual(errorBody(code, textOf(r)));
    }
    expect((await call('markets_all_mids', {})).isError).toBeFalsy();
  });

  it("writes a tools/call answer the SDK's client reads as the same result, and keeps the SDK's refusals", async () => {
    const auth = { authorization: `Bearer ${mcpKey}` };
    const toolCall = (id: unknown, name: string, args: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: args },
    });
    const nobody = `0x${'00'.repeat(20)}`;
    const bad = toolCall(9, 'markets_trades', {});
    for (const body of [toolCall('f', 'accounts_user_fills', { user: nobody }), bad]) {
      const raw = await rpc(body, auth);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
      const viaClient = await client.callTool(body.params);
      expect(await raw.json()).toEqual({ jsonrpc: '2.0', id: body.id, result: viaClient });
    }
    // A user with fills (arriving while the test runs): the copied JSON and its count agree.
    const busy = (await (await rpc(toolCall(3, 'accounts_user_fills', { user }), auth)).json()) as {
      id: number;
      result: CallToolResult;
    };
    const got = (busy.result.structuredContent as { fills: { tid: number }[] }).fills;
    expect(busy.id).toBe(3);
    expect(got.length).toBeGreaterThan(0);
    expect(textOf(busy.result)).toBe(`fills: ${got.length} items`);
    const refused = await rpc(bad, { ...auth, accept: 'application/json' });
    expect(refused.status).toBe(406);
    const version = await rpc(bad, { ...auth, 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
    const note = await rpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 404 } }, auth);
    expect(note.status).toBe(202);
  });

  it('answers every wrong value of every argument with a tool error, never a failed request', async () => {
    const examples = validArguments();
    const wrong: unknown[] = [null, -1, 1.5, 1e20, '', 'x'.repeat(200), '\u0000', [], {}, true];
    const { tools } = await client.listTools();
    for (const tool of tools) {
      if (tool.name.includes('_collect_')) continue; // each waits its seconds; their arguments are tested above
      for (const field of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const value of wrong) {
          const r = await call(tool.name, { ...examples[tool.name], [field]: value });
          // Either a tool error naming the argument, or an answer when the value is one the argument takes.
          if (r.isError) expect(textOf(r), `${tool.name} ${field}=${JSON.stringify(value)}`).not.toBe('internal error');
          else expect(typeof r.structuredContent).toBe('object');
        }
      }
    }
  });

  it('collects live trades for a bounded time', async () => {
    const r = await call('markets_collect_trades', { coin: 'BTC', seconds: 2, maxTrades: 3 });
    const got = r.structuredContent as { trades: unknown[]; count: number; stoppedBy: string; seconds: number };
    expect(got.count).toBe(got.trades.length);
    expect(got.count).toBeLessThanOrEqual(3);
    expect(['time', 'max']).toContain(got.stoppedBy);
    expect(got.seconds).toBeLessThanOrEqual(2.5);
  });

  it('stops collecting when the caller goes away', async () => {
    const listening = () => stack.markets.live.listeners('trades');
    const before = listening();
    const gone = new AbortController();
    const pending = client.callTool(
      { name: 'markets_collect_trades', arguments: { coin: 'BTC', seconds: 60 } },
      undefined,
      {
        signal: gone.signal,
      },
    );
    while (listening() === before) await new Promise((r) => setTimeout(r, 20));
    gone.abort();
    await expect(pending).rejects.toThrow();
    // The request's connection closed: the tool's subscription ends long before its 60 s.
    const until = Date.now() + 5_000;
    while (listening() > before && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(listening()).toBe(before);
  });

  it('refuses an mcp-only key with 403 mcp_only_key on REST, /ws and GraphQL', async () => {
    const auth = { authorization: `Bearer ${mcpKey}` };
    const info = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ type: 'allMids' }),
    });
    const refused = errorBody('mcp_only_key', 'mcp_only_key');
    expect([info.status, await info.json()]).toEqual([403, refused]);
    const path = await fetch(`${stack.urls.compat}/market/coins`, { headers: auth });
    expect([path.status, await path.json()]).toEqual([403, refused]);
    const graphql = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ allMids { coin } }' }),
    });
    expect([graphql.status, await graphql.json()]).toEqual([403, refused]);
    const ws = await new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const socket = new WebSocket(stack.urls.ws, { headers: auth });
      socket.on('open', () => reject(new Error('the upgrade was accepted')));
      socket.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      socket.on('error', reject);
    });
    expect(ws).toEqual({ status: 403, body: refused });
  });
});
