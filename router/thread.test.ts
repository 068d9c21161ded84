// The router's thread on its own: it reports a failed start with its reason, serves, closes, and asks the subgraphs
// of its own process without a socket (falling back to HTTP where they do not answer).
import { createServer } from 'node:http';
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

  it("sends a query whole to its process's subgraph as a message, and over HTTP where that one does not answer", async () => {
    // A stand-in subgraph over HTTP, and the same subgraph's in-process answer: each names where it answered.
    let httpRequests = 0;
    const overHttp = '{"data":{"allMids":[{"coin":"HTTP","mid":"1"}]}}';
    const http = createServer((req, res) => {
      httpRequests++;
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(overHttp));
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const { port } = http.address() as net.AddressInfo;
    const sdl = composeSupergraph([
      { name: 'markets', url: `http://127.0.0.1:${port}/graphql`, schema: marketsSchema },
    ]);
    const inProcess = '{"data":{"allMids":[{"coin":"LOCAL","mid":"2"}]}}';
    let mode: 'answer' | 'fail' | 'none' = 'answer';
    const asked: { body: string; accept: string }[] = [];
    const router = openRouterThread();
    try {
      const url = await router.listen(
        { supergraphSdl: sdl, port: 0 },
        {
          markets: (request) => {
            asked.push({ body: request.body, accept: request.accept });
            if (mode === 'none') return null;
            if (mode === 'fail') return Promise.reject(new Error('the subgraph failed here'));
            const body = new TextEncoder().encode(inProcess);
            return Promise.resolve({ status: 200, contentType: 'application/json; charset=utf-8', body });
          },
        },
      );
      const query = (name: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          // A different operation each time: identical requests in flight would share one answer.
          body: JSON.stringify({ query: `query ${name} { allMids { coin mid } }` }),
        }).then(async (r) => ({ type: r.headers.get('content-type'), text: await r.text() }));

      // Answered in process: the in-process answer's bytes and media type, nothing over HTTP.
      expect(await query('A')).toEqual({ type: 'application/json; charset=utf-8', text: inProcess });
      expect(router.answeredInProcess()).toBe(1);
      expect(httpRequests).toBe(0);
      expect(JSON.parse(asked[0]?.body ?? '{}')).toEqual({
        // The document as the router parsed it; no operation name where the client sent none.
        query: 'query A {\n  allMids {\n    coin\n    mid\n  }\n}',
      });
      expect(asked[0]?.accept).toBe('application/json');

      // Failed, or not answered here (tracing): the router's usual executor over HTTP answers.
      for (const [i, m] of (['fail', 'none'] as const).entries()) {
        mode = m;
        const r = await query(m === 'fail' ? 'B' : 'C');
        expect(JSON.parse(r.text).data.allMids).toEqual([{ coin: 'HTTP', mid: '1' }]);
        expect(httpRequests).toBe(i + 1);
      }
      expect(router.answeredInProcess()).toBe(1);
      expect(asked).toHaveLength(3);
    } finally {
      await router.close();
      await new Promise((r) => http.close(r));
    }
  });
});
