// A bare HTTP baseline: a fastify route that answers each POSTed `type` with bytes fixed in advance (the answers the
// service gave), so a figure can be read against the cost of HTTP and fastify alone for the same bytes.
import Fastify from 'fastify';
import { type LatencyResult, sequential } from './http-load.ts';

export interface BareRoute {
  url: string;
  close(): Promise<void>;
}

/** Serves POST /info: the body's `type` picks its answer from `answers` (`{}` for an unknown type). */
export async function startBareRoute(answers: ReadonlyMap<string, string>): Promise<BareRoute> {
  // Encoded once: what is left per request is HTTP and fastify.
  const bytes = new Map([...answers].map(([type, text]) => [type, Buffer.from(text)]));
  const empty = Buffer.from('{}');
  const bare = Fastify({ logger: false, bodyLimit: 1 << 20 });
  bare.post('/info', async (req, reply) => {
    const type = (req.body as { type?: string } | null)?.type ?? '';
    return reply.type('application/json').send(bytes.get(type) ?? empty);
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const address = bare.server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/info`,
    close: () => bare.close(),
  };
}

/**
 * HTTP alone for an answer: the sequential latency of POSTing `body` to a bare route that answers it with `answer`
 * (the bytes the service gave), from the load worker as the service's own figures are.
 */
export async function bareRouteLatency(body: { type: string }, answer: string): Promise<LatencyResult> {
  const bare = await startBareRoute(new Map([[body.type, answer]]));
  try {
    const r = await sequential({ url: bare.url, body: JSON.stringify(body) }, { warmup: 5, requests: 100 });
    if (r.errors) throw new Error(`bare route: ${r.firstError}`);
    return r;
  } finally {
    await bare.close();
  }
}
