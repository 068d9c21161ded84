// What a stack bound to every interface exposes: compat-rest and the router, behind the key rules of spec §5
// (a key is required even with none configured, so revoking the last one never opens them, unless ALLOW_ANONYMOUS
// says to serve without one while none exists); the subgraphs, which check no keys and apply none of the router's
// operation limits, only on loopback.
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { errorBody } from '../platform/error-codes.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { startStackWithoutNode } from './stack.ts';

/** An address of this machine other than loopback, if it has one. */
const outward = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

let db: TestDatabase;
let stack: Stack;

beforeAll(async () => {
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool, { host: '0.0.0.0' });
});
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

const port = (url: string) => Number(new URL(url).port);

/** Whether a TCP connection to host:port is accepted. */
function connects(host: string, p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(p, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('a stack bound to every interface', () => {
  it('requires a key on compat-rest and the router though none is configured', async () => {
    const info = await fetch(`http://127.0.0.1:${port(stack.urls.compat)}/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'allMids' }),
    });
    expect(info.status).toBe(401);
    expect(await info.json()).toEqual(errorBody('missing_key', 'missing api key'));
    const graphql = await fetch(`http://127.0.0.1:${port(stack.urls.router)}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ allMids { coin } }' }),
    });
    expect(graphql.status).toBe(401);
  });

  it('keeps the subgraphs on loopback', async () => {
    expect(new URL(stack.urls.markets).hostname).toBe('127.0.0.1');
    expect(new URL(stack.urls.accounts).hostname).toBe('127.0.0.1');
    expect(await connects('127.0.0.1', port(stack.urls.markets))).toBe(true);
  });

  it.skipIf(!outward)(
    'answers on an outward address for compat-rest and the router, never for a subgraph',
    async () => {
      const host = outward as string;
      expect(await connects(host, port(stack.urls.compat))).toBe(true);
      expect(await connects(host, port(stack.urls.router))).toBe(true);
      expect(await connects(host, port(stack.urls.markets))).toBe(false);
      expect(await connects(host, port(stack.urls.accounts))).toBe(false);
    },
  );

  it.skipIf(!outward)('serves /metrics to loopback peers only, on compat-rest and the router', async () => {
    for (const url of [stack.urls.compat, stack.urls.router.replace(/\/graphql$/, '')]) {
      expect((await fetch(`http://127.0.0.1:${port(url)}/metrics`)).status).toBe(200);
      const outside = await fetch(`http://${outward}:${port(url)}/metrics`);
      expect(outside.status).toBe(403);
      expect((await outside.json()).error).toMatch(/loopback/);
    }
  });

  it('with allowAnonymous (ALLOW_ANONYMOUS=1) serves without a key while none exists, and requires one after', async () => {
    const open = await startStackWithoutNode(db.pool, { host: '0.0.0.0', allowAnonymous: true });
    try {
      const allMids = (key?: string) =>
        fetch(`http://127.0.0.1:${port(open.urls.compat)}/info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
          body: JSON.stringify({ type: 'allMids' }),
        });
      expect((await allMids()).status).toBe(200);
      const { key } = await createKey(db.pool, { scope: 'data', credits: null, label: 'exposure' });
      open.auth.invalidate();
      const refused = await allMids();
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual(errorBody('missing_key', 'missing api key'));
      expect((await allMids(key)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
