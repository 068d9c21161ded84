// Proxied /info types: relayed from the upstream node as they are, cached where the data allows. Each type's body
// is read first by its input definition (kit/input.ts), the fields the exchange takes for it (hyperliquid-wire.md
// §3): a malformed one is refused here with the 400 every type gives for the same field, where the node would answer
// a plain-text 422.
import type { TProperties } from '@sinclair/typebox';
import { FieldError } from '../platform/fields.ts';
import { UpstreamError } from '../platform/upstream.ts';
import type { InfoHandler } from './info.ts';
import type { Input } from './input.ts';
import type { JsonSchema } from './request-schema.ts';

/**
 * The body the node is sent: `type` and the fields `schema` documents, as sent (absent ones left out). The fields
 * clients add that the node does not read are dropped, so that they neither travel nor key the relay cache apart
 * (a unique pad per request would otherwise fill it).
 */
function documentedBody(body: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const fields = Object.keys((schema.properties ?? {}) as object);
  const out: Record<string, unknown> = { type: body.type };
  for (const field of fields) if (Object.hasOwn(body, field)) out[field] = body[field];
  return out;
}

/**
 * The node's answer to a body's fields (`definition`'s), as sent; `ttlMs` > 0 answers identical ones from a cache
 * that long. A node that still refuses the body (4xx) is a 400 `{"error"}` naming the body and quoting the node (a
 * type the node does not serve ends here too); a node failing (5xx) is 502.
 */
export function relay<P extends TProperties>(ttlMs: number, definition: Input<P>): InfoHandler {
  const schema = definition.body();
  return async (body, { upstream }) => {
    const sent = documentedBody(body, schema);
    const reply = ttlMs > 0 ? await upstream.cached(sent, ttlMs) : await upstream.post(sent);
    if (reply.status >= 500) throw new UpstreamError(`status ${reply.status}: ${reply.body.slice(0, 200)}`, true);
    if (reply.status >= 400) {
      throw new FieldError(`body: refused by the node (${reply.status}): ${reply.body.slice(0, 200)}`);
    }
    return { kind: 'relay', status: reply.status, contentType: reply.contentType, body: reply.body };
  };
}

/** Metadata that changes with a governance action or a deploy, not with trading: cached this long. */
export const METADATA_TTL_MS = 30_000;

/** A relayed answer: any JSON the node sends, described. */
export const nodeAnswer = (description: string): JsonSchema => ({
  description: `${description}, as the node answers it`,
});
