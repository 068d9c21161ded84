// Credits and rate limits per key on every interface (spec §5.6), against the running servers: a key with N
// credits and more simultaneous calls than it can pay gets exactly N answers and 402 for the rest, with nothing
// left and nothing overspent, over REST alone and mixed over REST, GraphQL, /ws posts and MCP tool calls (one-credit
// calls, and the 30-credit batch calls of the issue); a call
// refused for credits costs nothing; usage is counted per key, UTC day and interface; R+1 calls in a minute make
// the last a 429 with Retry-After.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { errorBody } from '../platform/error-codes.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { mcpClient } from '../test/mcp-client.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import { CreditLedger } from './credits.ts';
import { createKey, type KeyScope } from './keys.ts';

let db: TestDatabase;
let stack: Stack;
const clients: Client[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await stack?.close();
  await db?.drop();
});

async function newKey(opts: { credits?: number; rateLimitPerMin?: number; scope?: KeyScope } = {}) {
  const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000, ...opts });
  stack.auth.invalidate();
  return { key, id: record.id };
}

const creditsLeft = async (id: number) =>
  Number((await db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [id])).rows[0].credits);

/** One paid call on some interface: its HTTP status (200 answered, 402 refused for credits). */
type PaidCall = () => Promise<number>;

/** The statuses of `calls` all started at once, counted. */
async function together(calls: PaidCall[]): Promise<Record<number, number>> {
  const statuses = await Promise.all(calls.map((c) => c()));
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

const times = (n: number, call: PaidCall): PaidCall[] => Array.from({ length: n }, () => call);

/** POST /info allMids (1 credit); a refusal must be the error body of `insufficient_credits`. */
const restCall =
  (key: string): PaidCall =>
  async () => {
    const res = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: JSON.stringify({ type: 'allMids' }),
    });
    const body = await res.json();
    if (res.status === 402) expect(body).toEqual(errorBody('insufficient_credits', 'insufficient credits'));
    return res.status;
  };

/** Ten distinct wallets: a batch call of them costs 30 credits (3 a wallet, access/costs.ts). */
const tenWallets = Array.from({ length: 10 }, (_, i) => `0x${String(i + 1).padStart(40, '0')}`);

/** POST /users/batch/performance of ten wallets over REST (30 credits). */
const restBatch =
  (key: string): PaidCall =>
  async () => {
    const res = await fetch(`${stack.urls.compat}/users/batch/performance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ addresses: tenWallets }),
    });
    const body = await res.json();
    if (res.status === 402) expect(body).toEqual(errorBody('insufficient_credits', 'insufficient credits'));
    return res.status;
  };

/** The same batch as a GraphQL operation through the router (30 credits). */
const graphqlBatch =
  (key: string): PaidCall =>
  async () => {
    const res = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query B($a: [String!]!) { batchPerformance(addresses: $a) { address } }',
        variables: { a: tenWallets },
      }),
    });
    const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    if (res.status === 402) {
      expect(body.errors?.[0]?.message).toBe('insufficient credits');
      // The table's GraphQL form of `insufficient_credits` (platform/error-codes.ts).
      expect(body.errors?.[0]?.extensions?.code).toBe('INSUFFICIENT_CREDITS');
    } else expect(body.errors).toBeUndefined();
    return res.status;
  };

/** A GraphQL operation through the router (1 credit). */
const graphqlCall =
  (key: string): PaidCall =>
  async () => {
    const res = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ allMids { coin } }' }),
    });
    const body = (await res.json()) as { errors?: { message: string }[] };
    if (res.status === 402) expect(body.errors?.[0]?.message).toBe('insufficient credits');
    return res.status;
  };

/**
 * A tool call with the SDK's client (1 credit, or what the tool's arguments cost); a refusal reaches the client as the
 * HTTP error it is.
 */
const mcpCall =
  (client: Client, name = 'markets_all_mids', args: Record<string, unknown> = {}): PaidCall =>
  async () => {
    try {
      const r = await client.callTool({ name, arguments: args });
      return r.isError ? 500 : 200;
    } catch (err) {
      if (err instanceof StreamableHTTPError) return err.code ?? 0;
      throw err;
    }
  };

async function connectedMcp(key: string) {
  const client = await mcpClient(stack.urls.mcp, key);
  clients.push(client);
  return client;
}

/** A compat /ws connection sending `post` info requests; each answers 200 or the status its error names. */
async function wsPoster(key: string): Promise<{ post: PaidCall; close(): void }> {
  const socket = new WebSocket(stack.urls.ws, { headers: { authorization: `Bearer ${key}` } });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let nextId = 0;
  const waiting = new Map<number, (status: number) => void>();
  socket.on('message', (raw) => {
    const frame = JSON.parse(String(raw)) as {
      channel: string;
      data: { id: number; response: { type: string; payload: unknown } };
    };
    if (frame.channel !== 'post') return;
    const { id, response } = frame.data;
    const status = response.type === 'error' ? Number(String(response.payload).slice(0, 3)) : 200;
    if (response.type === 'error') expect(response.payload).toBe('402 insufficient credits');
    waiting.get(id)?.(status);
  });
  return {
    post: () =>
      new Promise((resolve) => {
        const id = ++nextId;
        waiting.set(id, resolve);
        socket.send(JSON.stringify({ method: 'post', id, request: { type: 'info', payload: { type: 'allMids' } } }));
      }),
    close: () => socket.close(),
  };
}

describe('credits', () => {
  it('over REST: 10 credits and 25 simultaneous calls → exactly 10 answered, 15 refused with 402, 0 left', async () => {
    const { key, id } = await newKey({ credits: 10 });
    expect(await together(times(25, restCall(key)))).toEqual({ 200: 10, 402: 15 });
    expect(await creditsLeft(id)).toBe(0);
    // Nothing left is nothing: the next call is refused too, and charges nothing.
    expect(await restCall(key)()).toBe(402);
    expect(await creditsLeft(id)).toBe(0);

    await stack.auth.flushUsage();
    const today = new Date().toISOString().slice(0, 10);
    const { rows } = await db.pool.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, endpoint, requests, credits_used, refused
         FROM platform.usage WHERE key_id = $1`,
      [id],
    );
    expect(rows).toEqual([{ day: today, endpoint: 'rest', requests: 10, credits_used: 10, refused: 16 }]);
  });

  it('mixed over REST, GraphQL, /ws posts and MCP: 12 credits and 40 simultaneous calls → exactly 12 answered', async () => {
    const { key, id } = await newKey({ credits: 12 });
    // Connecting (initialize) and opening /ws cost nothing: only calls do.
    const client = await connectedMcp(key);
    const ws = await wsPoster(key);
    expect(await creditsLeft(id)).toBe(12);
    const calls = [
      ...times(10, restCall(key)),
      ...times(10, graphqlCall(key)),
      ...times(10, ws.post),
      ...times(10, mcpCall(client)),
    ];
    expect(await together(calls)).toEqual({ 200: 12, 402: 28 });
    expect(await creditsLeft(id)).toBe(0);
    ws.close();

    await stack.auth.flushUsage();
    const { rows } = await db.pool.query(
      'SELECT sum(requests)::int AS answered, sum(credits_used)::int AS used, sum(refused)::int AS refused FROM platform.usage WHERE key_id = $1',
      [id],
    );
    expect(rows[0]).toEqual({ answered: 12, used: 12, refused: 28 });
  });

  it('batch calls of 10 wallets (30 credits) on 100 credits: exactly 3 answered, 17 refused, 10 left over REST', async () => {
    const { key, id } = await newKey({ credits: 100 });
    expect(await together(times(20, restBatch(key)))).toEqual({ 200: 3, 402: 17 });
    expect(await creditsLeft(id)).toBe(10);
  });

  it('the same batch mixed over REST, GraphQL and MCP: exactly 3 answered, 17 refused, 10 left', async () => {
    const { key, id } = await newKey({ credits: 100 });
    const client = await connectedMcp(key);
    const calls = [
      ...times(7, restBatch(key)),
      ...times(7, graphqlBatch(key)),
      ...times(6, mcpCall(client, 'analytics_batch_performance', { addresses: tenWallets })),
    ];
    expect(await together(calls)).toEqual({ 200: 3, 402: 17 });
    expect(await creditsLeft(id)).toBe(10);
  });

  it('charges a tool call with valid arguments only; connecting and listing tools are free', async () => {
    const { key, id } = await newKey({ credits: 1, scope: 'mcp' });
    const client = await connectedMcp(key);
    await client.listTools();
    const bad = await client.callTool({ name: 'markets_trades', arguments: { coin: 'BTC', limit: 0 } });
    expect(bad.isError).toBe(true);
    expect(await creditsLeft(id)).toBe(1);
    expect(await mcpCall(client)()).toBe(200);
    expect(await creditsLeft(id)).toBe(0);
    expect(await mcpCall(client)()).toBe(402);
    expect(await creditsLeft(id)).toBe(0);
  });

  it('charges a call that costs more atomically, and a refused one nothing', async () => {
    const { id } = await newKey({ credits: 100 });
    const ledger = new CreditLedger(db.pool);
    const key = { id, credits: 100 };
    // 20 simultaneous 30-credit charges on 100 credits: 3 pass, 10 left.
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => ledger.charge(key, 30, 'rest')));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(3);
    expect(outcomes.filter((o) => !o.ok)).toHaveLength(17);
    expect(await creditsLeft(id)).toBe(10);
    expect(await ledger.charge(key, 11, 'rest')).toEqual({
      ok: false,
      status: 402,
      code: 'insufficient_credits',
      error: 'insufficient credits',
    });
    expect(await creditsLeft(id)).toBe(10);
    expect(await ledger.charge(key, 10, 'rest')).toEqual({ ok: true, remaining: 0 });
    await ledger.close();
  });

  it('leaves a key without a credit limit unlimited, counting its usage', async () => {
    const { key, id } = await newKey();
    expect(await together(times(5, restCall(key)))).toEqual({ 200: 5 });
    await stack.auth.flushUsage();
    const { rows } = await db.pool.query('SELECT requests, refused FROM platform.usage WHERE key_id = $1', [id]);
    expect(rows).toEqual([{ requests: 5, refused: 0 }]);
  });
});

describe('rate limits', () => {
  const expectRetryAfter = (res: Response) => {
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  };

  it('REST: R+1 calls in a minute → the last is 429 with Retry-After', async () => {
    const { key } = await newKey({ rateLimitPerMin: 3 });
    const post = () =>
      fetch(`${stack.urls.compat}/info`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ type: 'allMids' }),
      });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await post();
      statuses.push(last.status);
    }
    // A window may turn over between the calls (a new minute): then all four may pass, rarely.
    if (statuses[3] === 200) return;
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await last?.json()).toEqual(errorBody('rate_limited', 'rate limit exceeded: 3 requests per minute'));
    expectRetryAfter(last as Response);
  });

  it('GraphQL and MCP: the same 429 with Retry-After', async () => {
    const { key } = await newKey({ rateLimitPerMin: 2 });
    const graphql = () =>
      fetch(stack.urls.router, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ allMids { coin } }' }),
      });
    const first = [(await graphql()).status, (await graphql()).status];
    const refused = await graphql();
    if (refused.status !== 200) {
      expect(first).toEqual([200, 200]);
      expect(refused.status).toBe(429);
      expectRetryAfter(refused);
    }

    const mcp = await newKey({ rateLimitPerMin: 2, scope: 'mcp' });
    const list = () =>
      fetch(stack.urls.mcp, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${mcp.key}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const mcpFirst = [(await list()).status, (await list()).status];
    const mcpRefused = await list();
    if (mcpRefused.status !== 200) {
      expect(mcpFirst).toEqual([200, 200]);
      expect(mcpRefused.status).toBe(429);
      expectRetryAfter(mcpRefused);
      // The JSON-RPC error names the refusal's code in its data, for programs (mcp/server.ts rpcError).
      expect(((await mcpRefused.json()) as { error: unknown }).error).toEqual({
        code: -32000,
        message: 'rate limit exceeded: 2 requests per minute',
        data: { code: 'rate_limited' },
      });
    }
  });
});
