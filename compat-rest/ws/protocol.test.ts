// The /ws transport against a real socket: framing, subscribe/unsubscribe/ack, post info, errors, limits and
// upgrade refusal, with fake channels and a fake info handler.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type Channel, type ChannelContext, SubscriptionError } from '../../kit/channel.ts';
import { errorBody } from '../../platform/error-codes.ts';
import { attachWsServer } from './protocol.ts';
import type { WsServerOptions } from './types.ts';

const ALICE = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

/** Contexts of live trades subscriptions by coin, so a test can publish; teardown counts per coin. */
const tradeFeeds = new Map<string, Set<ChannelContext>>();
const tradeTeardowns = new Map<string, number>();

const tradesChannel: Channel = {
  type: 'trades',
  normalize(sub) {
    if (typeof sub.coin !== 'string') throw new SubscriptionError('coin must be a string');
    return { type: 'trades', coin: sub.coin };
  },
  start(sub, ctx) {
    const coin = sub.coin as string;
    const feed = tradeFeeds.get(coin) ?? new Set();
    tradeFeeds.set(coin, feed);
    feed.add(ctx);
    return () => {
      feed.delete(ctx);
      tradeTeardowns.set(coin, (tradeTeardowns.get(coin) ?? 0) + 1);
    };
  },
};

function publishTrades(coin: string, trades: unknown[]): void {
  for (const ctx of tradeFeeds.get(coin) ?? []) ctx.send(trades);
}

const userEventsChannel: Channel = {
  type: 'userEvents',
  channelName: () => 'user',
  normalize(sub) {
    if (typeof sub.user !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(sub.user)) {
      throw new SubscriptionError('user must be a 0x address with {40} hex digits');
    }
    return { type: 'userEvents', user: sub.user.toLowerCase() };
  },
  async start(sub, ctx) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    ctx.send({ fills: [{ coin: 'BTC', px: '1', user: sub.user }] });
    ctx.send({ funding: { coin: 'ETH', usdc: '-0.1' } });
    return () => {};
  },
};

const brokenChannel: Channel = {
  type: 'broken',
  normalize: (sub) => ({ ...sub }),
  start() {
    throw new Error('boom');
  },
};

const rejectingChannel: Channel = {
  type: 'rejecting',
  normalize: (sub) => ({ ...sub }),
  start: () => Promise.reject(new SubscriptionError('no data for that market yet')),
};

/** Sends `count` frames of about 1 MiB each at once, to overrun a small backlog limit. */
let bulkTeardowns = 0;
const bulkChannel: Channel = {
  type: 'bulk',
  normalize: (sub) => ({ ...sub }),
  start(_sub, ctx) {
    const blob = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 32; i++) ctx.send(blob);
    return () => {
      bulkTeardowns++;
    };
  },
};

/** An answer the service wrote as JSON itself (non-ASCII and an escape included). */
const WRITTEN = '[{"px":"1.5","note":"caf\u00e9 \\u0000 \\"q\\""},{"px":"2"}]';

const info: WsServerOptions['info'] = async (payload, auth) => {
  const type = (payload as { type?: unknown } | undefined)?.type;
  if (type === 'allMids') return { status: 200, body: { BTC: '90000.5', key: auth.key } };
  if (type === 'bad') return { status: 400, body: errorBody('bad_input', 'coin is required') };
  if (type === 'written') return { status: 200, encoded: Buffer.from(WRITTEN) };
  if (type === 'throws') throw new Error('database down');
  return { status: 422, body: 'Failed to deserialize the JSON body into the target type' };
};

async function authenticate(req: IncomingMessage) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const key = req.headers.authorization?.replace(/^Bearer /, '') ?? url.searchParams.get('api_key');
  if (key === null || key === undefined) return { key: null };
  if (key === 'good') return { key: 'good' };
  return { status: 401, code: 'invalid_key' as const, error: 'invalid api key' };
}

interface Harness {
  http: Server;
  ws: ReturnType<typeof attachWsServer>;
  url: string;
  logs: string[];
}

async function startHarness(extra: Partial<WsServerOptions> = {}): Promise<Harness> {
  const http = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const logs: string[] = [];
  const ws = attachWsServer(http, {
    channels: [tradesChannel, userEventsChannel, brokenChannel, rejectingChannel, bulkChannel],
    info,
    authenticate,
    log: (line) => logs.push(line),
    ...extra,
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return { http, ws, url: `ws://127.0.0.1:${port}`, logs };
}

async function stopHarness(h: Harness): Promise<void> {
  await h.ws.close();
  await new Promise<void>((resolve) => h.http.close(() => resolve()));
}

/** A test client that queues every server frame (parsed when JSON) and awaits them one at a time. */
class Client {
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly frames: unknown[] = [];
  private waiter: (() => void) | null = null;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) =>
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    socket.on('message', (raw) => {
      const text = raw.toString();
      this.frames.push(JSON.parse(text));
      this.waiter?.();
    });
  }

  static async connect(url: string, headers?: Record<string, string>): Promise<Client> {
    const socket = new WebSocket(`${url}/ws`, { headers });
    const client = new Client(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async next(timeoutMs = 2000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no frame arrived');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
    return this.frames.shift();
  }

  /** Round-trips a ping: every frame the server sent before the pong has arrived by then. */
  async sync(): Promise<void> {
    this.send({ method: 'ping' });
    const pending: unknown[] = [];
    for (;;) {
      const frame = await this.next();
      if (JSON.stringify(frame) === '{"channel":"pong"}') break;
      pending.push(frame);
    }
    this.frames.unshift(...pending);
  }

  async expectNoFrame(): Promise<void> {
    await this.sync();
    expect(this.frames).toEqual([]);
  }

  close(): void {
    this.socket.close();
  }
}

/** Attempts an upgrade that the server refuses; resolves with the HTTP status and body the client saw. */
function refusedUpgrade(url: string, headers?: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('open', () => reject(new Error('upgrade was accepted')));
    socket.on('error', () => {});
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('ws protocol', () => {
  let h: Harness;
  const clients: Client[] = [];
  const connect = async (headers?: Record<string, string>) => {
    const client = await Client.connect(h.url, headers);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    h = await startHarness({ maxSubscriptionsPerConnection: 3 });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  afterAll(async () => {
    await stopHarness(h);
  });

  it('acks a subscribe with the normalized subscription and delivers data on the channel', async () => {
    const c = await connect();
    c.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'SOL' } });
    expect(await c.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'trades', coin: 'SOL' } },
    });
    publishTrades('SOL', [{ coin: 'SOL', px: '150.1' }]);
    expect(await c.next()).toEqual({ channel: 'trades', data: [{ coin: 'SOL', px: '150.1' }] });
  });

  it('uses the channel name of the channel, and an async start may send a snapshot first', async () => {
    const c = await connect();
    c.send({ method: 'subscribe', subscription: { type: 'userEvents', user: ALICE } });
    expect(await c.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'userEvents', user: ALICE.toLowerCase() } },
    });
    expect(await c.next()).toEqual({
      channel: 'user',
      data: { fills: [{ coin: 'BTC', px: '1', user: ALICE.toLowerCase() }] },
    });
    expect(await c.next()).toEqual({ channel: 'user', data: { funding: { coin: 'ETH', usdc: '-0.1' } } });
  });

  it('refuses a duplicate subscribe, also with other key order or address case', async () => {
    const c = await connect();
    c.send({ method: 'subscribe', subscription: { type: 'userEvents', user: ALICE } });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
    const again = { user: ALICE.toLowerCase(), type: 'userEvents' };
    c.send({ method: 'subscribe', subscription: again });
    const frames = [await c.next(), await c.next(), await c.next()];
    expect(frames).toContainEqual({
      channel: 'error',
      data: `Already subscribed: ${JSON.stringify(again)}`,
      code: 'bad_input',
    });
  });

  it('reports an unknown type and bad params as Invalid subscription with the subscription as sent', async () => {
    const c = await connect();
    const unknown = { type: 'nope', coin: 'BTC' };
    c.send({ method: 'subscribe', subscription: unknown });
    // The exchange's frame, `{channel, data}`, with the error code beside its data (platform/error-codes.ts).
    expect(await c.next()).toEqual({
      channel: 'error',
      data: `Invalid subscription ${JSON.stringify(unknown)}`,
      code: 'unknown_type',
    });

    const bad = { type: 'trades', coin: 42 };
    c.send({ method: 'subscribe', subscription: bad });
    expect(await c.next()).toEqual({
      channel: 'error',
      data: `Invalid subscription ${JSON.stringify(bad)}: coin must be a string`,
      code: 'bad_input',
    });

    // Braces in a channel's message are defused: the SDK JSON.parses the {...} span of error texts.
    const badUser = { type: 'userEvents', user: 'bob' };
    c.send({ method: 'subscribe', subscription: badUser });
    const frame = (await c.next()) as { data: string };
    expect(frame.data).toBe(
      `Invalid subscription ${JSON.stringify(badUser)}: user must be a 0x address with (40) hex digits`,
    );
    expect(JSON.parse(/{.*}/.exec(frame.data)?.[0] ?? '')).toEqual(badUser);
  });

  it('unsubscribes with an ack and stops delivery; an unknown unsubscribe is an error', async () => {
    const c = await connect();
    const sub = { type: 'trades', coin: 'ETH' };
    c.send({ method: 'subscribe', subscription: sub });
    await c.next();
    const before = tradeTeardowns.get('ETH') ?? 0;
    c.send({ method: 'unsubscribe', subscription: sub });
    expect(await c.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'unsubscribe', subscription: sub },
    });
    expect(tradeTeardowns.get('ETH')).toBe(before + 1);
    publishTrades('ETH', [{ coin: 'ETH' }]);
    await c.expectNoFrame();

    c.send({ method: 'unsubscribe', subscription: sub });
    const alreadyUnsubscribed = (sent: object) => ({
      channel: 'error',
      data: `Already unsubscribed: ${JSON.stringify(sent)}`,
      code: 'bad_input',
    });
    expect(await c.next()).toEqual(alreadyUnsubscribed(sub));
    const unknown = { type: 'nope' };
    c.send({ method: 'unsubscribe', subscription: unknown });
    expect(await c.next()).toEqual(alreadyUnsubscribed(unknown));

    // Subscribing again after an unsubscribe works.
    c.send({ method: 'subscribe', subscription: sub });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse', data: { method: 'subscribe' } });
  });

  it('answers ping with exactly {"channel":"pong"}', async () => {
    const c = await Client.connect(h.url);
    clients.push(c);
    const raw = new Promise<string>((resolve) => c.socket.once('message', (data) => resolve(data.toString())));
    c.send({ method: 'ping' });
    expect(await raw).toBe('{"channel":"pong"}');
  });

  it('answers post info with the wrapped body and the same id, passing the connection auth', async () => {
    const c = await connect({ authorization: 'Bearer good' });
    c.send({ method: 'post', id: 17, request: { type: 'info', payload: { type: 'allMids' } } });
    expect(await c.next()).toEqual({
      channel: 'post',
      data: { id: 17, response: { type: 'info', payload: { type: 'allMids', data: { BTC: '90000.5', key: 'good' } } } },
    });
  });

  it('embeds an answer written as JSON as it is: the frame the parsed answer would give, byte for byte', async () => {
    const c = await connect({ authorization: 'Bearer good' });
    const raw = new Promise<string>((resolve) => c.socket.once('message', (data) => resolve(data.toString())));
    c.send({ method: 'post', id: 5, request: { type: 'info', payload: { type: 'written' } } });
    const data = JSON.parse(WRITTEN);
    expect(await raw).toBe(
      JSON.stringify({
        channel: 'post',
        data: { id: 5, response: { type: 'info', payload: { type: 'written', data } } },
      }),
    );
  });

  it('turns info failures into post error responses', async () => {
    const c = await connect();
    c.send({ method: 'post', id: 1, request: { type: 'info', payload: { type: 'bad' } } });
    expect(await c.next()).toEqual({
      channel: 'post',
      data: { id: 1, response: { type: 'error', payload: '400 coin is required', code: 'bad_input' } },
    });
    c.send({ method: 'post', id: 2, request: { type: 'info', payload: { type: 'whatever' } } });
    expect(await c.next()).toEqual({
      channel: 'post',
      data: {
        id: 2,
        response: {
          type: 'error',
          payload: '422 Failed to deserialize the JSON body into the target type',
          code: 'upstream_error',
        },
      },
    });
    c.send({ method: 'post', id: 3, request: { type: 'info', payload: { type: 'throws' } } });
    expect(await c.next()).toEqual({
      channel: 'post',
      data: { id: 3, response: { type: 'error', payload: '500 internal error', code: 'internal_error' } },
    });
    expect(h.logs.some((line) => line.includes('database down'))).toBe(true);
  });

  it('refuses post actions and posts without a numeric id', async () => {
    const c = await connect();
    c.send({ method: 'post', id: 5, request: { type: 'action', payload: { action: { type: 'order' } } } });
    expect(await c.next()).toEqual({
      channel: 'post',
      data: {
        id: 5,
        response: {
          type: 'error',
          payload: 'action requests are not supported: this is a read-only data service',
          code: 'unknown_type',
        },
      },
    });
    c.send({ method: 'post', request: { type: 'info', payload: { type: 'allMids' } } });
    expect(await c.next()).toMatchObject({ channel: 'error', data: expect.stringContaining('id') });
    c.send({ method: 'post', id: 'x', request: { type: 'info', payload: { type: 'allMids' } } });
    expect(await c.next()).toMatchObject({ channel: 'error' });
  });

  it('reports malformed frames and unknown methods on channel error and stays usable', async () => {
    const c = await connect();
    c.send('{not json');
    expect(await c.next()).toMatchObject({ channel: 'error', data: expect.any(String), code: 'malformed_json' });
    c.send('[1,2]');
    expect(await c.next()).toMatchObject({ channel: 'error', data: expect.any(String) });
    c.send({ method: '{weird}' });
    const unknown = (await c.next()) as { channel: string; data: string };
    expect(unknown.channel).toBe('error');
    expect(unknown.data).not.toMatch(/[{}]/);
    c.send({ method: 'ping' });
    expect(await c.next()).toEqual({ channel: 'pong' });
  });

  it('enforces the subscription limit per connection', async () => {
    const c = await connect();
    for (const coin of ['A', 'B', 'C']) {
      c.send({ method: 'subscribe', subscription: { type: 'trades', coin } });
      expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
    }
    c.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'D' } });
    const frame = (await c.next()) as { channel: string; data: string };
    expect(frame).toMatchObject({ channel: 'error', code: 'too_many_subscriptions' });
    expect(frame.data).toContain('Too many subscriptions');
    // The SDK finds its pending request by the embedded envelope.
    expect(JSON.parse(/{.*}/.exec(frame.data)?.[0] ?? '')).toEqual({
      method: 'subscribe',
      subscription: { type: 'trades', coin: 'D' },
    });
    publishTrades('D', [{ coin: 'D' }]);
    await c.expectNoFrame();
    // A freed slot can be used again.
    c.send({ method: 'unsubscribe', subscription: { type: 'trades', coin: 'A' } });
    await c.next();
    c.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'D' } });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
  });

  it('removes a subscription whose start throws or rejects, after an error frame', async () => {
    const c = await connect();
    c.send({ method: 'subscribe', subscription: { type: 'broken' } });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
    expect(await c.next()).toEqual({
      channel: 'error',
      data: 'Subscription failed and was removed: {"type":"broken"}: internal error',
      code: 'internal_error',
    });
    expect(h.logs.some((line) => line.includes('boom'))).toBe(true);
    // Removed: subscribing again is not a duplicate.
    c.send({ method: 'subscribe', subscription: { type: 'broken' } });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
    await c.next();

    c.send({ method: 'subscribe', subscription: { type: 'rejecting', coin: 'X' } });
    expect(await c.next()).toMatchObject({ channel: 'subscriptionResponse' });
    expect(await c.next()).toEqual({
      channel: 'error',
      data: 'Subscription failed and was removed: {"type":"rejecting","coin":"X"}: no data for that market yet',
      code: 'bad_input',
    });
  });

  it('tears down every subscription when the client goes away', async () => {
    const c = await connect();
    c.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'GONE' } });
    await c.next();
    expect(tradeFeeds.get('GONE')?.size).toBe(1);
    c.close();
    await c.closed;
    await expect.poll(() => tradeFeeds.get('GONE')?.size).toBe(0);
    expect(tradeTeardowns.get('GONE')).toBe(1);
  });

  it('refuses upgrades that fail authentication, and other paths, with an HTTP status and JSON body', async () => {
    expect(await refusedUpgrade(`${h.url}/ws`, { authorization: 'Bearer wrong' })).toEqual({
      status: 401,
      body: '{"error":"invalid api key","code":"invalid_key","msg":"invalid api key"}',
    });
    expect((await refusedUpgrade(`${h.url}/ws?api_key=wrong`)).status).toBe(401);
    expect((await refusedUpgrade(`${h.url}/elsewhere`)).status).toBe(404);
    // A good key in the query is accepted.
    const viaQuery = new WebSocket(`${h.url}/ws?api_key=good`);
    await new Promise((resolve, reject) => {
      viaQuery.once('open', resolve);
      viaQuery.once('error', reject);
    });
    viaQuery.close();
  });
});

describe('ws connection limits', () => {
  it('closes a connection idle for idleTimeoutMs, but not one that pings', async () => {
    const h = await startHarness({ idleTimeoutMs: 200 });
    try {
      const idle = await Client.connect(h.url);
      const pinging = await Client.connect(h.url);
      const timer = setInterval(() => pinging.send({ method: 'ping' }), 50);
      const started = Date.now();
      const { code } = await idle.closed;
      expect(code).toBe(1000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      await new Promise((resolve) => setTimeout(resolve, 300));
      clearInterval(timer);
      expect(pinging.socket.readyState).toBe(WebSocket.OPEN);
      expect(h.ws.connections()).toBe(1);
      pinging.close();
    } finally {
      await stopHarness(h);
    }
  });

  it('closes a slow consumer with 1013 and tears its subscriptions down', async () => {
    const h = await startHarness({ maxBufferedBytes: 256 * 1024 });
    try {
      const c = await Client.connect(h.url);
      c.send({ method: 'subscribe', subscription: { type: 'bulk' } });
      const { code } = await c.closed;
      expect(code).toBe(1013);
      expect(bulkTeardowns).toBe(1);
      expect(h.logs.some((line) => line.includes('slow consumer'))).toBe(true);
    } finally {
      await stopHarness(h);
    }
  });

  it('close() closes every connection with 1001 and refuses new upgrades', async () => {
    const h = await startHarness();
    const a = await Client.connect(h.url);
    const b = await Client.connect(h.url);
    a.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BYE' } });
    await a.next();
    expect(h.ws.connections()).toBe(2);
    const before = tradeTeardowns.get('BYE') ?? 0;
    await h.ws.close();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1001);
    expect(h.ws.connections()).toBe(0);
    expect(tradeTeardowns.get('BYE')).toBe(before + 1);
    await expect(Client.connect(h.url)).rejects.toThrow();
    await new Promise<void>((resolve) => h.http.close(() => resolve()));
  });
});
