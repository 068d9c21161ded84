// Issue 29 on compat-rest, /ws and the MCP tool server: what one caller must not be able to do to the service.
// Numbers parse strictly (Infinity, 1e309, negatives, fractions are 400s naming the field, never a 500 or a 200),
// JSON nests at most 64 levels and bodies weigh at most 1 MiB on every port, the relay cache keeps a type's
// documented fields only and stays within its bound, and a call refused for its input costs nothing, on REST, /ws
// posts and MCP alike. Each finding of the issue is reproduced here against compat-rest over a loaded database
// and a simulated node, with the tool server over the same services.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey } from '../access/keys.ts';
import { buildCompatApp } from '../compat-rest/app.ts';
import { liveConfigScript } from '../compat-rest/live.ts';
import { startMcpServer } from '../mcp/server.ts';
import { errorBody } from '../platform/error-codes.ts';
import { MAX_JSON_DEPTH } from '../platform/json-depth.ts';
import { RELAY_CACHE_MAX_CHARS } from '../platform/upstream.ts';
import { type Answer, startCompatApp, type TestCompatApp } from './compat-app.ts';
import { mcpClient } from './mcp-client.ts';

let c: TestCompatApp;
let mcp: Awaited<ReturnType<typeof startMcpServer>>;
/** A key without credit or rate limits, for the tests that are not about them. */
let key: string;
let user: string;

beforeAll(async () => {
  c = await startCompatApp({ listen: true });
  mcp = await startMcpServer({ services: c.services, auth: c.auth, port: 0, log: () => {} });
  key = (await createKey(c.db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 })).key;
  c.auth.invalidate();
  const { rows } = await c.db.pool.query('SELECT address FROM accounts.fills ORDER BY time DESC LIMIT 1');
  user = rows[0].address;
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await c?.close();
});

const bearer = (k = key) => ({ authorization: `Bearer ${k}` });

async function get(url: string, k = key): Promise<Answer> {
  const res = await c.app.inject({ method: 'GET', url, headers: bearer(k) });
  return { status: res.statusCode, headers: res.headers, type: undefined, body: safeJson(res.body), text: res.body };
}

const info = (body: unknown, k = key, raw?: string) => c.info(body, bearer(k), raw);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A compat /ws connection with the key, its frames read in order. */
async function wsWith(k = key) {
  const socket = new WebSocket(c.urls.ws, { headers: bearer(k) });
  const inbox: { channel: string; data: unknown }[] = [];
  const waiting: (() => void)[] = [];
  socket.on('message', (raw) => {
    inbox.push(JSON.parse(String(raw)));
    for (const w of waiting.splice(0)) w();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  let read = 0;
  let nextId = 0;
  // biome-ignore lint/suspicious/noExplicitAny: frames are checked field by field
  const until = async (match: (m: any) => boolean): Promise<any> => {
    for (;;) {
      while (read < inbox.length) {
        const m = inbox[read++];
        if (match(m)) return m;
      }
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching frame within 10 s')), 10_000);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return {
    socket,
    closed,
    until,
    /** Every frame received so far. */
    frames: () => inbox,
    sendRaw: (text: string) => socket.send(text),
    send: (m: unknown) => socket.send(JSON.stringify(m)),
    /** A post's answer: its response object. */
    async post(payload: unknown) {
      const id = ++nextId;
      socket.send(JSON.stringify({ method: 'post', id, request: { type: 'info', payload } }));
      return (await until((m) => m.channel === 'post' && m.data.id === id)).data.response;
    },
    close: () => socket.close(),
  };
}

describe('numbers parse strictly', () => {
  it('Infinity, 1e309, -Infinity, negatives, fractions and hex on path routes are 400s naming the field', async () => {
    const cases: [string, string][] = [
      ['/market/bbo/BTC?limit=Infinity', 'limit'],
      ['/market/bbo/BTC?limit=1e309', 'limit'],
      ['/market/bbo/BTC?limit=-Infinity', 'limit'],
      ['/market/depth/BTC?limit=-5', 'limit'],
      ['/hip4/fills?limit=Infinity', 'limit'],
      ['/hip4/fills?limit=1e309', 'limit'],
      ['/hip4/fills?offset=-Infinity', 'offset'],
      ['/hip4/questions?limit=1.5', 'limit'],
      ['/evm/transactions?limit=0x10', 'limit'],
      ['/evm/transactions?block_number=Infinity', 'block_number'],
      ['/users/leaderboard?page=Infinity', 'page'],
      ['/users/leaderboard?page=2.5', 'page'],
      ['/users/leaderboard?limit=%201', 'limit'],
      [`/users/leaderboard?min_trades=${'9'.repeat(30)}`, 'min_trades'],
    ];
    const answers = await Promise.all(cases.map(([url]) => get(url)));
    // The field leads the message (`limit: ...`; fastify's own schema messages: `querystring/limit must ...`).
    const seen = answers.map((a) => [a.status, /^(?:querystring\/)?(\w+)/.exec(String(a.body?.error))?.[1]]);
    expect(seen).toEqual(cases.map(([, field]) => [400, field]));
    expect((await get('/users/leaderboard?page=Infinity')).body.error).toBe(
      'page: must be an integer from 1 to 10000, got "Infinity"',
    );
    // The same routes with plain integers answer.
    for (const url of ['/market/bbo/BTC?limit=5', '/hip4/fills?limit=5&offset=0', '/users/leaderboard?page=2']) {
      expect((await get(url)).status, url).toBe(200);
    }
  });

  it('a JSON number beyond a double (1e309 parses to Infinity) is a 400 naming the field on /info and MCP', async () => {
    const raw = '{"type":"candleSnapshot","req":{"coin":"BTC","interval":"1m","startTime":1e309}}';
    const res = await info(null, key, raw);
    expect([res.status, res.body]).toEqual([
      400,
      errorBody(
        'bad_input',
        'req.startTime: must be an integer of epoch milliseconds from 0 to 8640000000000000, got Infinity',
      ),
    ]);
    const negative = await info(
      null,
      key,
      '{"type":"userFillsByTime","user":"USER","startTime":-1e309}'.replace('USER', user),
    );
    expect([negative.status, String(negative.body.error).split(':')[0]]).toEqual([400, 'startTime']);
    const client = await mcpClient(mcp.url, key);
    try {
      const res = await fetch(mcp.url, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"markets_trades","arguments":{"coin":"BTC","limit":1e309}}}',
      });
      const body = await res.json();
      expect(body.result.isError).toBe(true);
      expect(body.result.content[0].text).toMatch(/^limit: must be an integer from 1 to \d+, got Infinity$/);
    } finally {
      await client.close();
    }
  });
});

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('JSON depth and body size', () => {
  it('/info: JSON nested 5 000 levels is a 400 naming the limit; 64 levels in a field clients add still answer', async () => {
    const deep = await info(null, key, `{"type":"allMids","x":${nested(5000)}}`);
    expect([deep.status, deep.body]).toEqual([
      400,
      errorBody('bad_input', `body: JSON nested deeper than ${MAX_JSON_DEPTH} levels`),
    ]);
    const bare = await info(null, key, nested(100_000));
    expect(bare.status).toBe(400);
    // `dex`: a field clients add that spotMetaAndAssetCtxs does not read (request-schema.ts CLIENT_EXTRAS).
    const fine = await info(null, key, `{"type":"spotMetaAndAssetCtxs","dex":${nested(MAX_JSON_DEPTH - 1)}}`);
    expect(fine.status).toBe(200);
  });

  it('/info: a body over 1 MiB is a 413; one just under it is read', async () => {
    // The pad in `dex`, a field clients add that spotMetaAndAssetCtxs does not read.
    const pad = (n: number) => `{"type":"spotMetaAndAssetCtxs","dex":"${'x'.repeat(n)}"}`;
    const over = await info(null, key, pad((1 << 20) - 39));
    expect([over.status, over.body]).toEqual([413, errorBody('body_too_large', 'body too large (max 1 MiB)')]);
    expect((await info(null, key, pad((1 << 20) - 40))).status).toBe(200);
  });

  it('/ws: a frame nested too deep is refused on channel error and the connection keeps serving; over 1 MiB closes it', async () => {
    const ws = await wsWith();
    ws.sendRaw(`{"method":"post","id":1,"request":{"type":"info","payload":${nested(5000)}}}`);
    const refused = await ws.until((m) => m.channel === 'error');
    expect(refused.data).toBe(`Invalid message: message: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    expect(await ws.post({ type: 'allMids' })).toMatchObject({ type: 'info' });
    ws.sendRaw(`{"method":"ping","pad":"${'x'.repeat(1 << 20)}"}`);
    expect(await ws.closed).toBe(1009);
  });

  it('MCP: JSON nested too deep is a 400 JSON-RPC error naming the limit; a body over 1 MiB a 413', async () => {
    const post = (body: string) =>
      fetch(mcp.url, {
        method: 'POST',
        headers: { ...bearer(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const deep = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${nested(5000)}}}`);
    expect(deep.status).toBe(400);
    expect((await deep.json()).error).toEqual({
      code: -32600,
      message: `Invalid Request: body: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
      data: { code: 'bad_input' },
    });
    const big = await post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"${'x'.repeat(1 << 20)}"}}`);
    expect(big.status).toBe(413);
  });
});

/** The V8 heap in use after a full collection (gc exposed for this test alone). */
function heapAfterGc(): number {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('relay cache', () => {
  it('200 `spotMeta` bodies each with a unique 1 MB pad: one cache entry, the cache within its bound, the heap flat', async () => {
    const before = heapAfterGc();
    const pad = 'p'.repeat(1_000_000);
    for (let i = 0; i < 200; i++) {
      const res = await c.app.inject({
        method: 'POST',
        url: '/info',
        headers: { ...bearer(), 'content-type': 'application/json' },
        // `dex`: a field clients send that spotMeta does not read, so taken (request-schema.ts CLIENT_EXTRAS).
        payload: `{"type":"spotMeta","dex":"${i}-${pad}"}`,
      });
      expect(res.statusCode).toBe(200);
    }
    const cache = c.services.upstream.cacheSize();
    expect(cache.entries).toBeLessThanOrEqual(2);
    expect(cache.chars).toBeLessThan(RELAY_CACHE_MAX_CHARS);
    // Before the fix, each pad stayed in the cache's keys: ~200 MB, three times the bound (the cost of this test is
    // parsing the pads: 200 show what 900 did).
    expect(heapAfterGc() - before).toBeLessThan(64 * 1024 * 1024);
  }, 120_000);

  it('keys on the documented fields only: fields clients add neither reach the node nor split the cache', async () => {
    const first = await info({ type: 'maxMarketOrderNtls', dex: 'a' });
    const second = await info({ type: 'maxMarketOrderNtls', dex: 'b' });
    expect(first.status).toBe(200);
    expect(second.text).toBe(first.text);
    // A field no client is known to send is refused, before it could reach the node.
    const made = await info({ type: 'meta', dex: '', clientField: 'a' });
    expect(made.status).toBe(400);
    expect(made.body.error).toBe('clientField: unknown parameter; it takes type, dex');
    const keys = [...(c.services.upstream as unknown as { cache: Map<string, unknown> }).cache.keys()];
    expect(keys.filter((k) => k.includes('clientField') || k.includes('"dex":"a"') || k.includes('0-pp'))).toEqual([]);
    expect(keys).toContain('{"type":"maxMarketOrderNtls"}');
  });
});

describe('refused input costs nothing', () => {
  async function paidKey(credits: number) {
    const { key: k, record } = await createKey(c.db.pool, { scope: 'data', credits, rateLimitPerMin: 1_000_000 });
    c.auth.invalidate();
    return {
      key: k,
      left: async () =>
        Number(
          (await c.db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [record.id])).rows[0].credits,
        ),
    };
  }

  /** Bodies /info refuses: wrong type, missing field, unknown type, `[]`, and what handlers find (windows, node). */
  const refusedBodies = () => [
    { type: 'l2Book', coin: 5 },
    { type: 'l2Book' },
    { type: 'noSuchType' },
    [],
    { type: 'userFillsByTime', user, startTime: 2_000_000, endTime: 1_000_000 },
    { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 2_000_000, endTime: 1_000_000 } },
    // A parameter the type does not take (a typo of startTime), at the top and nested.
    { type: 'userFunding', user, start_Time: 1 },
    { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 0, start_Time: 1 } },
  ];

  it('POST /info and path routes: refused bodies, 404s and handler 400s leave the credits; a good call takes one', async () => {
    const paid = await paidKey(3);
    for (const body of refusedBodies()) {
      const res = await info(body, paid.key);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await get('/no/such/endpoint', paid.key)).status).toBe(404);
    expect((await get('/evm/hip3/backstop/nodex/health', paid.key)).status).toBe(404);
    const reversed = await get('/market/bbo/BTC?start_time=2026-01-02&end_time=2026-01-01', paid.key);
    expect(reversed.status).toBe(400);
    expect((await get('/market/bbo/BTC?limit=Infinity', paid.key)).status).toBe(400);
    expect((await get(`/funding/userFunding?user=${user}&start_Time=1`, paid.key)).status).toBe(400);
    expect((await get('/evm/hip3/backstop/xyz/fills?offset=1&cursor=1:2:3:4', paid.key)).status).toBe(400);
    expect(await paid.left()).toBe(3);
    expect((await info({ type: 'allMids' }, paid.key)).status).toBe(200);
    expect(await paid.left()).toBe(2);
  });

  it('/ws posts: the same refusals cost nothing; a good post takes one credit', async () => {
    const paid = await paidKey(2);
    const ws = await wsWith(paid.key);
    for (const body of refusedBodies()) {
      const response = await ws.post(body);
      expect(response.type, JSON.stringify(body)).toBe('error');
      expect(String(response.payload).slice(0, 3)).toBe('400');
    }
    expect(await paid.left()).toBe(2);
    expect(await ws.post({ type: 'allMids' })).toMatchObject({ type: 'info' });
    expect(await paid.left()).toBe(1);
    ws.close();
  });

  it('MCP: a tool call its service refuses for its input costs nothing; a good one takes one credit', async () => {
    const paid = await paidKey(2);
    const client: Client = await mcpClient(mcp.url, paid.key);
    try {
      const refused = await client.callTool({
        name: 'accounts_user_fills',
        arguments: { user, startTime: 2_000_000, endTime: 1_000_000 },
      });
      expect(refused.isError).toBe(true);
      const bad = await client.callTool({ name: 'markets_trades', arguments: { coin: 5 } });
      expect(bad.isError).toBe(true);
      expect(await paid.left()).toBe(2);
      expect((await client.callTool({ name: 'markets_all_mids', arguments: {} })).isError).toBeFalsy();
      expect(await paid.left()).toBe(1);
    } finally {
      await client.close();
    }
  });
});

describe('/ws subscribe: the key rules, credits and a bound on stored snapshots', () => {
  async function keyWith(opts: { credits?: number; rateLimitPerMin?: number }) {
    const { key: k, record } = await createKey(c.db.pool, { scope: 'data', rateLimitPerMin: 1_000_000, ...opts });
    c.auth.invalidate();
    const left = async () =>
      Number(
        (await c.db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [record.id])).rows[0].credits,
      );
    return { key: k, id: record.id, left };
  }

  const userFills = (u: string) => ({ type: 'userFills', user: u });
  /** Another address with fills than `user`, for a second subscription on one connection. */
  async function otherUser(): Promise<string> {
    const { rows } = await c.db.pool.query('SELECT address FROM accounts.fills WHERE address <> $1 LIMIT 1', [user]);
    return rows[0].address;
  }

  type Ws = Awaited<ReturnType<typeof wsWith>>;
  /** The ack or the refusal of a subscribe. */
  const answerTo = (ws: Ws) => ws.until((m) => m.channel === 'subscriptionResponse' || m.channel === 'error');

  it('a revoked key is refused new subscribes on its open connection and gets no snapshot', async () => {
    const k = await keyWith({});
    const ws = await wsWith(k.key);
    ws.send({ method: 'subscribe', subscription: userFills(user) });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    expect((await ws.until((m) => m.channel === 'userFills')).data.isSnapshot).toBe(true);
    await c.db.pool.query('UPDATE platform.api_keys SET revoked_at = now() WHERE id = $1', [k.id]);
    // What 10 s of the key cache do.
    c.auth.invalidate();
    const other = await otherUser();
    ws.send({ method: 'subscribe', subscription: userFills(other) });
    const refused = await answerTo(ws);
    expect(refused.channel).toBe('error');
    expect(refused.data).toBe(
      `Subscription refused (401 invalid api key): ${JSON.stringify({ method: 'subscribe', subscription: userFills(other) })}`,
    );
    expect(refused.code).toBe('revoked_key');
    ws.send({ method: 'ping' });
    await ws.until((m) => m.channel === 'pong');
    expect(
      ws
        .frames()
        .filter((m) => m.channel === 'userFills')
        .map((m) => (m.data as { user: string }).user),
    ).toEqual([user]);
    ws.close();
  });

  it('each subscribe costs a credit, its snapshot included; a key without credits gets nothing; a refused one is free', async () => {
    const k = await keyWith({ credits: 2 });
    const ws = await wsWith(k.key);
    ws.send({ method: 'subscribe', subscription: { type: 'userFills', user: '0x123' } });
    expect((await answerTo(ws)).data).toMatch(/^Invalid subscription /);
    ws.send({ method: 'subscribe', subscription: userFills(user) });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: { type: 'allMids' } });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    expect(await k.left()).toBe(0);
    const other = await otherUser();
    ws.send({ method: 'subscribe', subscription: userFills(other) });
    const refused = await answerTo(ws);
    expect(refused.data).toMatch(/^Subscription refused \(402 insufficient credits\): /);
    // The refused subscription sent nothing: the only userFills frame is the first user's snapshot.
    ws.send({ method: 'ping' });
    await ws.until((m) => m.channel === 'pong');
    ws.close();
    await ws.closed;
    expect(await k.left()).toBe(0);

    const broke = await keyWith({ credits: 0 });
    const poor = await wsWith(broke.key);
    poor.send({ method: 'subscribe', subscription: userFills(user) });
    expect((await answerTo(poor)).data).toMatch(/^Subscription refused \(402 insufficient credits\): /);
    expect((await poor.post({ type: 'allMids' })).payload).toBe('402 insufficient credits');
    poor.send({ method: 'ping' });
    const next = await poor.until((m) => m.channel !== 'error');
    expect(next.channel).toBe('pong');
    poor.close();
  });

  it('a subscribe counts in the key’s rate limit; the /ws upgrade’s 429 says Retry-After', async () => {
    const k = await keyWith({ rateLimitPerMin: 3 });
    // The upgrade is the first request of the minute, two subscribes the next.
    const ws = await wsWith(k.key);
    ws.send({ method: 'subscribe', subscription: { type: 'allMids' } });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'ETH' } });
    expect((await answerTo(ws)).data).toMatch(
      /^Subscription refused \(429 rate limit exceeded: 3 requests per minute\): /,
    );
    ws.close();
    const refused = await new Promise<{ status: number; retryAfter: unknown }>((resolve, reject) => {
      const socket = new WebSocket(c.urls.ws, { headers: bearer(k.key) });
      socket.on('unexpected-response', (_req, res) =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }),
      );
      socket.on('open', () => reject(new Error('the upgrade was admitted')));
      socket.on('error', () => {});
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
  });

  it('a connection looping subscribe/unsubscribe on userFills reads 60 stored snapshots at once, then one a second', async () => {
    const ws = await wsWith();
    const started = performance.now();
    let admitted = 0;
    let refusal = '';
    while (!refusal && admitted < 1000) {
      ws.send({ method: 'subscribe', subscription: userFills(user) });
      ws.send({ method: 'unsubscribe', subscription: userFills(user) });
      const answer = await answerTo(ws);
      if (answer.channel === 'error') refusal = answer.data;
      else admitted++;
      await ws.until((m) => m.channel === 'subscriptionResponse' || /^Already unsubscribed/.test(String(m.data)));
    }
    // The burst, and what the bucket refilled while the loop ran (one a second).
    const seconds = (performance.now() - started) / 1000;
    expect(admitted).toBeGreaterThanOrEqual(60);
    expect(admitted).toBeLessThanOrEqual(60 + Math.ceil(seconds));
    expect(refusal).toMatch(
      /^Subscription refused \(stored snapshots: at most 60 at once and 60 a minute per connection; retry in 1 s\): /,
    );
    // Channels without a stored snapshot are not limited by it.
    ws.send({ method: 'subscribe', subscription: { type: 'allMids' } });
    expect((await answerTo(ws)).channel).toBe('subscriptionResponse');
    ws.close();
  });
});

describe('headers', () => {
  let server: FastifyInstance;
  let port = 0;
  const ROUTER = 'http://127.0.0.1:4000/graphql';

  beforeAll(async () => {
    server = await buildCompatApp({ services: c.services, auth: c.auth, graphqlUrl: ROUTER, log: () => {} });
    await server.listen({ port: 0, host: '127.0.0.1' });
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await server?.close();
  });

  /** One request written byte for byte (node's client refuses malformed headers); the status of its answer. */
  function rawRequest(head: string, body = ''): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
      });
      // Written, not ended: a half-closed socket is closed before an async answer.
      socket.write(
        `${head}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        'latin1',
      );
    });
  }

  /** The page's configuration as a browser that loaded the page from `hostname` reads it. */
  async function liveConfig(host: string, hostname: string) {
    const res = await rawRequest(`GET /live/config.js HTTP/1.1\r\nHost: ${host}`);
    expect(res.status).toBe(200);
    const script = res.text.slice(res.text.indexOf('\r\n\r\n') + 4);
    const window: { LIVE_CONFIG?: Record<string, unknown> } = {};
    runInNewContext(script, { window, URL, location: { hostname } });
    return { script, config: window.LIVE_CONFIG };
  }

  it('/live/config.js is written from configuration: a malformed or foreign Host changes nothing', async () => {
    for (const host of ['[bad', 'evil.example', '', '%%', 'a b']) {
      const { script, config } = await liveConfig(host, 'page.example');
      expect(script).not.toContain('evil');
      expect(config).toMatchObject({
        graphqlHttp: 'http://page.example:4000/graphql',
        graphqlWs: 'ws://page.example:4000/graphql',
        keyRequired: true,
      });
    }
    // A router with a name of its own is reached by that name.
    expect(liveConfigScript('https://data.example.com/graphql', false)).toContain('"https://data.example.com/graphql"');
    const window: { LIVE_CONFIG?: Record<string, unknown> } = {};
    const named = liveConfigScript('https://data.example.com/graphql', false);
    runInNewContext(named, { window, URL, location: { hostname: 'other.example' } });
    expect(window.LIVE_CONFIG).toMatchObject({
      graphqlHttp: 'https://data.example.com/graphql',
      graphqlWs: 'wss://data.example.com/graphql',
      keyRequired: false,
    });
  });

  it('malformed Host and other headers never answer 5xx, on every kind of route (generated, fixed seed)', async () => {
    const routes = [
      'GET /',
      'GET /live/config.js',
      'GET /live/app.js',
      'GET /health',
      'GET /ready',
      'GET /openapi.json',
      'GET /market/bbo/BTC?limit=1',
      'GET /users/leaderboard',
      'GET /ws',
      'POST /info',
      'OPTIONS /info',
    ];
    const value = fc.oneof(
      fc.constantFrom('[bad', '[::1', ']', 'a:b:c', ':', '%00', 'é', '\u00ff\u00fe', 'x'.repeat(8000), '', ' ', '\t'),
      fc.string({ unit: 'binary-ascii', maxLength: 40 }).map((v) => v.replace(/[\r\n]/g, '')),
    );
    const header = fc.constantFrom(
      'Host',
      'Authorization',
      'X-API-Key',
      'Content-Type',
      'X-Request-Id',
      'Origin',
      'Accept',
      'Content-Encoding',
      'Transfer-Encoding',
      'Upgrade',
      'Cookie',
    );
    const cases = fc.sample(fc.record({ route: fc.constantFrom(...routes), host: value, name: header, value }), {
      seed: 29_07,
      numRuns: 300,
    });
    const failures: string[] = [];
    for (const c0 of cases) {
      const [method, path] = c0.route.split(' ') as [string, string];
      const lines = [`${method} ${path} HTTP/1.1`, `Host: ${c0.host}`, `Authorization: Bearer ${key}`];
      if (c0.name !== 'Host') lines.push(`${c0.name}: ${c0.value}`);
      const body = method === 'POST' ? '{"type":"allMids"}' : '';
      const res = await rawRequest(lines.join('\r\n'), body);
      if (res.status >= 500 || res.status === 0) {
        failures.push(
          `${c0.route} Host=${JSON.stringify(c0.host)} ${c0.name}=${JSON.stringify(c0.value).slice(0, 60)} → ${res.status}`,
        );
      }
    }
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
