// compat-rest's contract at its edges: every 400 names the field and the rule, a dead node is a bounded 502, and
// every authentication outcome of spec §5 on REST, /ws and GraphQL.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey, revokeKey } from '../access/keys.ts';
import { errorBody } from '../platform/error-codes.ts';
import { EPHEMERAL_PORTS, type Stack, startStack } from '../stack.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { openRouterHere } from '../test/router-here.ts';
import { openSocket } from '../test/ws-client.ts';

let db: TestDatabase;
let stack: Stack;

/** A port nothing listens on: the node is down. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

let compat: TestCompatApp;

// Input rules, defaults and a dead node need only compat-rest (test/compat-app.ts); authentication, the whole stack.
beforeAll(async () => {
  compat = await startCompatApp({ data: 'empty', node: 'down' });
});
afterAll(async () => {
  await compat?.close();
});

async function post(body: unknown, headers: Record<string, string> = {}, raw?: string) {
  const res = await fetch(`${stack.urls.compat}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: raw ?? JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

describe('POST /info bad input', () => {
  it.each([
    ['an empty body', undefined, '', 'JSON body required'],
    ['malformed JSON', undefined, '{"type": "allMids"', 'JSON body required'],
    ['an array', [], undefined, 'JSON body required'],
    ['no type', {}, undefined, 'type: must be a non-empty string'],
    ['an unknown type', { type: 'everything' }, undefined, 'Unknown type: everything'],
    ['a missing coin', { type: 'l2Book' }, undefined, 'coin: is required, must be a non-empty string'],
    [
      'nSigFigs 7',
      { type: 'l2Book', coin: 'BTC', nSigFigs: 7 },
      undefined,
      'nSigFigs: must be an integer from 2 to 5, got 7',
    ],
    ['mantissa without nSigFigs 5', { type: 'l2Book', coin: 'BTC', nSigFigs: 4, mantissa: 2 }, undefined, 'mantissa'],
    ['candleSnapshot without req', { type: 'candleSnapshot' }, undefined, 'req: is required, must be an object'],
    [
      'an unknown interval',
      { type: 'candleSnapshot', req: { coin: 'BTC', interval: '2m', startTime: 0 } },
      undefined,
      'interval: must be one of 5s, 30s, 1m',
    ],
    [
      'a window ending before it starts',
      { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 2000, endTime: 1000 } },
      undefined,
      'req.startTime: must not be after endTime',
    ],
    ['fundingHistory without startTime', { type: 'fundingHistory', coin: 'BTC' }, undefined, 'startTime: is required'],
    [
      'limit 0',
      { type: 'borrowLendReserveHistory', limit: 0 },
      undefined,
      'limit: must be an integer from 1 to 10000, got 0',
    ],
    [
      'limit 10001',
      { type: 'borrowLendReserveHistory', limit: 10001 },
      undefined,
      'limit: must be an integer from 1 to 10000',
    ],
    [
      'a negative token',
      { type: 'borrowLendReserveHistory', token: -1 },
      undefined,
      'token: must be an integer >= 0, got -1',
    ],
    [
      'a string startTime',
      { type: 'borrowLendReserveHistory', startTime: 'yesterday' },
      undefined,
      'startTime: must be an integer',
    ],
    [
      'a reserve interval of 2h',
      { type: 'borrowLendReserveHistory', interval: '2h' },
      undefined,
      'interval: must be one of 1m, 5m, 15m, 1h, 4h, 1d',
    ],
    [
      'trades limit 1001',
      { type: 'trades', coin: 'BTC', limit: 1001 },
      undefined,
      'limit: must be an integer from 1 to 1000',
    ],
    // Proxied types are checked here, before the node (which would answer a plain-text 422).
    ['a marginTable without id', { type: 'marginTable' }, undefined, 'id: is required'],
    ['a marginTable id that is text', { type: 'marginTable', id: 'x' }, undefined, 'id: must be an integer'],
    ['openOrders for a bad user', { type: 'openOrders', user: '0x123' }, undefined, 'user: must be a 0x address'],
    ['leadingVaults without user', { type: 'leadingVaults' }, undefined, 'user: is required, must be a 0x address'],
    ['meta of a numeric dex', { type: 'meta', dex: 1 }, undefined, 'dex: must be a string'],
    ['a NUL in a coin', { type: 'trades', coin: 'BTC\u0000' }, undefined, 'coin: must not contain a NUL character'],
    [
      'a time beyond 2^64',
      { type: 'fills', startTime: 2 ** 64 },
      undefined,
      'startTime: must be an integer of epoch milliseconds',
    ],
    [
      'a historicalOrders cursor beyond bigint',
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, cursor: '99999999999999999999' },
      undefined,
      'cursor: must be an oid',
    ],
  ])('answers 400 for %s', async (_what, body, raw, message) => {
    const r = await compat.info(body, {}, raw);
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.body.error).toContain(message);
  });

  it('accepts the limit edges 1 and 10000', async () => {
    for (const limit of [1, 10_000]) {
      const r = await compat.info({ type: 'borrowLendReserveHistory', limit });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ token: null, interval: null, history: [] });
    }
  });

  it('accepts any token >= 0, past the column range too (no such token: no samples)', async () => {
    for (const token of [0, 2_147_483_648, Number.MAX_SAFE_INTEGER]) {
      const r = await compat.info({ type: 'borrowLendReserveHistory', token });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ token, interval: null, history: [] });
    }
  });
});

describe('borrowLendReserveHistory defaults (spec §8)', () => {
  it('starts the window 7 days back and answers at most 1000 samples, the most recent', async () => {
    const t0 = Date.now();
    const DAY = 86_400_000;
    // Token 7: one sample just inside the default window's start, one just before it, and 1 100 recent ones.
    const times = [t0 - 7 * DAY + 5000, t0 - 7 * DAY - 1, ...Array.from({ length: 1100 }, (_, i) => t0 - 1000 - i)];
    await compat.db.pool.query(
      `INSERT INTO markets.reserve_samples
       SELECT 7, t, 'T7', 0.05, 0.04, 1000, 0.5, 1, 0, 2000, 1000 FROM unnest($1::bigint[]) AS t`,
      [times],
    );
    const all = await compat.info({ type: 'borrowLendReserveHistory', token: 7, limit: 10_000 });
    expect(all.status).toBe(200);
    const got: number[] = all.body.history.map((s: { time: number }) => s.time);
    expect(got).toHaveLength(1101);
    expect(got[0]).toBe(t0 - 7 * DAY + 5000); // inside: the 7-day default start, not the one 1 ms before it

    const byDefault = await compat.info({ type: 'borrowLendReserveHistory', token: 7 });
    const recent: number[] = byDefault.body.history.map((s: { time: number }) => s.time);
    expect(recent).toHaveLength(1000);
    expect(recent).toEqual(got.slice(-1000));
    await compat.db.pool.query('DELETE FROM markets.reserve_samples WHERE token = 7');
  });

  it('refuses a limit or a token that is not an integer', async () => {
    for (const [field, value] of [
      ['limit', 1.5],
      ['limit', '10'],
      ['token', 0.5],
      ['token', '7'],
    ] as const) {
      const r = await compat.info({ type: 'borrowLendReserveHistory', [field]: value });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(new RegExp(`^${field}: must be an integer`));
    }
  });
});

describe('a proxied type while the node is down', () => {
  it('answers 502 Upstream unreachable within the timeout', async () => {
    const started = Date.now();
    const r = await compat.info({ type: 'meta' });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatch(/^Upstream unreachable: ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('authentication', () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    stack = await startStack({
      pool: db.pool,
      upstreamInfoUrl: `http://127.0.0.1:${await deadPort()}/info`,
      ports: EPHEMERAL_PORTS,
      upstreamTimeoutMs: 1000,
      log: () => {},
      openRouter: openRouterHere,
    });
  });
  afterAll(async () => {
    await stack?.close();
    await db?.drop();
  });

  let dataKey: string;
  let mcpKey: string;
  let slowKey: string;

  it('serves without a key while no key is configured', async () => {
    expect((await post({ type: 'allMids' })).status).toBe(200);
  });

  it('requires a key once one is configured', async () => {
    dataKey = (await createKey(db.pool, { scope: 'data' })).key;
    mcpKey = (await createKey(db.pool, { scope: 'mcp' })).key;
    slowKey = (await createKey(db.pool, { scope: 'data', rateLimitPerMin: 2 })).key;
    stack.auth.invalidate();

    expect(await post({ type: 'allMids' })).toMatchObject({
      status: 401,
      body: errorBody('missing_key', 'missing api key'),
    });
    expect(await post({ type: 'allMids' }, { authorization: 'Bearer nope' })).toMatchObject({
      status: 401,
      body: errorBody('invalid_key', 'invalid api key'),
    });
    expect((await post({ type: 'allMids' }, { authorization: `Bearer ${dataKey}` })).status).toBe(200);
    expect((await post({ type: 'allMids' }, { 'x-api-key': dataKey })).status).toBe(200);
    const viaQuery = await fetch(`${stack.urls.compat}/info?api_key=${dataKey}`, {
      method: 'POST',
      body: JSON.stringify({ type: 'allMids' }),
    });
    expect(viaQuery.status).toBe(200);
  });

  it('refuses an mcp-only key on REST and GraphQL with 403 mcp_only_key', async () => {
    expect(await post({ type: 'allMids' }, { authorization: `Bearer ${mcpKey}` })).toMatchObject({
      status: 403,
      body: errorBody('mcp_only_key', 'mcp_only_key'),
    });
    const gql = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${mcpKey}` },
      body: JSON.stringify({ query: '{ allMids { coin } }' }),
    });
    expect(gql.status).toBe(403);
    expect(await gql.json()).toEqual(errorBody('mcp_only_key', 'mcp_only_key'));
  });

  const gql = (headers: Record<string, string>) =>
    fetch(stack.urls.router, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ allMids { coin } }' }),
    });

  it('limits requests per key per minute with 429, one budget across REST and GraphQL', async () => {
    // The router serves from a thread of its own; the key's window is still the one the REST requests count in.
    const rest = async () => (await post({ type: 'allMids' }, { 'x-api-key': slowKey })).status;
    const graphql = async () => (await gql({ 'x-api-key': slowKey })).status;
    expect([await rest(), await graphql(), await graphql(), await rest()]).toEqual([200, 200, 429, 429]);
    const refused = await gql({ 'x-api-key': slowKey });
    expect(await refused.json()).toEqual(errorBody('rate_limited', 'rate limit exceeded: 2 requests per minute'));
  });

  it('applies the same rules to GraphQL and to /ws upgrades', async () => {
    expect((await gql({})).status).toBe(401);
    expect((await gql({ authorization: `Bearer ${dataKey}` })).status).toBe(200);

    const upgrade = (url: string) =>
      new Promise<number>((resolve) => {
        const socket = new WebSocket(url);
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.on('error', () => {});
      });
    expect(await upgrade(stack.urls.ws)).toBe(401);
    expect(await upgrade(`${stack.urls.ws}?api_key=${dataKey}`)).toBe(101);
    // graphql-ws upgrades are not refused for their key (it may come in connection_init): the connection is closed
    // with 4401/4403/4429 instead (test/auth-transports.test.ts).
    const routerWs = stack.urls.router.replace(/^http/, 'ws');
    expect(await upgrade(routerWs)).toBe(101);
  });

  /** Runs `attempt` with a fresh key of `perMin` requests a minute, again if a minute boundary fell inside it. */
  async function inOneMinute(perMin: number, attempt: (key: string, id: number) => Promise<void>): Promise<void> {
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: perMin });
      await attempt(key, record.id);
      if (Math.floor(Date.now() / 60_000) === minute) return;
    }
  }

  it('counts every /ws post in the key window and stops serving a revoked key', async () => {
    await inOneMinute(3, async (key, id) => {
      const ws = await openSocket(`${stack.urls.ws}?api_key=${key}`);
      const info = (n: number) => ({ method: 'post', id: n, request: { type: 'info', payload: { type: 'allMids' } } });
      // The upgrade was the first request of the minute; two posts fit, the third does not.
      ws.send(info(1));
      expect(await ws.next()).toMatchObject({ channel: 'post', data: { id: 1, response: { type: 'info' } } });
      ws.send(info(2));
      expect(await ws.next()).toMatchObject({ channel: 'post', data: { id: 2, response: { type: 'info' } } });
      ws.send(info(3));
      expect(await ws.next()).toEqual({
        channel: 'post',
        data: {
          id: 3,
          response: { type: 'error', payload: '429 rate limit exceeded: 3 requests per minute', code: 'rate_limited' },
        },
      });
      await revokeKey(db.pool, String(id));
      stack.auth.invalidate();
      ws.send(info(4));
      expect(await ws.next()).toEqual({
        channel: 'post',
        data: { id: 4, response: { type: 'error', payload: '401 invalid api key', code: 'revoked_key' } },
      });
      ws.close();
    });
  });

  it('counts every graphql-ws operation in the key window', async () => {
    await inOneMinute(2, async (key) => {
      const ws = await openSocket(`${stack.urls.router.replace(/^http/, 'ws')}?api_key=${key}`, 'graphql-transport-ws');
      ws.send({ type: 'connection_init' });
      expect(await ws.next()).toEqual({ type: 'connection_ack' });
      const query = { query: '{ allMids { coin } }' };
      ws.send({ id: 'a', type: 'subscribe', payload: query });
      expect(await ws.next()).toMatchObject({ id: 'a', type: 'next', payload: { data: { allMids: [] } } });
      expect(await ws.next()).toEqual({ id: 'a', type: 'complete' });
      ws.send({ id: 'b', type: 'subscribe', payload: query });
      expect(await ws.next()).toMatchObject({
        id: 'b',
        type: 'error',
        payload: [{ message: 'rate limit exceeded: 2 requests per minute', extensions: { code: 'RATE_LIMITED' } }],
      });
      ws.close();
    });
  });
});
