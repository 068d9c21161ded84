// /info types of the accounts domain. The exchange's own types keep its exact shapes; the indexed-history types
// (historicalOrders, userFunding, accountFunding, userNonFundingLedgerUpdates) are unwrapped; the compact fill
// rows (fills, recentFills, allFills) use the result envelope with the paging headers X-Has-More, X-Next-Cursor and
// (with a user) X-Total-Count. Per-user node state (open orders, clearinghouse states) is relayed from the node.
import {
  address,
  addressValue,
  array,
  FieldError,
  optBool,
  optIntIn,
  optOneOf,
  optStr,
  optTimeWindow,
} from '../../platform/fields.ts';
import { HISTORICAL_ORDERS_MAX_LIMIT, MAX_FILL_ROWS, orderRef } from '../../subgraphs/accounts/service/index.ts';
import { pagingHeaders, resultEnvelope } from '../envelopes.ts';
import { integerLiteral } from '../json-source.ts';
import { proxied, userBody } from './proxy.ts';
import { type InfoHandler, json, streamedJson } from './types.ts';

type Body = Record<string, unknown>;

/** historicalOrders' cursor: the X-Next-Cursor value (an oid), sent back as a string or as a number. */
function oidCursor(body: Body): string | undefined {
  const v = body.cursor;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return optStr(body, 'cursor') ?? undefined;
}

/** The filters and paging of a compact-fills request, but its user and window. */
function compactFillsPaging(body: Body, defaultOrder: 'asc' | 'desc') {
  return {
    coin: optStr(body, 'coin') ?? undefined,
    side: optOneOf(body, 'side', ['A', 'B'] as const),
    limit: optIntIn(body, 'limit', 1, MAX_FILL_ROWS),
    cursor: optStr(body, 'cursor') ?? undefined,
    order: optOneOf(body, 'order', ['asc', 'desc'] as const) ?? defaultOrder,
    // The path endpoints' spelling (spec §2.3) and the camelCase of the /info bodies are both accepted.
    includeOrderType: optBool(body, 'include_order_type') ?? optBool(body, 'includeOrderType') ?? false,
  };
}

/** `fills` (oldest first by default) and `recentFills` (newest first): compact rows of spec §2.3. */
function compactFills(defaultOrder: 'asc' | 'desc'): InfoHandler {
  return async (body, { accounts }) => {
    const user = body.user === undefined || body.user === null ? undefined : address(body, 'user');
    const page = await accounts.fillRows({ user, ...optTimeWindow(body), ...compactFillsPaging(body, defaultOrder) });
    // Always paged: without the headers a caller could not tell that the default 100 rows were not all.
    return json(resultEnvelope(page.rows), pagingHeaders(page));
  };
}

/** userFunding and accountFunding: the same payments, unwrapped. */
const funding: InfoHandler = async (body, { accounts }) =>
  json(await accounts.userFunding({ user: address(body, 'user'), ...optTimeWindow(body) }));

export const accountsInfo: Record<string, InfoHandler> = {
  openOrders: proxied(0, userBody),
  frontendOpenOrders: proxied(0, userBody),
  spotClearinghouseState: proxied(0, userBody),

  async clearinghouseState(body, services) {
    if (body.users === undefined) return proxied(0, userBody)(body, services);
    // Several users: one node request each, answered together in the order asked.
    const users = array(body.users, 'users').map((u, i) => addressValue(u, `users[${i}]`));
    if (users.length < 1 || users.length > 50) throw new FieldError('users: must hold 1 to 50 addresses');
    const dex = optStr(body, 'dex') ?? '';
    const states = await Promise.all(
      users.map((user) => services.upstream.json({ type: 'clearinghouseState', user, dex })),
    );
    return json(users.map((user, i) => ({ user, clearinghouseState: states[i] })));
  },

  async userFills(body, { accounts }) {
    const user = address(body, 'user');
    const q = { user, aggregateByTime: optBool(body, 'aggregateByTime') };
    return streamedJson((out) => accounts.userFillsJson(q, out));
  },

  async userFillsByTime(body, { accounts }) {
    const user = address(body, 'user');
    const { startTime, endTime } = optTimeWindow(body);
    if (startTime === undefined) throw new FieldError('startTime: is required');
    const q = {
      user,
      startTime,
      endTime,
      aggregateByTime: optBool(body, 'aggregateByTime'),
      reversed: optBool(body, 'reversed'),
    };
    return streamedJson((out) => accounts.userFillsByTimeJson(q, out));
  },

  fills: compactFills('asc'),
  recentFills: compactFills('desc'),

  async allFills(body, { accounts }) {
    // Every user's fills: a user filter is `fills`' business, and silently ignoring one would mislead.
    if (body.user !== undefined && body.user !== null) throw new FieldError('user: not taken by allFills (use fills)');
    const { startTime, endTime } = optTimeWindow(body);
    if (startTime === undefined) throw new FieldError('startTime: is required');
    const page = await accounts.allFills({ startTime, endTime, ...compactFillsPaging(body, 'asc') });
    return json(resultEnvelope(page.rows), pagingHeaders(page));
  },

  async userTwapSliceFills(body, { accounts }) {
    const user = address(body, 'user');
    return json(await accounts.twapSliceFills({ user, twapId: optIntIn(body, 'twapId', 0), ...optTimeWindow(body) }));
  },

  async historicalOrders(body, { accounts }) {
    const user = address(body, 'user');
    const page = await accounts.historicalOrdersJson({
      user,
      limit: optIntIn(body, 'limit', 1, HISTORICAL_ORDERS_MAX_LIMIT),
      lookbackDays: optIntIn(body, 'lookbackDays', 1, 365),
      ...optTimeWindow(body),
      cursor: oidCursor(body),
    });
    const windowMode = body.startTime != null || body.endTime != null || body.cursor != null;
    return streamedJson((out) => page.write(out), windowMode ? pagingHeaders(page) : undefined);
  },

  async orderStatus(body, { accounts }) {
    const user = address(body, 'user');
    // An oid above 2^53 sent as a JSON number was rounded by JSON.parse: its digits are read from the body's text.
    const unsafe = typeof body.oid === 'number' && !Number.isSafeInteger(body.oid);
    const oid = unsafe ? (integerLiteral(body, 'oid') ?? body.oid) : body.oid;
    return json(await accounts.orderStatus({ user, ...orderRef(oid, body.cloid) }));
  },

  userFunding: funding,
  accountFunding: funding,

  async userNonFundingLedgerUpdates(body, { accounts }) {
    const user = address(body, 'user');
    return json(await accounts.ledgerUpdates({ user, ...optTimeWindow(body) }));
  },

  async borrowLendUserState(body, { accounts, markets }) {
    const user = address(body, 'user');
    return json(await accounts.borrowLendUserState(user, await markets.latestReserves()));
  },
};
