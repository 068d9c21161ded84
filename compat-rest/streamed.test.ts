// sendStreamed: how a streamed answer reaches the client when its writing fails before or after the first chunk.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendStreamed } from './app.ts';

type Write = (out: (chunk: Buffer) => void) => Promise<Buffer>;
const writers = new Map<string, Write>();
const logged: string[] = [];
const app = Fastify();
let url = '';

beforeAll(async () => {
  app.setErrorHandler((err: Error, _req, reply) => reply.code(500).send({ error: err.message }));
  app.get('/:name', (req, reply) =>
    sendStreamed(reply, writers.get((req.params as { name: string }).name) as Write, (l) => logged.push(l)),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(() => app.close());

writers.set('whole', async () => Buffer.from('[1,2]'));
writers.set('chunks', async (out) => {
  out(Buffer.from('[1,'));
  await new Promise((r) => setTimeout(r, 10));
  out(Buffer.from('2,'));
  return Buffer.from('3]');
});
writers.set('fails-first', async () => {
  throw new Error('storage unavailable');
});
writers.set('fails-later', async (out) => {
  out(Buffer.from('[1,'));
  await new Promise((r) => setTimeout(r, 10));
  throw new Error('connection lost');
});

describe('sendStreamed', () => {
  it('sends an answer that fits one chunk whole, with its length', async () => {
    const res = await fetch(`${url}/whole`);
    expect(res.headers.get('content-length')).toBe('5');
    expect(await res.json()).toEqual([1, 2]);
  });

  it('sends chunks as they come, chunked', async () => {
    const res = await fetch(`${url}/chunks`);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(await res.json()).toEqual([1, 2, 3]);
  });

  it('answers a failure before the first chunk as an error', async () => {
    const res = await fetch(`${url}/fails-first`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'storage unavailable' });
  });

  it('cuts the connection on a failure after the first chunk: the client sees a truncated answer, and it is logged', async () => {
    const res = await fetch(`${url}/fails-later`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(logged.at(-1)).toContain('connection lost');
    // The server goes on serving.
    expect(await (await fetch(`${url}/whole`)).json()).toEqual([1, 2]);
  });
});
