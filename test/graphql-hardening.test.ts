// The bounds of issue 29 across the stack: a normal query still served through the router, the subgraphs' own
// bounds on an operation's size and on bodies (they are reached directly on loopback), graphql-ws's cap on the
// subscriptions of one connection, and a node that hangs named in GraphQL errors, not masked. The router's own
// bounds, without subgraphs, are in router/limits.test.ts.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../platform/error-codes.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { fragmentBomb, graphqlWsClient, postGraphql } from './graphql.ts';
import { startStackWithoutNode } from './stack.ts';

let db: TestDatabase;
let stack: Stack;
/** A node /info that accepts connections and never answers. */
let node: net.Server;
const nodeSockets = new Set<net.Socket>();
const NODE_TIMEOUT_MS = 500;

beforeAll(async () => {
  node = net.createServer((socket) => nodeSockets.add(socket));
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const { port } = node.address() as net.AddressInfo;
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool, {
    upstreamInfoUrl: `http://127.0.0.1:${port}/info`,
    upstreamTimeoutMs: NODE_TIMEOUT_MS,
  });
});
afterAll(async () => {
  for (const socket of nodeSockets) socket.destroy();
  await stack?.close();
  await db?.drop();
  await new Promise((r) => node?.close(r));
});

describe('operations', () => {
  it('still serves a normal query through the router', async () => {
    const { status, body } = await postGraphql(stack.urls.router, '{ allMids { coin mid } dexes { name } }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(Array.isArray(body.data.allMids)).toBe(true);
  });

  it('refuses the fragment bomb and 5 000 aliases at a subgraph too, naming its limit', async () => {
    const bomb = await postGraphql(stack.urls.markets, fragmentBomb(24));
    expect(bomb.status).toBe(400);
    expect(bomb.body.errors?.[0]?.message).toMatch(/selects 16777216 fields .* the limit is 2000 field selections/);
    const aliases = Array.from({ length: 5000 }, (_, i) => `a${i}: allMids { coin }`).join(' ');
    const wide = await postGraphql(stack.urls.markets, `{ ${aliases} }`);
    expect(wide.status).toBe(400);
    expect(wide.body.errors?.[0]?.message).toMatch(/selects 10000 fields .* the limit is 2000 field selections/);
  }, 10_000);

  it('refuses bodies over 1 MiB and JSON deeper than 64 levels at a subgraph too', async () => {
    const post = (body: string) =>
      fetch(stack.urls.markets, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const big = await post(JSON.stringify({ query: '{ allMids { coin } }', variables: { x: 'y'.repeat(1 << 21) } }));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual(errorBody('body_too_large', 'request body over 1048576 bytes (1 MiB)'));
    const deep = await post(
      `{"query":"{ allMids { coin } }","variables":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    );
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual(errorBody('bad_input', 'request body: JSON nested deeper than 64 levels'));
  });
});

describe('graphql-ws at the router', () => {
  it('holds 1 000 subscriptions on one connection and refuses the 1 001st, naming the cap', async () => {
    const client = graphqlWsClient(stack.urls.router);
    const errors: unknown[] = [];
    const ends: (() => void)[] = [];
    try {
      for (let i = 0; i < 1000; i++) {
        ends.push(
          client.subscribe(
            { query: 'subscription { allMids { coin } }' },
            { next: () => {}, error: (e) => errors.push(e), complete: () => {} },
          ),
        );
      }
      const refused = await new Promise<unknown>((resolve) => {
        ends.push(
          client.subscribe(
            { query: 'subscription { allMids { coin } }' },
            { next: () => {}, error: resolve, complete: () => resolve('completed') },
          ),
        );
      });
      expect(JSON.stringify(refused)).toContain('Too many subscriptions: at most 1000 per connection');
      // Its code: the GraphQL form of `too_many_subscriptions` (platform/error-codes.ts).
      expect(JSON.stringify(refused)).toContain('"code":"TOO_MANY_SUBSCRIPTIONS"');
      expect(errors).toEqual([]);
      // One ended, another fits.
      ends[0]?.();
      const again = await new Promise<unknown>((resolve) => {
        ends.push(
          client.subscribe(
            { query: '{ dexes { name } }' },
            { next: (v) => resolve(v), error: resolve, complete: () => {} },
          ),
        );
      });
      expect(again).toMatchObject({ data: { dexes: expect.any(Array) } });
    } finally {
      for (const end of ends) end();
      await client.dispose();
    }
  }, 60_000);
});

describe('a node that hangs', () => {
  it("names the node's failure in a relayed field's GraphQL error instead of masking it", async () => {
    // backstopHealth reads the node's list of HIP-3 dexes (perpDexs).
    for (const url of [stack.urls.evm, stack.urls.router]) {
      const { body } = await postGraphql(url, '{ backstopHealth { dex backstopAddress } }');
      expect(body.errors?.[0]).toMatchObject({
        message: `Upstream unreachable: no answer within ${NODE_TIMEOUT_MS} ms`,
        extensions: { code: 'UPSTREAM_ERROR' },
      });
    }
  });
});
