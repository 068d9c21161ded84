// The router's thread on its own: it reports a failed start with its reason, serves, and closes.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { composeSupergraph } from './compose.ts';
import { openRouterThread } from './thread.ts';

const supergraphSdl = composeSupergraph([
  { name: 'markets', url: 'http://127.0.0.1:9/graphql', schema: marketsSchema },
]);

describe('openRouterThread', () => {
  it('rejects with the reason when the router cannot listen', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const router = openRouterThread();
      await expect(router.listen({ supergraphSdl, port })).rejects.toThrow(/EADDRINUSE/);
      await router.close();
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });

  it('serves from its thread, answers stats, and closes', async () => {
    const router = openRouterThread();
    try {
      const url = await router.listen({ supergraphSdl, port: 0 });
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
      expect(await router.subscriptions()).toEqual({ streams: 0, subscribers: 0 });
      await router.close();
      await expect(fetch(url, { method: 'POST' })).rejects.toThrow();
    } finally {
      await router.close();
    }
  });
});
