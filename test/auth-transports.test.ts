// The key rules of spec §5 on every transport, each with the usual way its clients send the key: REST `POST /info`,
// compat `/ws`, the router's HTTP GraphQL and SSE (headers, `?api_key=`) and graphql-ws (`connectionParams`, the
// upgrade's headers, `?api_key=`). Missing and invalid keys are refused as 401 (graphql-ws: close 4401), an mcp-only
// key as 403 `mcp_only_key` (close 4403), a key over its rate limit as 429 (close 4429), each with its reason.
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey, revokeKey } from '../access/keys.ts';
import type { TradeRow } from '../db/rows/markets.ts';
import { InProcessBus } from '../events/bus.ts';
import { errorBody } from '../platform/error-codes.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { wireTrade } from './node-files.ts';
import { startStackWithoutNode } from './stack.ts';

let db: TestDatabase;
let stack: Stack;
/** The bus the stack's ingest would publish on: trades for the SSE subscribers go there, as a node's do. */
const bus = new InProcessBus();
let dataKey: string;
let mcpKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool, { bus });
  dataKey = (await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000 })).key;
  mcpKey = (await createKey(db.pool, { scope: 'mcp', rateLimitPerMin: 100_000 })).key;
  stack.auth.invalidate();
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

type Headers = Record<string, string>;

const withQuery = (url: string, key?: string) => (key === undefined ? url : `${url}?api_key=${key}`);

/** The status and JSON body of an HTTP answer. */
async function answer(res: Response) {
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as unknown };
}

const postInfo = (headers: Headers = {}, key?: string) =>
  fetch(withQuery(`${stack.urls.compat}/info`, key), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ type: 'allMids' }),
  }).then(answer);

const graphqlHttp = (headers: Headers = {}, key?: string) =>
  fetch(withQuery(stack.urls.router, key), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ allMids { coin } }' }),
  }).then(answer);

/** The status and body of a compat /ws upgrade: 101 when it opened (a ping is answered), else the HTTP refusal. */
function compatWs(headers: Headers = {}, key?: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(withQuery(stack.urls.ws, key), { headers });
    socket.on('open', () => socket.send(JSON.stringify({ method: 'ping' })));
    socket.on('message', (raw) => {
      socket.close();
      resolve({ status: 101, body: JSON.parse(String(raw)) });
    });
    socket.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    socket.on('error', (err) => reject(err));
  });
}

const TRADE_COIN = 'AUTHSSE';

/**
 * An SSE subscription through the router: a `trades` subscription over `Accept: text/event-stream`, POST with
 * headers or GET with `?api_key=` (EventSource's way: it cannot set headers). Trades are published until the first
 * event arrives (the subscription's start is not observable from here); a refusal is the HTTP error.
 */
async function sse(opts: { headers?: Headers; key?: string; get?: boolean }) {
  const query = `subscription { trades(coin: "${TRADE_COIN}") { coin tid } }`;
  const abort = new AbortController();
  const url = new URL(withQuery(stack.urls.router, opts.key));
  if (opts.get) url.searchParams.set('query', query);
  const res = await fetch(url, {
    method: opts.get ? 'GET' : 'POST',
    headers: {
      accept: 'text/event-stream',
      ...(opts.get ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    body: opts.get ? undefined : JSON.stringify({ query }),
    signal: abort.signal,
  });
  if (res.status !== 200) return answer(res);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  // Trades of new blocks, as ingest publishes them: a subscription follows the stored stream, whose live part takes a
  // block it has not had yet (every SSE call is a new subscriber after the last).
  const publishing = setInterval(() => bus.publish('trades', [wireTradeRow(TRADE_COIN, ++tradeBlock)]), 100);
  try {
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`SSE stream ended before an event: ${text}`);
      text += decoder.decode(value, { stream: true });
      const data = /^data: (.+)$/m.exec(text);
      if (data) return { status: 200, body: JSON.parse(data[1] as string) as unknown };
    }
  } finally {
    clearInterval(publishing);
    abort.abort();
  }
}

let tradeBlock = 0;

/** A trade of block `tid` as ingest stores and publishes it (markets.trades' row). */
function wireTradeRow(coin: string, tid: number): TradeRow {
  const { users, ...trade } = wireTrade(coin, tid);
  return { ...trade, block_number: tid, seq: 0, buyer: users[0], seller: users[1], fees: '0' };
}

/** A WebSocket class for graphql-ws's client that sends these headers with the upgrade. */
const withHeaders = (headers: Headers) =>
  class extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  };

type WsOutcome = { data: unknown } | { errors: unknown } | { code: number; reason: string };

/** One query over graphql-ws with the real client: its result, the operation's errors, or the close code. */
async function graphqlWs(
  opts: { connectionParams?: Record<string, unknown>; headers?: Headers; key?: string },
  client?: Client,
): Promise<WsOutcome> {
  const own =
    client ??
    createClient({
      url: withQuery(stack.urls.router.replace(/^http/, 'ws'), opts.key),
      webSocketImpl: opts.headers ? withHeaders(opts.headers) : WebSocket,
      connectionParams: opts.connectionParams,
      retryAttempts: 0,
    });
  try {
    return await new Promise<WsOutcome>((resolve) => {
      let data: unknown;
      own.subscribe(
        { query: '{ allMids { coin } }' },
        {
          next: (r) => {
            data = r.errors ? { errors: r.errors } : { data: r.data };
          },
          error: (e: unknown) => {
            const close = e as { code?: unknown; reason?: unknown };
            if (typeof close.code === 'number') resolve({ code: close.code, reason: String(close.reason) });
            else resolve({ errors: e });
          },
          complete: () => resolve(data as WsOutcome),
        },
      );
    });
  } finally {
    if (!client) await own.dispose();
  }
}

/**
 * Runs `probe` with a fresh key of one request a minute whose request was spent on REST (one budget across every
 * transport), again if a minute boundary fell inside it.
 */
async function overLimit<T>(probe: (key: string) => Promise<T>): Promise<T> {
  for (;;) {
    const minute = Math.floor(Date.now() / 60_000);
    const { key } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1 });
    expect((await postInfo({ 'x-api-key': key })).status).toBe(200);
    const result = await probe(key);
    if (Math.floor(Date.now() / 60_000) === minute) return result;
  }
}

const RATE_LIMITED = 'rate limit exceeded: 1 requests per minute';

/** The HTTP-shaped transports: the same headers and query parameter, the same refusals. */
describe.each([
  ['REST POST /info', postInfo],
  ['compat /ws', compatWs],
  ['router HTTP GraphQL', graphqlHttp],
  ['router SSE (POST)', (headers: Headers = {}, key?: string) => sse({ headers, key })],
  ['router SSE (GET, EventSource)', (headers: Headers = {}, key?: string) => sse({ headers, key, get: true })],
])('%s', (_name, send) => {
  const ok = _name === 'compat /ws' ? 101 : 200;

  it('refuses a request without a key with 401 missing api key', async () => {
    expect(await send()).toEqual({ status: 401, body: errorBody('missing_key', 'missing api key') });
  });

  it('refuses an invalid key with 401 invalid api key', async () => {
    const invalid = { status: 401, body: errorBody('invalid_key', 'invalid api key') };
    expect(await send({ authorization: 'Bearer hlk_nope' })).toEqual(invalid);
    expect(await send({}, 'hlk_nope')).toEqual(invalid);
  });

  it('serves a data key as Authorization: Bearer, X-API-Key and ?api_key=', async () => {
    expect((await send({ authorization: `Bearer ${dataKey}` })).status).toBe(ok);
    expect((await send({ 'x-api-key': dataKey })).status).toBe(ok);
    expect((await send({}, dataKey)).status).toBe(ok);
  });

  it('refuses an mcp-only key with 403 mcp_only_key', async () => {
    expect(await send({ authorization: `Bearer ${mcpKey}` })).toEqual({
      status: 403,
      body: errorBody('mcp_only_key', 'mcp_only_key'),
    });
  });

  it('refuses a key over its rate limit with 429', async () => {
    expect(await overLimit((key) => send({ 'x-api-key': key }))).toEqual({
      status: 429,
      body: errorBody('rate_limited', RATE_LIMITED),
    });
  });
});

describe('router graphql-ws (graphql-ws createClient)', () => {
  const served = { data: { allMids: expect.any(Array) } };

  it('opens the upgrade without a key and closes with 4401 at connection_init', async () => {
    expect(await graphqlWs({})).toEqual({ code: 4401, reason: 'missing api key' });
  });

  it('closes with 4401 invalid api key for a wrong key, however it came', async () => {
    const invalid = { code: 4401, reason: 'invalid api key' };
    expect(await graphqlWs({ connectionParams: { authorization: 'Bearer hlk_nope' } })).toEqual(invalid);
    expect(await graphqlWs({ headers: { authorization: 'Bearer hlk_nope' } })).toEqual(invalid);
    expect(await graphqlWs({ key: 'hlk_nope' })).toEqual(invalid);
  });

  it.each([
    ['connectionParams.authorization', { connectionParams: { authorization: 'Bearer KEY' } }],
    ['connectionParams.Authorization', { connectionParams: { Authorization: 'Bearer KEY' } }],
    ['connectionParams.apiKey', { connectionParams: { apiKey: 'KEY' } }],
    ['connectionParams.api_key', { connectionParams: { api_key: 'KEY' } }],
    ['connectionParams.headers.authorization', { connectionParams: { headers: { authorization: 'Bearer KEY' } } }],
    ['an upgrade header Authorization: Bearer', { headers: { authorization: 'Bearer KEY' } }],
    ['an upgrade header X-API-Key', { headers: { 'x-api-key': 'KEY' } }],
    ['?api_key=', { key: 'KEY' }],
  ])('serves a data key sent as %s', async (_form, opts) => {
    const withKey = JSON.parse(JSON.stringify(opts).replaceAll('KEY', dataKey));
    expect(await graphqlWs(withKey)).toEqual(served);
  });

  it('closes with 4403 mcp_only_key for an mcp-only key', async () => {
    const forbidden = { code: 4403, reason: 'mcp_only_key' };
    expect(await graphqlWs({ connectionParams: { authorization: `Bearer ${mcpKey}` } })).toEqual(forbidden);
    expect(await graphqlWs({ key: mcpKey })).toEqual(forbidden);
  });

  it('closes with 4429 for a key over its rate limit', async () => {
    expect(await overLimit((key) => graphqlWs({ connectionParams: { apiKey: key } }))).toEqual({
      code: 4429,
      reason: RATE_LIMITED,
    });
  });

  it('checks every operation with the connection-params key: a revoked key is refused on its open connection', async () => {
    const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000 });
    let connections = 0;
    const client = createClient({
      url: stack.urls.router.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key}` },
      // One connection throughout (a lazy client would reconnect for the second operation).
      lazy: false,
      on: { connected: () => connections++ },
      retryAttempts: 0,
    });
    try {
      expect(await graphqlWs({}, client)).toEqual(served);
      await revokeKey(db.pool, String(record.id));
      stack.auth.invalidate();
      // The key's refusal as a GraphQL error, its code the table's GraphQL form of `revoked_key`.
      expect(await graphqlWs({}, client)).toEqual({
        errors: [
          expect.objectContaining({
            message: 'invalid api key',
            extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
          }),
        ],
      });
      expect(connections).toBe(1);
    } finally {
      await client.dispose();
    }
  });
});
