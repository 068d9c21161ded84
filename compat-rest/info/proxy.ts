// Proxied /info types: relayed from the upstream node as they are, cached where the data allows.
import type { InfoHandler } from './types.ts';

/** A handler relaying the request body; `ttlMs` > 0 answers identical bodies from a cache that long. */
export function proxied(ttlMs: number): InfoHandler {
  return async (body, { upstream }) => {
    const reply = ttlMs > 0 ? await upstream.cached(body, ttlMs) : await upstream.post(body);
    return { kind: 'relay', status: reply.status, contentType: reply.contentType, body: reply.body };
  };
}
