// /info types of the accounts domain. The exchange's own types keep its exact shapes; the indexed-history types
// (historicalOrders, userFunding, accountFunding, userNonFundingLedgerUpdates) are unwrapped; the compact fill
// rows (fills, recentFills, allFills) use the result envelope with the paging headers X-Has-More, X-Next-Cursor and
// (with a user) X-Total-Count. Per-user node state (open orders, clearinghouse states) is relayed from the node.

import { pagingHeaders, resultEnvelope } from '../../../kit/envelopes.ts';
import {
  type CompatServices,
  type InfoEntry,
  type InfoHandler,
  json,
  readInfo,
  streamedJson,
} from '../../../kit/info.ts';
import type { Input, InputOf } from '../../../kit/input.ts';
import { integerLiteral } from '../../../kit/json-source.ts';
import { proxied, relay } from '../../../kit/proxy.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import { address as checkedAddress } from '../../../platform/fields.ts';
import {
  ALL_FILLS,
  CLEARINGHOUSE_STATES,
  checkOrderCursor,
  compactFillSchema,
  FILL_ROWS,
  FUNDING_PAGE,
  HISTORICAL_ORDERS,
  type HistoryPage,
  LEDGER_PAGE,
  ORDER_STATUS,
  orderRef,
  TWAP_SLICE_FILLS,
  TWAP_SLICE_FILLS_BY_TIME,
  toTwapHistoryItem,
  USER,
  USER_FILLS,
  USER_FILLS_BY_TIME,
  USER_ON_DEX,
  wireFillSchema,
} from '../service/index.ts';
import { nodeUserTypes } from './node-types.ts';

type Body = Record<string, unknown>;

/** A schema with one more field (a spelling or a type the exchange's clients send besides the definition's). */
const withField = (schema: JsonSchema, name: string, field: JsonSchema): JsonSchema => ({
  ...schema,
  properties: { ...(schema.properties as object), [name]: field },
});

/**
 * A compact-fills body as its definition reads it: the path endpoints' spelling `include_order_type` (spec §2.3) is
 * taken beside the camelCase of the /info bodies.
 */
const fillRowsBody = (body: Body): Body => ({
  ...body,
  includeOrderType: body.includeOrderType ?? body.include_order_type,
});
const fillRowsSchema = (definition: Input<typeof FILL_ROWS.fields | typeof ALL_FILLS.fields>) =>
  withField(definition.body(), 'include_order_type', { type: ['boolean', 'null'] });

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

const compactFillsAnswer = R.resultOf(R.list(compactFillSchema));

/** `fills` (oldest first by default) and `recentFills` (newest first): compact rows of spec §2.3. */
function compactFills(defaultOrder: 'asc' | 'desc'): InfoEntry {
  return readInfo({
    schema: fillRowsSchema(FILL_ROWS),
    read: (body) => FILL_ROWS.parse(fillRowsBody(body), 'info'),
    async handler(q, { accounts }) {
      const page = await accounts.fillRows({ ...q, order: q.order ?? defaultOrder });
      // Always paged: without the headers a caller could not tell that the default 100 rows were not all.
      return json(resultEnvelope(page.rows), pagingHeaders(page));
    },
    response: compactFillsAnswer,
  });
}

/**
 * A page of a user's history, unwrapped as the exchange answers it (a window oldest first, else the newest first: the
 * service's rule), with X-Has-More and X-Next-Cursor; `limit` and `cursor` are this service's additions.
 */
function historyType(
  definition: typeof FUNDING_PAGE,
  page: (q: InputOf<typeof FUNDING_PAGE>, services: CompatServices) => Promise<HistoryPage<unknown>>,
  response: JsonSchema,
): InfoEntry {
  return readInfo({
    schema: definition.body(),
    read: (body) => definition.parse(body, 'info'),
    async handler(q, services) {
      const p = await page(q, services);
      return json(p.rows, pagingHeaders(p));
    },
    response,
  });
}

/** userFunding and accountFunding: the same payments. */
const funding = historyType(FUNDING_PAGE, (q, { accounts }) => accounts.userFunding(q), R.list(R.fundingPayment));

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

  userFills: readInfo({
    // The window is MCP's (accounts_user_fills); /info has userFillsByTime, and takes a client's endTime unread.
    schema: USER_FILLS.body(['startTime', 'endTime']),
    read: (body) => USER_FILLS.parse({ user: body.user, aggregateByTime: body.aggregateByTime }, 'info'),
    handler: async (q, { accounts }) => streamedJson((out) => accounts.userFillsJson(q, out)),
    response: R.list(wireFillSchema),
  }),

  userFillsByTime: readInfo({
    schema: USER_FILLS_BY_TIME.body(),
    read: (body) => USER_FILLS_BY_TIME.parse(body, 'info'),
    handler: async (q, { accounts }) => streamedJson((out) => accounts.userFillsJson(q, out)),
    response: R.list(wireFillSchema),
  }),

  fills: compactFills('asc'),
  recentFills: compactFills('desc'),

  allFills: readInfo({
    schema: fillRowsSchema(ALL_FILLS),
    read: (body) => ALL_FILLS.parse(fillRowsBody(body), 'info'),
    async handler(q, { accounts }) {
      const page = await accounts.allFills({ ...q, order: q.order ?? 'asc' });
      return json(resultEnvelope(page.rows), pagingHeaders(page));
    },
    response: compactFillsAnswer,
  }),

  userTwapSliceFills: readInfo({
    schema: TWAP_SLICE_FILLS.body(),
    read: (body) => TWAP_SLICE_FILLS.parse(body, 'info'),
    handler: async (q, { accounts }) => json(await accounts.twapSliceFills(q)),
    response: R.list(R.record({ fill: wireFillSchema, twapId: R.int })),
  }),

  /** userTwapSliceFills of a window (`startTime` required, as the exchange has it), from the same index. */
  userTwapSliceFillsByTime: readInfo({
    schema: TWAP_SLICE_FILLS_BY_TIME.body(),
    read: (body) => TWAP_SLICE_FILLS_BY_TIME.parse(body, 'info'),
    handler: async (q, { accounts }) => json(await accounts.twapSliceFills(q)),
    response: R.list(R.record({ fill: wireFillSchema, twapId: R.int })),
  }),

  /** The user's TWAP status changes from the index, oldest first; `time` in seconds as the exchange writes it. */
  twapHistory: readInfo({
    schema: USER.body(),
    read: (body) => USER.parse(body, 'info'),
    handler: async ({ user }, { accounts }) => json((await accounts.twapHistory(user)).map(toTwapHistoryItem)),
    response: R.list(R.twapHistoryItem),
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

  userFunding: funding,
  accountFunding: funding,

  userNonFundingLedgerUpdates: historyType(
    LEDGER_PAGE,
    (q, { accounts }) => accounts.ledgerUpdates(q),
    R.list(R.ledgerUpdate),
  ),

  borrowLendUserState: readInfo({
    schema: USER.body(),
    read: (body) => USER.parse(body, 'info'),
    handler: async ({ user }, { accounts }) => json(await accounts.borrowLendUserState(user)),
    response: R.record({
      tokenToState: R.list(
        R.tuple(
          R.int,
          R.record({
            borrow: R.record({ basis: R.decimal, value: R.decimal }),
            supply: R.record({ basis: R.decimal, value: R.decimal }),
          }),
        ),
      ),
      health: { enum: ['healthy', 'atRisk', 'marketLiquidatable', 'backstopLiquidatable'] },
      healthFactor: R.orNull(R.decimal),
    }),
  }),

  ...nodeUserTypes,
};
