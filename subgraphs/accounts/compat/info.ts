// /info types of the accounts domain. The exchange's own types keep its exact shapes; the indexed-history types
// (historicalOrders, userFunding, accountFunding, userNonFundingLedgerUpdates) are unwrapped; the compact fill
// rows (fills, recentFills, allFills) use the result envelope with the paging headers X-Has-More, X-Next-Cursor and
// (with a user) X-Total-Count. Per-user node state (open orders, clearinghouse states) is relayed from the node.

import { pagingHeaders, resultEnvelope } from '../../../kit/envelopes.ts';
import { type CompatServices, type InfoEntry, type InfoHandler, json, streamedJson } from '../../../kit/info.ts';
import { integerLiteral } from '../../../kit/json-source.ts';
import { proxied, relay, userBody } from '../../../kit/proxy.ts';
import {
  address,
  arrayOf,
  dex,
  given,
  intIn,
  type JsonSchema,
  object,
  optAddress,
  optBool,
  optOneOf,
  optString,
  timeMs,
  timeWindow,
  windowOf,
} from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import { address as checkedAddress, FieldError } from '../../../platform/fields.ts';
import {
  checkOrderCursor,
  HISTORICAL_ORDERS_MAX_LIMIT,
  type HistoryPage,
  type HistoryPageQuery,
  MAX_FILL_ROWS,
  MAX_HISTORY_PAGE,
  orderRef,
  parseFillCursor,
  toTwapHistoryItem,
} from '../service/index.ts';
import { nodeUserTypes } from './node-types.ts';

type Body = Record<string, unknown>;

/** Addresses come in any case; the API prints them lowercase. */
const lower = (v: unknown): string => (v as string).toLowerCase();

/** A user's history in a window: `user`, `startTime?`, `endTime?` (and `extra` fields), `required` sent. */
const userWindow = (extra: Record<string, JsonSchema> = {}, required: string[] = []): JsonSchema =>
  object({ user: address, ...timeWindow, ...extra }, ['user', ...required]);

/** The filters and paging of a compact-fills request (spec §2.3), but its user and window. */
const compactFillsFields = {
  coin: optString,
  side: optOneOf(['A', 'B']),
  limit: intIn(1, MAX_FILL_ROWS),
  cursor: optString,
  order: optOneOf(['asc', 'desc']),
  // The path endpoints' spelling (spec §2.3) and the camelCase of the /info bodies are both accepted.
  include_order_type: optBool,
  includeOrderType: optBool,
};

/** A compact fill row (spec §2.3, fills.ts CompactFillRow): `orderType` only with include_order_type. */
/** orderStatus's order reference: an oid above 2^53 sent as a JSON number (rounded by JSON.parse) read exactly. */
function orderRefOf(body: Body) {
  const unsafe = typeof body.oid === 'number' && !Number.isSafeInteger(body.oid);
  return orderRef(unsafe ? (integerLiteral(body, 'oid') ?? body.oid) : body.oid, body.cloid);
}

export const compactFill = R.record(
  {
    user: R.address,
    coin: R.str,
    px: R.decimal,
    sz: R.decimal,
    side: R.side,
    time: { type: 'string', description: 'ISO 8601, exact to the millisecond' },
    dir: R.str,
    closedPnl: R.decimal,
    hash: R.txHash,
    oid: R.int,
    tid: R.int,
    fee: R.decimal,
    feeToken: R.str,
    crossed: { enum: [0, 1] },
    cloid: R.orNull(R.cloid),
    twapId: { type: ['integer', 'null'] },
    builder: R.orNull(R.address),
    builderFee: R.orNull(R.decimal),
    orderType: { type: ['string', 'null'] },
  },
  ['orderType'],
);
const compactFillsAnswer = R.resultOf(R.list(compactFill));

function compactFillsPaging(body: Body, defaultOrder: 'asc' | 'desc') {
  return {
    coin: given<string>(body, 'coin'),
    side: given<'A' | 'B'>(body, 'side'),
    limit: given<number>(body, 'limit'),
    cursor: given<string>(body, 'cursor'),
    order: given<'asc' | 'desc'>(body, 'order') ?? defaultOrder,
    includeOrderType: given<boolean>(body, 'include_order_type') ?? given<boolean>(body, 'includeOrderType') ?? false,
  };
}

/** `fills` (oldest first by default) and `recentFills` (newest first): compact rows of spec §2.3. */
function compactFills(defaultOrder: 'asc' | 'desc'): InfoEntry {
  return {
    schema: object({ user: optAddress, ...timeWindow, ...compactFillsFields }),
    check: (body) => void (typeof body.cursor === 'string' && parseFillCursor(body.cursor)),
    async handler(body, { accounts }) {
      const user = body.user == null ? undefined : lower(body.user);
      const page = await accounts.fillRows({ user, ...windowOf(body), ...compactFillsPaging(body, defaultOrder) });
      // Always paged: without the headers a caller could not tell that the default 100 rows were not all.
      return json(resultEnvelope(page.rows), pagingHeaders(page));
    },
    response: compactFillsAnswer,
  };
}

/**
 * A page of a user's history, unwrapped as the exchange answers it (a window oldest first, else the newest first: the
 * service's rule), with X-Has-More and X-Next-Cursor; `limit` and `cursor` are this service's additions.
 */
type HistoryQuery = Omit<HistoryPageQuery, 'limit'> & { limit?: number };

function historyType<R>(
  page: (q: HistoryQuery, services: CompatServices) => Promise<HistoryPage<R>>,
  response: JsonSchema,
): InfoEntry {
  return {
    schema: userWindow({ limit: intIn(1, MAX_HISTORY_PAGE), cursor: optString }),
    async handler(body, services) {
      const q = { user: lower(body.user), ...windowOf(body), limit: given<number>(body, 'limit') };
      const p = await page({ ...q, cursor: given<string>(body, 'cursor') }, services);
      return json(p.rows, pagingHeaders(p));
    },
    response,
  };
}

/** userFunding and accountFunding: the same payments. */
const funding = historyType((q, { accounts }) => accounts.userFunding(q), R.list(R.fundingPayment));

/** The window of a type that needs its start; the schema made `startTime` required. */
const startedWindow = (body: Body) => windowOf(body) as { startTime: number; endTime?: number };

/** clearinghouseState of one `user`, relayed with userBody's fields. */
const relayNow: InfoHandler = relay(0, userBody);

export const accountsInfo: Record<string, InfoEntry> = {
  openOrders: proxied(0, userBody, R.list(R.openOrder)),
  frontendOpenOrders: proxied(0, userBody, R.list(R.frontendOrder)),
  spotClearinghouseState: proxied(0, userBody, R.spotClearinghouseState),

  /** One `user` (relayed), or several `users` answered together in the order asked. */
  clearinghouseState: {
    schema: object({ user: address, users: arrayOf(address), ...dex }),
    async handler(body, services) {
      if (body.users === undefined) {
        checkedAddress(body, 'user');
        return relayNow(body, services);
      }
      const users = (body.users as string[]).map(lower);
      if (users.length < 1 || users.length > 50) throw new FieldError('users: must hold 1 to 50 addresses');
      const dex = given<string>(body, 'dex') ?? '';
      const states = await Promise.all(
        users.map((user) => services.upstream.json({ type: 'clearinghouseState', user, dex })),
      );
      return json(users.map((user, i) => ({ user, clearinghouseState: states[i] })));
    },
    /** With `user`: the node's state. With `users`: `[{user, clearinghouseState}]` in the order asked. */
    response: {
      anyOf: [R.clearinghouseState, R.list(R.record({ user: R.address, clearinghouseState: R.clearinghouseState }))],
    },
  },

  userFills: {
    schema: object({ user: address, aggregateByTime: optBool }, ['user']),
    async handler(body, { accounts }) {
      const q = { user: lower(body.user), aggregateByTime: given<boolean>(body, 'aggregateByTime') };
      return streamedJson((out) => accounts.userFillsJson(q, out));
    },
    response: R.list(R.wireFill),
  },

  userFillsByTime: {
    schema: userWindow({ startTime: timeMs, aggregateByTime: optBool, reversed: optBool }, ['startTime']),
    async handler(body, { accounts }) {
      const q = {
        user: lower(body.user),
        ...startedWindow(body),
        aggregateByTime: given<boolean>(body, 'aggregateByTime'),
        reversed: given<boolean>(body, 'reversed'),
      };
      return streamedJson((out) => accounts.userFillsByTimeJson(q, out));
    },
    response: R.list(R.wireFill),
  },

  fills: compactFills('asc'),
  recentFills: compactFills('desc'),

  allFills: {
    schema: object({ ...timeWindow, startTime: timeMs, ...compactFillsFields }, ['startTime']),
    async handler(body, { accounts }) {
      const page = await accounts.allFills({ ...startedWindow(body), ...compactFillsPaging(body, 'asc') });
      return json(resultEnvelope(page.rows), pagingHeaders(page));
    },
    response: compactFillsAnswer,
  },

  userTwapSliceFills: {
    schema: userWindow({ twapId: intIn(0) }),
    async handler(body, { accounts }) {
      const q = { user: lower(body.user), twapId: given<number>(body, 'twapId'), ...windowOf(body) };
      return json(await accounts.twapSliceFills(q));
    },
    response: R.list(R.record({ fill: R.wireFill, twapId: R.int })),
  },

  /** userTwapSliceFills of a window (`startTime` required, as the exchange has it), from the same index. */
  userTwapSliceFillsByTime: {
    schema: userWindow({ startTime: timeMs }, ['startTime']),
    async handler(body, { accounts }) {
      return json(await accounts.twapSliceFills({ user: lower(body.user), ...startedWindow(body) }));
    },
    response: R.list(R.record({ fill: R.wireFill, twapId: R.int })),
  },

  /** The user's TWAP status changes from the index, oldest first; `time` in seconds as the exchange writes it. */
  twapHistory: {
    schema: object({ user: address }, ['user']),
    handler: async (body, { accounts }) => json((await accounts.twapHistory(lower(body.user))).map(toTwapHistoryItem)),
    response: R.list(R.twapHistoryItem),
  },

  historicalOrders: {
    schema: userWindow({
      limit: intIn(1, HISTORICAL_ORDERS_MAX_LIMIT),
      lookbackDays: intIn(1, 365),
      // The X-Next-Cursor value (an oid), sent back as a string or as a number; the service reads it.
      cursor: { ...optString, type: ['string', 'integer', 'null'] },
    }),
    // The cursor's form is the service's rule, checked before the call is charged.
    check: (body) => void (body.cursor != null && checkOrderCursor(String(body.cursor))),
    async handler(body, { accounts }) {
      const cursor = body.cursor;
      const page = await accounts.historicalOrdersJson({
        user: lower(body.user),
        limit: given<number>(body, 'limit'),
        lookbackDays: given<number>(body, 'lookbackDays'),
        ...windowOf(body),
        cursor: cursor == null ? undefined : String(cursor),
      });
      const windowMode = body.startTime != null || body.endTime != null || body.cursor != null;
      return streamedJson((out) => page.write(out), windowMode ? pagingHeaders(page) : undefined);
    },
    response: R.list(R.orderWithStatus),
  },

  orderStatus: {
    schema: object(
      {
        user: address,
        oid: { description: 'an order id: an integer from 0 to 2^64 - 1, as a JSON number or a decimal string' },
        cloid: { description: 'a client order id (0x and 32 hex digits), in oid or cloid' },
      },
      ['user'],
    ),
    check: (body) => void orderRefOf(body),
    handler: async (body, { accounts }) =>
      json(await accounts.orderStatus({ user: lower(body.user), ...orderRefOf(body) })),
    response: {
      anyOf: [
        R.record({ status: { const: 'order' }, order: R.orderWithStatus }),
        R.record({ status: { const: 'unknownOid' } }),
      ],
    },
  },

  userFunding: funding,
  accountFunding: funding,

  userNonFundingLedgerUpdates: historyType((q, { accounts }) => accounts.ledgerUpdates(q), R.list(R.ledgerUpdate)),

  borrowLendUserState: {
    schema: object({ user: address }, ['user']),
    handler: async (body, { accounts }) => json(await accounts.borrowLendUserState(lower(body.user))),
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
  },

  ...nodeUserTypes,
};
