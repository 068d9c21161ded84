// Single-subgraph pass-through (router/pass-through.ts): for every kind of query, the router answers the same with
// it as without it, and it answers from the subgraph's bytes exactly where the plan is one fetch from one subgraph.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, type GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsSchema } from '../domains/accounts/schema/index.ts';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { type FrozenTestStack, startFrozenStack } from '../test/stack.ts';
import { composeSupergraph } from './compose.ts';
import { passThrough } from './pass-through.ts';
import { startRouter } from './server.ts';

type Router = Awaited<ReturnType<typeof startRouter>>;

let stack: FrozenTestStack;
let on: Router;
let off: Router;
let trader: string;
let end: number;

beforeAll(async () => {
  // Frozen data (a loaded history, no ingest): both routers read the same state.
  stack = await startFrozenStack({ historyMs: 3_600_000 });
  const { rows } = await stack.db.pool.query<{ address: string; end: string }>(
    `SELECT address, max(time)::text AS end FROM accounts.fills GROUP BY address ORDER BY count(*) DESC LIMIT 1`,
  );
  trader = rows[0]?.address as string;
  end = Number(rows[0]?.end);
  const supergraphSdl = composeSupergraph([
    { name: 'markets', url: stack.urls.markets, schema: marketsSchema },
    { name: 'accounts', url: stack.urls.accounts, schema: accountsSchema },
  ]);
  const merging = { markets: true, accounts: false };
  on = await startRouter({ supergraphSdl, port: 0, deduplicateInflightRequests: merging });
  off = await startRouter({ supergraphSdl, port: 0, deduplicateInflightRequests: merging, passThrough: false });
}, 120_000);
afterAll(async () => {
  await on?.close();
  await off?.close();
  await stack?.close();
});

async function post(url: string, body: unknown, accept = 'application/graphql-response+json, application/json') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The same request through both routers: the answers, and whether the pass-through router used the subgraph's. */
async function both(body: unknown, accept?: string) {
  const before = on.passThrough.answered();
  const a = await post(on.url, body, accept);
  const passed = on.passThrough.answered() - before;
  const b = await post(off.url, body, accept);
  return { on: a, off: b, passed };
}

const FILLS = `query Fills($address: String!, $end: Timestamp) {
  user(address: $address) {
    address
    fills(first: 200, endTime: $end) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { coin side px sz time oid tid fee closedPnl dir crossed } }
    }
  }
}`;

describe('single-subgraph pass-through', () => {
  it("answers a user's fills with the accounts subgraph's bytes, the same answer as without it", async () => {
    const r = await both({ query: FILLS, variables: { address: trader, end } });
    expect(r.passed).toBe(1);
    expect(r.on.status).toBe(200);
    expect(JSON.parse(r.on.text).data.user.fills.edges).toHaveLength(200);
    expect(r.on.text).toBe(r.off.text);
    expect(r.on.type).toBe(r.off.type);
  });

  it('keeps aliases, fragments, __typename, directives and the chosen operation', async () => {
    const query = `
      fragment F on Fill { coin px __typename }
      query Other { allMids { coin } }
      query Mine($address: String!, $end: Timestamp, $withOrders: Boolean!) {
        who: user(address: $address) {
          __typename
          a: fills(first: 3, endTime: $end) { edges { node { ...F ... on Fill { sz } } } }
          b: fills(first: 2, endTime: $end) { edges { node { t: time } } }
          orders(first: 2) @include(if: $withOrders) { edges { node { status order { oid } } } }
        }
      }`;
    for (const withOrders of [true, false]) {
      const r = await both({ query, operationName: 'Mine', variables: { address: trader, end, withOrders } });
      expect(JSON.parse(r.on.text).errors).toBeUndefined();
      expect(r.on.text).toBe(r.off.text);
    }
  });

  it('answers a request with no Accept header as yoga would (any type)', async () => {
    const body = JSON.stringify({ query: FILLS, variables: { address: trader, end } });
    const bare = (url: string) =>
      new Promise<{ status?: number; type?: string; text: string }>((resolve, reject) => {
        const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode,
              type: res.headers['content-type'],
              text: Buffer.concat(chunks).toString(),
            }),
          );
        });
        req.on('error', reject);
        req.end(body);
      });
    const before = on.passThrough.answered();
    const [a, b] = [await bare(on.url), await bare(off.url)];
    expect(on.passThrough.answered() - before).toBe(1);
    expect(a).toEqual(b);
  });

  it('answers a GET the same way', async () => {
    const query = `{ user(address: "${trader}") { fills(first: 5, endTime: ${end}) { edges { node { tid px } } } } }`;
    const get = async (url: string) => {
      const res = await fetch(`${url}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json' } });
      return { status: res.status, text: await res.text() };
    };
    const before = on.passThrough.answered();
    const [a, b] = [await get(on.url), await get(off.url)];
    expect(on.passThrough.answered() - before).toBe(1);
    expect(JSON.parse(a.text).data.user.fills.edges).toHaveLength(5);
    expect(a).toEqual(b);
  });

  it('answers market data from the markets subgraph the same way', async () => {
    const query = `{ market(coin: "BTC") { coin book(nSigFigs: 3) { bids { px sz n } } trades(limit: 5) { px tid users { address } } }
      allMids { coin mid } }`;
    const r = await both({ query });
    expect(r.passed).toBe(1);
    expect(JSON.parse(r.on.text).data.market.trades).toHaveLength(5);
    expect(r.on.text).toBe(r.off.text);
  });

  it('leaves a query that crosses subgraphs to the planner', async () => {
    const query = `{ market(coin: "BTC") { trades(limit: 3) { tid users { address fills(first: 2, endTime: ${end}) { edges { node { tid } } } } } } }`;
    const r = await both({ query });
    expect(r.passed).toBe(0);
    expect(JSON.parse(r.on.text).data.market.trades).toHaveLength(3);
    expect(r.on.text).toBe(r.off.text);
  });

  it("passes the subgraph's own input errors through, with the status and media type it chose", async () => {
    const query = `{ user(address: "${trader}") { fills(first: 5000) { totalCount } } }`;
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const r = await both({ query }, accept);
      expect(r.passed).toBe(1);
      expect(r.on.status).toBe(r.off.status);
      expect(r.on.type).toBe(r.off.type);
      const [a, b] = [JSON.parse(r.on.text), JSON.parse(r.off.text)];
      expect(a.errors[0].message).toMatch(/first/);
      expect(a.errors[0].message).toBe(b.errors[0].message);
      expect(a.errors[0].path).toEqual(b.errors[0].path);
      expect(a.errors[0].extensions.code).toBe(b.errors[0].extensions.code);
      // What differs: the router names the subgraph in each error, and leaves out a `data` that is null.
      expect(b.errors[0].extensions.serviceName).toBe('accounts');
      expect(a.data ?? null).toEqual(b.data ?? null);
    }
  });

  it('keeps the router in charge of what happens before execution', async () => {
    // Invalid on the supergraph: refused by the router itself, never sent on.
    const invalid = await both({ query: '{ user(address: "0x1") { nope } }' });
    expect(invalid.passed).toBe(0);
    expect(invalid.on.text).toBe(invalid.off.text);
    // The subgraph's own federation fields are not in the supergraph.
    const internal = await both({ query: '{ _service { sdl } }' });
    expect(internal.passed).toBe(0);
    expect(JSON.parse(internal.on.text).errors[0].message).toMatch(/_service/);
    // Introspection is the router's.
    const types = await both({ query: '{ __schema { queryType { name } } }' });
    expect(types.passed).toBe(0);
    expect(types.on.text).toBe(types.off.text);
  });

  it('answers an SSE request the usual way', async () => {
    const r = await both({ query: FILLS, variables: { address: trader, end } }, 'text/event-stream');
    expect(r.passed).toBe(0);
    expect(r.on.type).toMatch(/text\/event-stream/);
    expect(r.on.text).toMatch(/event: next/);
  });

  it('leaves a document to the planner when the subgraph could not run all of it', async () => {
    const query = `query Mids { allMids { coin } } query Mine { user(address: "${trader}") { fills(first: 2, endTime: ${end}) { edges { node { tid } } } } }`;
    const r = await both({ query, operationName: 'Mine' });
    expect(r.passed).toBe(0);
    expect(JSON.parse(r.on.text).data.user.fills.edges).toHaveLength(2);
    expect(r.on.text).toBe(r.off.text);
  });

  it('masks what a subgraph answers when it is not a GraphQL answer', async () => {
    // A proxy or an overloaded server in front of the subgraph: JSON, but not GraphQL.
    const proxy = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'upstream overloaded', node: '10.0.0.7' }));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/graphql`;
    const supergraphSdl = composeSupergraph([{ name: 'markets', url, schema: marketsSchema }]);
    const a = await startRouter({ supergraphSdl, port: 0 });
    const b = await startRouter({ supergraphSdl, port: 0, passThrough: false });
    try {
      const query = '{ allMids { coin } }';
      const [x, y] = [await post(a.url, { query }), await post(b.url, { query })];
      expect(x.text).not.toMatch(/10\.0\.0\.7/);
      expect([x.status, JSON.parse(x.text)]).toEqual([y.status, JSON.parse(y.text)]);
      expect(a.passThrough.answered()).toBe(0);
    } finally {
      await a.close();
      await b.close();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('answers from the parsed reply when something after the fetch adds to the result', async () => {
    const supergraphSdl = composeSupergraph([
      { name: 'markets', url: stack.urls.markets, schema: marketsSchema },
      { name: 'accounts', url: stack.urls.accounts, schema: accountsSchema },
    ]);
    const bytes = passThrough({ supergraphSdl });
    const addExtensions: GatewayPlugin = {
      onExecutionResult: ({ result, setResult }) => setResult({ ...result, extensions: { added: true } }),
    };
    const gateway = createGatewayRuntime({
      supergraph: supergraphSdl,
      unifiedGraphHandler,
      logging: false,
      plugins: () => [bytes.plugin, addExtensions],
    });
    try {
      const body = { query: FILLS, variables: { address: trader, end } };
      const res = await gateway.fetch('http://router/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      const answer = await res.json();
      expect(answer.extensions).toEqual({ added: true });
      expect(answer.data).toEqual(JSON.parse((await post(off.url, body)).text).data);
      expect(answer.data.user.fills.edges).toHaveLength(200);
      expect(bytes.answered()).toBe(0);
    } finally {
      await gateway[Symbol.asyncDispose]();
      bytes.close();
    }
  });

  it('gives the usual error when the subgraph is down', async () => {
    const supergraphSdl = composeSupergraph([
      { name: 'markets', url: 'http://127.0.0.1:9/graphql', schema: marketsSchema },
    ]);
    const down = await startRouter({ supergraphSdl, port: 0 });
    const downOff = await startRouter({ supergraphSdl, port: 0, passThrough: false });
    try {
      const query = '{ allMids { coin } }';
      const [a, b] = [await post(down.url, { query }), await post(downOff.url, { query })];
      expect(a.status).toBe(b.status);
      expect(JSON.parse(a.text).errors).toEqual(JSON.parse(b.text).errors);
      expect(down.passThrough.answered()).toBe(0);
    } finally {
      await down.close();
      await downOff.close();
    }
  });
});

describe("the stack's router, answered by its own process's subgraphs without a socket (issue 43)", () => {
  /** The stack's router (in-process answers) against the router above that reaches the subgraphs over HTTP. */
  async function local(body: unknown, accept?: string) {
    const before = stack.routerAnsweredInProcess();
    const a = await post(stack.urls.router, body, accept);
    const inProcess = stack.routerAnsweredInProcess() - before;
    const b = await post(on.url, body, accept);
    return { local: a, http: b, inProcess };
  }

  it('gives the bytes, status and media type the HTTP hop gives, for fills and market data', async () => {
    const fills = await local({ query: FILLS, variables: { address: trader, end } });
    expect(fills.inProcess).toBe(1);
    expect(JSON.parse(fills.local.text).data.user.fills.edges).toHaveLength(200);
    expect(fills.local.text).toBe(fills.http.text);
    expect([fills.local.status, fills.local.type]).toEqual([fills.http.status, fills.http.type]);
    const market = await local({
      query: '{ market(coin: "BTC") { coin trades(limit: 5) { px tid } } allMids { coin } }',
    });
    expect(market.inProcess).toBe(1);
    expect(JSON.parse(market.local.text).data.market.trades).toHaveLength(5);
    expect(market.local.text).toBe(market.http.text);
  });

  it("gives the subgraph's input errors as the HTTP hop does, under either media type", async () => {
    const query = `{ user(address: "${trader}") { fills(first: 5000) { totalCount } } }`;
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const r = await local({ query }, accept);
      expect(r.inProcess).toBe(1);
      expect(JSON.parse(r.local.text).errors[0].message).toMatch(/^first: /);
      expect([r.local.status, r.local.type, r.local.text]).toEqual([r.http.status, r.http.type, r.http.text]);
    }
  });

  it('leaves a query that crosses subgraphs, and subscriptions over SSE, to HTTP and the planner', async () => {
    const query = `{ market(coin: "BTC") { trades(limit: 3) { tid users { address fills(first: 2, endTime: ${end}) { edges { node { tid } } } } } } }`;
    const r = await local({ query });
    expect(r.inProcess).toBe(0);
    expect(JSON.parse(r.local.text).data.market.trades).toHaveLength(3);
    expect(r.local.text).toBe(r.http.text);
    const sse = await local({ query: FILLS, variables: { address: trader, end } }, 'text/event-stream');
    expect(sse.inProcess).toBe(0);
    expect(sse.local.text).toMatch(/event: next/);
  });
});
