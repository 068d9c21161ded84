// /info types of the accounts domain written by hand (the others are its capabilities' /info doors,
// capabilities.ts): the exchange's own types in its exact shapes; historicalOrders unwrapped, with the paging
// headers in window mode. Per-user node state (open orders, clearinghouse states) is relayed from the node.

import { pagingHeaders } from '../../../kit/envelopes.ts';
import { type InfoEntry, type InfoHandler, json, readInfo, streamedJson } from '../../../kit/info.ts';
import { integerLiteral } from '../../../kit/json-source.ts';
import { proxied, relay } from '../../../kit/proxy.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import { address as checkedAddress } from '../../../platform/fields.ts';
import { CLEARINGHOUSE_STATES, HISTORICAL_ORDERS, ORDER_STATUS, USER_ON_DEX } from '../service/inputs.ts';
import { checkOrderCursor, orderRef } from '../service/orders.ts';
import { nodeUserTypes } from './node-types.ts';

type Body = Record<string, unknown>;

/** A schema with one more field (a spelling or a type the exchange's clients send besides the definition's). */
const withField = (schema: JsonSchema, name: string, field: JsonSchema): JsonSchema => ({
  ...schema,
  properties: { ...(schema.properties as object), [name]: field },
});

/**
 * clearinghouseState's body: the count of `users` is refused by the definition's rule (`users: must hold 1 to 50
 * addresses`), not by the body's schema, whose message would only say an array is expected.
 */
const statesSchema = (): JsonSchema => {
  const schema = CLEARINGHOUSE_STATES.body();
  const { minItems: _min, maxItems: _max, ...users } = (schema.properties as Record<string, JsonSchema>).users ?? {};
  return withField(schema, 'users', users);
};

/** historicalOrders' cursor (the X-Next-Cursor value, an oid) comes back as a string or as a number. */
const ordersBody = (body: Body): Body =>
  typeof body.cursor === 'number' ? { ...body, cursor: String(body.cursor) } : body;

/** orderStatus's order reference: an oid above 2^53 sent as a JSON number (rounded by JSON.parse) read exactly. */
function orderRefOf(body: Body) {
  const q = ORDER_STATUS.parse(body, 'info');
  const unsafe = typeof q.oid === 'number' && !Number.isSafeInteger(q.oid);
  return { user: q.user, ...orderRef(unsafe ? (integerLiteral(body, 'oid') ?? q.oid) : q.oid, q.cloid) };
}

/** clearinghouseState of one `user`, relayed with USER_ON_DEX's fields. */
const relayNow: InfoHandler = relay(0, USER_ON_DEX);

export const accountsInfo: Record<string, InfoEntry> = {
  openOrders: proxied(0, USER_ON_DEX, R.list(R.openOrder)),
  frontendOpenOrders: proxied(0, USER_ON_DEX, R.list(R.frontendOrder)),
  spotClearinghouseState: proxied(0, USER_ON_DEX, R.spotClearinghouseState),

  /** One `user` (relayed), or several `users` answered together in the order asked. */
  clearinghouseState: readInfo({
    schema: statesSchema(),
    read: (body) => CLEARINGHOUSE_STATES.parse(body, 'info'),
    async handler(q, services, body) {
      if (q.users === undefined) {
        checkedAddress(body, 'user');
        return relayNow(body, services);
      }
      const dex = q.dex ?? '';
      const states = await Promise.all(
        q.users.map((user) => services.upstream.json({ type: 'clearinghouseState', user, dex })),
      );
      return json(q.users.map((user, i) => ({ user, clearinghouseState: states[i] })));
    },
    /** With `user`: the node's state. With `users`: `[{user, clearinghouseState}]` in the order asked. */
    response: {
      anyOf: [R.clearinghouseState, R.list(R.record({ user: R.address, clearinghouseState: R.clearinghouseState }))],
    },
  }),

  historicalOrders: readInfo({
    schema: withField(HISTORICAL_ORDERS.body(), 'cursor', { type: ['string', 'integer', 'null'] }),
    // The cursor's bound (an oid within bigint) is the service's rule, checked before the call is charged too.
    read(body) {
      const q = HISTORICAL_ORDERS.parse(ordersBody(body), 'info');
      if (q.cursor !== undefined) checkOrderCursor(q.cursor);
      return q;
    },
    async handler(q, { accounts }) {
      const page = await accounts.historicalOrdersJson(q);
      const windowMode = q.startTime !== undefined || q.endTime !== undefined || q.cursor !== undefined;
      return streamedJson((out) => page.write(out), windowMode ? pagingHeaders(page) : undefined);
    },
    response: R.list(R.orderWithStatus),
  }),

  orderStatus: readInfo({
    schema: ORDER_STATUS.body(),
    read: orderRefOf,
    handler: async (ref, { accounts }) => json(await accounts.orderStatus(ref)),
    response: {
      anyOf: [
        R.record({ status: { const: 'order' }, order: R.orderWithStatus }),
        R.record({ status: { const: 'unknownOid' } }),
      ],
    },
  }),

  ...nodeUserTypes,
};
