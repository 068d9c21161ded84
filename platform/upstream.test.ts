// The node relay's failures: an unreachable node, told apart from a node that answered what the service cannot use.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Upstream, UpstreamError } from './upstream.ts';

let node: http.Server;
let url: string;
/** Requests the /big node answered. */
let asked = 0;

beforeAll(async () => {
  node = http.createServer((req, res) => {
    if (req.url === '/big') {
      asked++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'b'.repeat(100_000)}"`);
    } else if (req.url === '/broken') res.writeHead(500).end('boom');
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{not json');
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => node.close(r)));

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

describe('Upstream', () => {
  it('says the node was not reached when nothing answers', async () => {
    const spare = http.createServer();
    await new Promise<void>((r) => spare.listen(0, '127.0.0.1', r));
    const { port } = spare.address() as AddressInfo;
    await new Promise((r) => spare.close(r)); // nothing listens there now
    const closed = new Upstream(`http://127.0.0.1:${port}/info`, { timeoutMs: 500 });
    const err = await failure(closed.json({ type: 'meta' }));
    expect(err.reached).toBe(false);
    expect(err.message).toMatch(/^ECONNREFUSED/);
  });

  it('says the node was reached when it answers an error or something not JSON', async () => {
    const broken = await failure(new Upstream(`${url}/broken`).json({ type: 'meta' }));
    expect([broken.reached, broken.message]).toEqual([true, 'status 500: boom']);
    const garbled = await failure(new Upstream(`${url}/info`).json({ type: 'meta' }));
    expect([garbled.reached, garbled.message]).toEqual([true, 'invalid JSON in the answer']);
  });

  it('relays any answer as it is', async () => {
    expect(await new Upstream(`${url}/broken`).post({ type: 'meta' })).toMatchObject({ status: 500, body: 'boom' });
  });

  it('keeps its cache within its bound, the oldest answers going first, and answers the newest from it', async () => {
    const relay = new Upstream(`${url}/big`, { cacheMaxChars: 1_000_000 });
    for (let i = 0; i < 50; i++) await relay.cached({ type: 'meta', dex: `d${i}` }, 60_000);
    const { entries, chars } = relay.cacheSize();
    expect(chars).toBeLessThanOrEqual(1_000_000);
    expect(entries).toBe(9);
    const before = asked;
    await relay.cached({ type: 'meta', dex: 'd49' }, 60_000);
    expect(asked).toBe(before);
    await relay.cached({ type: 'meta', dex: 'd0' }, 60_000);
    expect(asked).toBe(before + 1);
  });

  it('keeps no answer larger than its bound', async () => {
    const relay = new Upstream(`${url}/big`, { cacheMaxChars: 50_000 });
    await relay.cached({ type: 'meta' }, 60_000);
    expect(relay.cacheSize()).toEqual({ entries: 0, chars: 0 });
  });
});
