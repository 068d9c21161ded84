// Proxied /info types: relayed from the upstream node as they are, cached where the data allows. Each type's body
// is checked first against what the exchange takes for it (hyperliquid-wire.md §3): a malformed one is refused here
// with a 400 naming the field, like every local type, where the node would answer a plain-text 422.
import { address, FieldError, intIn, optStr } from '../../platform/fields.ts';
import { UpstreamError } from '../../platform/upstream.ts';
import type { InfoHandler } from './types.ts';

type Body = Record<string, unknown>;

/** The fields a proxied type reads, checked (a FieldError names the field); other fields are left to the node. */
export type ProxiedBody = (body: Body) => void;

/** `spotMeta`, `perpDexs`, `maxMarketOrderNtls`: no fields. */
export const noFields: ProxiedBody = () => {};

/** `meta`: at most a `dex` (absent, null or a name; "" is the first perp dex). */
export const dexBody: ProxiedBody = (body) => {
  optStr(body, 'dex');
};

/** Per-user node state (`openOrders`, `spotClearinghouseState`, `leadingVaults`...): a `user` address, `dex?`. */
export const userBody: ProxiedBody = (body) => {
  address(body, 'user');
  optStr(body, 'dex');
};

/** `marginTable`: the table's integer `id` (a u32 on the exchange), `dex?`. */
export const marginTableBody: ProxiedBody = (body) => {
  intIn(body, 'id', 0, 2 ** 32 - 1);
  optStr(body, 'dex');
};

/**
 * A handler relaying the request body once `check` accepts it; `ttlMs` > 0 answers identical bodies from a cache
 * that long. A node that still refuses the body (4xx) is a 400 `{"error"}` quoting it; a node failing (5xx) is 502.
 */
export function proxied(ttlMs: number, check: ProxiedBody): InfoHandler {
  return async (body, { upstream }) => {
    check(body);
    const reply = ttlMs > 0 ? await upstream.cached(body, ttlMs) : await upstream.post(body);
    if (reply.status >= 500) throw new UpstreamError(`status ${reply.status}: ${reply.body.slice(0, 200)}`, true);
    if (reply.status >= 400) {
      throw new FieldError(`the node refused the request (${reply.status}): ${reply.body.slice(0, 200)}`);
    }
    return { kind: 'relay', status: reply.status, contentType: reply.contentType, body: reply.body };
  };
}
