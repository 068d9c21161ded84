// Proxied /info types: relayed from the upstream node as they are, cached where the data allows. Each type's body
// is checked first against what the exchange takes for it (hyperliquid-wire.md §3), by its schema: a malformed
// one is refused here with a 400 naming the field, like every local type, where the node would answer a plain-text
// 422.
import { FieldError } from '../platform/fields.ts';
import { UpstreamError } from '../platform/upstream.ts';
import type { InfoEntry, InfoHandler } from './info.ts';
import { address, dex, type JsonSchema, object } from './request-schema.ts';

/** `spotMeta`, `perpDexs`, `maxMarketOrderNtls`: no fields. */
export const noFields = object({});

/** `meta`: at most a `dex` (absent, null or a name; "" is the first perp dex). */
export const dexBody = object(dex);

/** Per-user node state (`openOrders`, `spotClearinghouseState`, `leadingVaults`...): a `user` address, `dex?`. */
export const userBody = object({ user: address, ...dex }, ['user']);

/** `marginTable`: the table's integer `id` (a u32 on the exchange), `dex?`. */
export const marginTableBody = object({ id: { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 }, ...dex }, ['id']);

/**
 * The body the node is sent: `type` and the fields `schema` documents, as sent (absent ones left out). The fields
 * clients add that the node does not read are dropped, so that they neither travel nor key the relay cache apart
 * (a unique pad per request would otherwise fill it).
 */
export function documentedBody(body: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const fields = Object.keys((schema.properties ?? {}) as object);
  const out: Record<string, unknown> = { type: body.type };
  for (const field of fields) if (Object.hasOwn(body, field)) out[field] = body[field];
  return out;
}

/**
 * The node's answer to a body's documented fields (`schema`'s); `ttlMs` > 0 answers identical ones from a cache
 * that long. A node that still refuses the body (4xx) is a 400 `{"error"}` naming the body and quoting the node (a
 * type the node does not serve ends here too); a node failing (5xx) is 502.
 */
export function relay(ttlMs: number, schema: JsonSchema): InfoHandler {
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

/** A type relayed to the node once its body matches `schema` (relay's `ttlMs`); `response` is the node's shape. */
export const proxied = (ttlMs: number, schema: JsonSchema, response: JsonSchema): InfoEntry => ({
  schema,
  handler: relay(ttlMs, schema),
  response,
});

/** Metadata that changes with a governance action or a deploy, not with trading: cached this long. */
export const METADATA_TTL_MS = 30_000;

/** A relayed answer: any JSON the node sends, described. */
export const nodeAnswer = (description: string): JsonSchema => ({
  description: `${description}, as the node answers it`,
});

/** One `user` address and nothing else (the exchange's per-user types). */
const userOnly = object({ user: address }, ['user']);

/** A user type relayed uncached (a user's state changes with each of their actions). */
export const ofUser = (description: string): InfoEntry => proxied(0, userOnly, nodeAnswer(description));

/** A type without fields, relayed (cached `ttlMs` when its data allows). */
export const global = (description: string, ttlMs = 0): InfoEntry => proxied(ttlMs, noFields, nodeAnswer(description));
