// The node's local `POST /info` endpoint (what `hl-node --serve-info` exposes on port 3001), answering from the
// simulator. Like a node, any body it cannot take — bad JSON, unknown type, wrong fields — gets 422 text/plain.
import Fastify from 'fastify';
import { InfoRequestError } from './info.ts';

export interface InfoSource {
  info(body: unknown): unknown;
}

export interface NodeInfoServer {
  url: string;
  close(): Promise<void>;
}

const REJECTION = 'Failed to deserialize the JSON body into the target type';

export async function startNodeInfoServer(
  source: InfoSource,
  opts: { port: number; host?: string },
): Promise<NodeInfoServer> {
  const host = opts.host ?? '127.0.0.1';
  const app = Fastify({ logger: false, bodyLimit: 1 << 20 });
  // Parse bodies ourselves so every malformed body gets the node's 422 rather than Fastify's 400/415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.post('/info', async (req, reply) => {
    reply.header('access-control-allow-origin', '*');
    let body: unknown;
    try {
      body = JSON.parse(typeof req.body === 'string' ? req.body : '');
    } catch {
      return reply.code(422).type('text/plain; charset=utf-8').send(REJECTION);
    }
    try {
      const answer = source.info(body);
      return reply.type('application/json').send(JSON.stringify(answer));
    } catch (err) {
      if (err instanceof InfoRequestError) return reply.code(422).type('text/plain; charset=utf-8').send(err.message);
      throw err;
    }
  });

  await app.listen({ port: opts.port, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    url: `http://${host}:${port}`,
    close: () => app.close(),
  };
}
