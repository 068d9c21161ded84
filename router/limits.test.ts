// The router's own bounds, with no subgraph behind it (what it refuses, it refuses before fetching anything): the
// expanded size of an operation before planning, the execution time, request bodies, request ids and CORS.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { errorBody } from '../platform/error-codes.ts';
import { fragmentBomb } from '../test/graphql.ts';
import { composeSupergraph } from './compose.ts';
import { DEFAULT_LIMITS, startRouter } from './server.ts';
import { openRouterThread } from './thread.ts';

/** A subgraph that accepts connections and never answers. */
let hanging: net.Server;
const hangingSockets = new Set<net.Socket>();
let router: Awaited<ReturnType<typeof startRouter>>;
const CREDITED = 'https://app.example.com';

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(router.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const query = (q: string) => post(JSON.stringify({ query: q }));

beforeAll(async () => {
  hanging = net.createServer((socket) => hangingSockets.add(socket));
  await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
  const { port } = hanging.address() as net.AddressInfo;
  router = await startRouter({
    supergraphSdl: composeSupergraph([
      { name: 'markets', url: `http://127.0.0.1:${port}/graphql`, schema: marketsSchema },
    ]),
    port: 0,
    limits: { ...DEFAULT_LIMITS, operationTimeoutMs: 300 },
    corsOrigins: [CREDITED],
  });
});
afterAll(async () => {
  for (const socket of hangingSockets) socket.destroy();
  await router?.close();
  await new Promise((r) => hanging.close(r));
});

describe('the size of an operation, fragments expanded', () => {
  it('refuses the 24-level fragment bomb with a 400 naming the limit, before planning it', async () => {
    const res = await query(fragmentBomb(24));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors[0].message).toBe(
      `Operation too large: it selects ${2 ** 24} fields with its fragments expanded and aliases counted; ` +
        'the limit is 1000 field selections per operation',
    );
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  }, 10_000);

  it('refuses aliases by the thousand: spread in fragments within the token limit, or plain', async () => {
    const aliases = Array.from({ length: 50 }, (_, i) => `a${i}: allMids { coin }`).join(' ');
    const spreads = Array.from({ length: 50 }, () => '...A').join(' ');
    const spread = await query(`{ ${spreads} } fragment A on Query { ${aliases} }`);
    expect(spread.status).toBe(400);
    expect((await spread.json()).errors[0].message).toMatch(/selects 5000 fields .* the limit is 1000 /);
    // 5 000 aliases written out: longer than the token limit, which refuses them first (the subgraphs, without a
    // token limit, refuse them for their size: test/hardening.test.ts).
    const plain = Array.from({ length: 5000 }, (_, i) => `a${i}: allMids { coin }`).join(' ');
    const long = await query(`{ ${plain} }`);
    expect((await long.json()).errors[0].message).toMatch(/Token limit of 2000 exceeded/);
  });

  it('refuses a selection wider than the limit, and serves one within it', async () => {
    const wide = await query(`{ allMids { ${'coin mid '.repeat(600)} } }`);
    expect(wide.status).toBe(400);
    expect((await wide.json()).errors[0].message).toMatch(/selects 1201 fields .* the limit is 1000 /);
    // Within the limit, the operation goes on to the subgraph, which never answers: the timeout below answers.
    const within = await query(`{ allMids { ${'coin mid '.repeat(400)} } }`);
    expect((await within.json()).errors[0].message).toMatch(/^Operation timed out/);
  });
});

describe('the execution time of an operation', () => {
  it('ends a query whose subgraph does not answer with a 504 naming the limit', async () => {
    const res = await query('{ allMids { coin } }');
    expect(res.status).toBe(504);
    const body = await res.json();
    expect(body.errors[0]).toMatchObject({
      message: 'Operation timed out: it ran longer than 300 ms',
      extensions: { code: 'OPERATION_TIMEOUT' },
    });
  });
});

describe('request bodies', () => {
  it('refuses a body over 1 MiB with 413, declared or streamed', async () => {
    const big = JSON.stringify({ query: '{ allMids { coin } }', variables: { x: 'y'.repeat(2 * 1024 * 1024) } });
    const declared = await post(big);
    expect(declared.status).toBe(413);
    const tooLarge = errorBody('body_too_large', 'request body over 1048576 bytes (1 MiB)');
    expect(await declared.json()).toEqual(tooLarge);
    const chunk = new TextEncoder().encode('y'.repeat(512 * 1024));
    const streamed = await fetch(router.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"query":"{ allMids { coin } }","variables":{"x":"'));
          for (let i = 0; i < 4; i++) c.enqueue(chunk);
          c.enqueue(new TextEncoder().encode('"}}'));
          c.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual(tooLarge);
  });

  it('refuses JSON nested deeper than 64 levels with 400 before parsing it', async () => {
    const deep = `{"query":"{ allMids { coin } }","variables":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const res = await post(deep);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(errorBody('bad_input', 'request body: JSON nested deeper than 64 levels'));
    // Brackets in strings are text, not nesting.
    const inText = await post(JSON.stringify({ query: '{ allMids { coin } }', variables: { x: '['.repeat(5000) } }));
    expect(inText.status).toBe(504); // went on to the (silent) subgraph
  });
});

describe('request ids', () => {
  it("echoes a client's id of 1 to 128 letters, digits and . _ : -, and replaces any other", async () => {
    const sent = async (id: string) => (await post('{', { 'x-request-id': id })).headers.get('x-request-id');
    expect(await sent('client-7f3a:01.x_y')).toBe('client-7f3a:01.x_y');
    const made = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    expect(await sent('x'.repeat(8000))).toMatch(made);
    expect(await sent('x'.repeat(129))).toMatch(made);
    expect(await sent('a b')).toMatch(made);
    expect(await sent('<script>')).toMatch(made);
  });
});

describe('CORS', () => {
  it('allows credentials for a configured origin only; any other gets * without credentials', async () => {
    const from = async (origin: string, method = 'POST') => {
      const res = await fetch(router.url, {
        method,
        headers: {
          origin,
          'content-type': 'application/json',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type, authorization',
        },
        ...(method === 'POST' ? { body: '{' } : {}),
      });
      return {
        status: res.status,
        origin: res.headers.get('access-control-allow-origin'),
        credentials: res.headers.get('access-control-allow-credentials'),
      };
    };
    expect(await from(CREDITED)).toMatchObject({ origin: CREDITED, credentials: 'true' });
    expect(await from('https://evil.example')).toMatchObject({ origin: '*', credentials: null });
    expect(await from(CREDITED, 'OPTIONS')).toEqual({ status: 204, origin: CREDITED, credentials: 'true' });
    expect(await from('https://evil.example', 'OPTIONS')).toEqual({ status: 204, origin: '*', credentials: null });
    const none = await post('{');
    expect(none.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the router thread', () => {
  it('refuses the fragment bomb and still closes at once', async () => {
    const thread = openRouterThread();
    try {
      const url = await thread.listen({
        supergraphSdl: composeSupergraph([
          { name: 'markets', url: 'http://127.0.0.1:9/graphql', schema: marketsSchema },
        ]),
        port: 0,
      });
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: fragmentBomb(24) }),
      });
      expect(res.status).toBe(400);
    } finally {
      await thread.close();
    }
  }, 30_000);
});
