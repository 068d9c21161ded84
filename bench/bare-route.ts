// A bare HTTP baseline: a fastify route that answers each POSTed `type` with bytes fixed in advance (the answers the
// service gave), so a figure can be read against the cost of HTTP and fastify alone for the same bytes.
import Fastify from 'fastify';

export interface BareRoute {
  url: string;
  close(): Promise<void>;
}

/** Serves POST /info: the body's `type` picks its answer from `answers` (`{}` for an unknown type). */
export async function startBareRoute(answers: ReadonlyMap<string, string>): Promise<BareRoute> {
  const bare = Fastify({ logger: false, bodyLimit: 1 << 20 });
  bare.post('/info', async (req, reply) => {
    const type = (req.body as { type?: string } | null)?.type ?? '';
    return reply.type('application/json').send(answers.get(type) ?? '{}');
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  const address = bare.server.address();
  return {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/info`,
    close: () => bare.close(),
  };
}
