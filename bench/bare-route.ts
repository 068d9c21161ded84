// A bare HTTP baseline: a fastify route that answers each POSTed `type` with bytes fixed in advance (the answers the
// service gave), so a figure can be read against the cost of HTTP and fastify alone for the same bytes.
import Fastify from 'fastify';
import { type LatencyResult, sequential } from './http-load.ts';

export interface BareRoute {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves POST /info: the body's `type` picks its answer from `answers` (`{}` for an unknown type). With `before`,
 * each request first awaits it (e.g. the SQL behind the answer), then sends the same bytes.
 */
export async function startBareRoute(
  answers: ReadonlyMap<string, string>,
  before?: () => Promise<unknown>,
): Promise<BareRoute> {
  // Encoded once: what is left per request is HTTP and fastify (and `before`).
  const bytes = new Map([...answers].map(([type, text]) => [type, Buffer.from(text)]));
  const empty = Buffer.from('{}');
  const bare = Fastify({ logger: false, bodyLimit: 1 << 20 });
  bare.post('/info', async (req, reply) => {
    const type = (req.body as { type?: string } | null)?.type ?? '';
    if (before) await before();
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
 * (the bytes the service gave), from the load worker as the service's own figures are. With `before` (the SQL
 * behind the answer), the floor of any implementation: its statements, then its bytes over HTTP. That is more than
 * the two measured apart: on this VM an answer sent after the connection sat idle for a few ms (while the SQL ran)
 * reaches the client ~3 ms slower than one sent at once (measured with a plain sleep in place of the SQL).
 */
export async function bareRouteLatency(
  body: { type: string },
  answer: string,
  before?: () => Promise<unknown>,
): Promise<LatencyResult> {
  const bare = await startBareRoute(new Map([[body.type, answer]]), before);
  try {
    // A fresh load worker runs cold for its first requests: 20 untimed ones.
    const r = await sequential({ url: bare.url, body: JSON.stringify(body) }, { warmup: 20, requests: 100 });
    if (r.errors) throw new Error(`bare route: ${r.firstError}`);
    return r;
  } finally {
    await bare.close();
  }
}

const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;

/**
 * The floors under an answer's "x the SQL" target, as a note: HTTP alone for the answer's bytes, and the SQL then
 * those bytes from a bare route (see bareRouteLatency), beside the SQL's own p50.
 */
export async function floorNote(
  body: { type: string },
  answer: string,
  sql: () => Promise<unknown>,
  sqlP50: number,
): Promise<string> {
  const http = await bareRouteLatency(body, answer);
  const floor = await bareRouteLatency(body, answer, sql);
  return (
    `HTTP alone for the same ${Math.round(Buffer.byteLength(answer) / 1000)} kB from a bare route p50 ` +
    `${ms(http.p50Ms)}, p99 ${ms(http.p99Ms)}; the SQL then those bytes from a bare route (the floor of any ` +
    `implementation) p50 ${ms(floor.p50Ms)} = ${(floor.p50Ms / sqlP50).toFixed(2)}x the SQL, p99 ${ms(floor.p99Ms)}`
  );
}
