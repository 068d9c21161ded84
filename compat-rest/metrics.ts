// compat-rest's request metrics and GET /metrics (platform/metrics.ts): every request counted and timed by its
// route pattern (not its URL: one series per route), POST /info also by its `type`. /metrics answers loopback
// peers only, with or without a key: Prometheus scrapes it on the machine (or through a proxy that adds its rule).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../kit/envelopes.ts';
import { logger } from '../platform/log.ts';
import { httpDuration, httpRequests, infoDuration, infoRequests, isLoopback, registry } from '../platform/metrics.ts';
import { INFO_TYPES } from './info/index.ts';

export const METRICS_PATH = '/metrics';

/** /metrics needs no key (its own rule is the peer's address). */
export const isMetricsRequest = (path: string) => path === METRICS_PATH;

/** A body's /info type as a label: a known type, or "invalid" (labels must not take what a client makes up). */
function infoType(body: unknown): string {
  const type = (body as { type?: unknown } | null)?.type;
  return typeof type === 'string' && Object.hasOwn(INFO_TYPES, type) ? type : 'invalid';
}

export function registerMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const route = req.routeOptions.url ?? 'unmatched';
    const seconds = reply.elapsedTime / 1000;
    const status = String(reply.statusCode);
    // Checked first: the line's object is not made for every request at the default level.
    if (logger.isLevelEnabled('debug')) {
      req.log.debug({ method: req.method, url: req.url, status: reply.statusCode, ms: reply.elapsedTime }, 'request');
    }
    httpRequests.inc({ route, method: req.method, status });
    httpDuration.observe({ route, method: req.method }, seconds);
    if (route === '/info' && req.method === 'POST') {
      const type = infoType(req.body);
      infoRequests.inc({ type, status });
      infoDuration.observe({ type }, seconds);
    }
    done();
  });

  app.get(METRICS_PATH, { schema: { hide: true } }, async (req, reply) => {
    if (!isLoopback(req.socket.remoteAddress))
      throw new HttpError('forbidden', 'metrics: served to loopback peers only');
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
}
