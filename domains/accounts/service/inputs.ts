// What each capability of the accounts service takes, stated once (kit/input.ts): the /info bodies, the path routes'
// query strings, the MCP tools' inputs and the GraphQL arguments derive from these, and every edge reads its request
// through them, so bounds, defaults, lowercasing and refusal messages are the same on each. The service reads what a
// cursor means (a fill's key, an oid, a history row's key) and what spans two fields (allFills' day, an order's ref).
import {
  address,
  amount,
  bool,
  cursor,
  defineInput,
  type InputOf,
  int,
  integerOrText,
  list,
  named,
  oneOf,
  optional,
  seconds,
  text,
  time,
} from '../../../kit/input.ts';
import { addressValue, FieldError } from '../../../platform/fields.ts';
import { MAX_FILL_ROWS } from './fill-pages.ts';
import { FUNDING_CURSOR_FORM } from './funding.ts';
import { MAX_HISTORY_PAGE } from './history-page.ts';
import { LEDGER_CURSOR_FORM } from './ledger.ts';
import {
  FILL_ROWS_DEFAULT_LIMIT,
  FILLS_PAGE_DEFAULT,
  LIQUIDATIONS_DEFAULT_LIMIT,
  MAX_CLEARINGHOUSE_USERS,
  MAX_LIQUIDATIONS,
  MAX_ORDERS_PAGE,
  MAX_WIRE_FILLS,
  ORDERS_PAGE_DEFAULT,
} from './limits.ts';
import { MAX_LIQUIDATION_USERS } from './liquidations.ts';
import {
  checkOrderCursor,
  HISTORICAL_ORDERS_DEFAULT_LIMIT,
  HISTORICAL_ORDERS_MAX_LIMIT,
  MAX_OID,
  orderRef,
} from './orders.ts';

const WINDOW = { window: ['startTime', 'endTime'] } as const;
const user = address('the user');
const startTime = (what = 'start of the window, inclusive') => optional(time(what));
const endTime = optional(time('end of the window, inclusive; default now'));
const dex = optional(text('a perp dex; default the first', { minLength: 0 }));

/** A fill's key as a page gave it (fillCursor); the service reads its parts (each within bigint). */
const fillCursor = (description: string) =>
  cursor(description, {
    maxLength: 80,
    pattern: '^\\d{1,16}:\\d{1,19}:\\d{1,9}:\\d{1,20}$',
    rule: 'must be "<epoch_ms>:<block>:<event index>:<tid>" as a page gave it',
  });

// ---- a user alone: account state, TWAP history, borrow/lend state, the node's per-user state ----

/** A user alone; GraphQL's Query.user calls it `address` (the User entity's key). */
export const USER = defineInput({ user });

/** The User entity by its address (GraphQL's `Query.user(address)`): a user under the entity's own name. */
export const USER_ENTITY = defineInput({ user: named(user, { graphql: 'address' }) });

/** A user's state on one perp dex (openOrders, frontendOpenOrders, spotClearinghouseState: relayed to the node). */
export const USER_ON_DEX = defineInput({ user, dex });

// ---- fills ----

/** userFills (the newest MAX_WIRE_FILLS), or with startTime userFillsByTime's window; MCP takes both forms. */
export const USER_FILLS = defineInput(
  {
    user,
    startTime: startTime('only fills from this time (switches to the window)'),
    endTime: optional(time('end of the window (with startTime); default now')),
    aggregateByTime: bool('merge the partial fills of one crossing order at one time', false),
  },
  WINDOW,
);

/** userFillsByTime: the newest MAX_WIRE_FILLS fills of a window, `reversed: false` listing them oldest first. */
export const USER_FILLS_BY_TIME = defineInput(
  {
    user,
    startTime: time('start of the window, inclusive'),
    endTime,
    aggregateByTime: bool('merge the partial fills of one crossing order at one time', false),
    reversed: optional(bool('false: the same fills oldest first (the TS SDK); default newest first')),
  },
  WINDOW,
);

/** The filters and paging of compact fill rows (spec §2.3) but the user and the window's start. */
const fillRowsFields = {
  coin: optional(text('only this coin')),
  side: optional(oneOf(['A', 'B'] as const, 'only this side: B (bid, buy) or A (ask, sell)')),
  endTime,
  limit: int(`rows per page (1 to ${MAX_FILL_ROWS}, default ${FILL_ROWS_DEFAULT_LIMIT})`, {
    min: 1,
    max: MAX_FILL_ROWS,
    default: FILL_ROWS_DEFAULT_LIMIT,
  }),
  cursor: optional(fillCursor('nextCursor of the previous page')),
  order: optional(oneOf(['asc', 'desc'] as const, 'oldest first (asc) or newest first (desc)')),
  includeOrderType: bool("add each fill's order type", false),
};

/** Compact fill rows (/info fills and recentFills, /fills/*, accounts_fills): a user's, or every user's. */
export const FILL_ROWS = defineInput(
  { user: optional(address('only this user')), startTime: startTime(), ...fillRowsFields },
  WINDOW,
);

/** allFills: every user's compact fill rows of a window of at most a day (the service holds the day). */
export const ALL_FILLS = defineInput(
  { startTime: time('start of the window, inclusive (a day at most to endTime)'), ...fillRowsFields },
  WINDOW,
);

/** A page of stored fills as GraphQL connections page them (User.fills, Builder.fills): `first`, `after`. */
const fillPageFields = {
  limit: named(
    int(`fills per page (1 to ${MAX_WIRE_FILLS}, default ${FILLS_PAGE_DEFAULT})`, {
      min: 1,
      max: MAX_WIRE_FILLS,
      default: FILLS_PAGE_DEFAULT,
    }),
    { graphql: 'first' },
  ),
  cursor: optional(fillCursor('an endCursor of the previous page')),
  coin: optional(text('only this coin')),
  endTime,
};

/** A user's (or a builder's) stored fills, newest first, keyset-paged; aggregateByTime merges crossing orders. */
export const FILL_PAGE = defineInput(
  {
    user: optional(address('only this user')),
    builder: optional(address('only fills routed through this builder')),
    ...fillPageFields,
    startTime: startTime(),
    aggregateByTime: bool('merge the partial fills of one crossing order at one time', false),
  },
  WINDOW,
);

/** Every user's stored fills of a window of at most a day (Query.fills), newest first. */
export const ALL_FILL_PAGE = defineInput(
  { ...fillPageFields, startTime: time('start of the window, inclusive (a day at most to endTime)') },
  WINDOW,
);

/** userTwapSliceFills: a user's TWAP slice fills, newest first, of one TWAP and a window if given. */
export const TWAP_SLICE_FILLS = defineInput(
  {
    user,
    twapId: optional(int('only this TWAP', { min: 0, max: Number.MAX_SAFE_INTEGER })),
    startTime: startTime(),
    endTime,
  },
  WINDOW,
);

/** userTwapSliceFillsByTime: the same of a window whose start is required, as the exchange has it. */
export const TWAP_SLICE_FILLS_BY_TIME = defineInput(
  { user, startTime: time('start of the window, inclusive'), endTime },
  WINDOW,
);

// ---- orders ----

/** The last oid of a page, as decimal digits (the service holds it within bigint). */
const orderCursor = (description: string) =>
  cursor(description, { maxLength: 20, pattern: '^[0-9]{1,20}$', rule: 'must be an oid (at most 2^63 - 1)' });

/**
 * historicalOrders: the newest `limit` orders (of the last lookbackDays days); with a bound or a cursor, the orders
 * with a status in the window, by oid descending, paged by cursor.
 */
export const HISTORICAL_ORDERS = defineInput(
  {
    user,
    limit: int(`orders (1 to ${HISTORICAL_ORDERS_MAX_LIMIT}, default ${HISTORICAL_ORDERS_DEFAULT_LIMIT})`, {
      min: 1,
      max: HISTORICAL_ORDERS_MAX_LIMIT,
      default: HISTORICAL_ORDERS_DEFAULT_LIMIT,
    }),
    lookbackDays: optional(int('only the last N days (1 to 365)', { min: 1, max: 365 })),
    startTime: startTime('window mode: start'),
    endTime: optional(time('window mode: end')),
    cursor: optional(orderCursor('window mode: nextCursor of the previous page')),
  },
  // The cursor's bound (an oid within bigint) is the service's rule, checked as the request is read.
  { ...WINDOW, check: (q) => (q.cursor === undefined ? undefined : checkOrderCursor(q.cursor)) },
);

/** User.orders: historicalOrders' window mode (from the epoch when no startTime), `first` orders a page. */
export const ORDERS_PAGE = defineInput(
  {
    user,
    limit: named(
      int(`orders per page (1 to ${MAX_ORDERS_PAGE}, default ${ORDERS_PAGE_DEFAULT})`, {
        min: 1,
        max: MAX_ORDERS_PAGE,
        default: ORDERS_PAGE_DEFAULT,
      }),
      { graphql: 'first' },
    ),
    cursor: optional(orderCursor('the last oid of the previous page')),
    startTime: startTime('start of the window; default the epoch'),
    endTime,
  },
  WINDOW,
);

/**
 * orderStatus: one order by its oid (a u64, as a JSON number or decimal digits) or its cloid, in `oid` itself (how
 * the exchange's SDKs send one) or in `cloid`; the service reads which (orderRef) and the u64's bound.
 */
export const ORDER_STATUS = defineInput(
  {
    user,
    oid: optional(
      integerOrText('the order id (an integer, or its decimal digits), or a cloid', {
        pattern: '^([0-9]{1,20}|0x[0-9a-fA-F]{32})$',
        rule:
          `must be an order id (an integer from 0 to ${MAX_OID}, as a JSON number or a decimal string) or a cloid ` +
          '(0x followed by 32 hex digits)',
      }),
    ),
    cloid: optional(
      text('the client order id (0x and 32 hex digits)', {
        pattern: '^0x[0-9a-fA-F]{32}$',
        rule: 'must be a cloid (0x followed by 32 hex digits)',
      }),
    ),
  },
  // Which of the two names the order, and an oid's u64 bound: the service's rule (orderRef), checked as read.
  { check: (q) => void orderRef(q.oid, q.cloid) },
);

// ---- funding and ledger pages ----

/** A user's history page (userFunding, userNonFundingLedgerUpdates): `cursorForm` is its cursor's form. */
const historyPage = (cursorForm: string) =>
  defineInput(
    {
      user,
      // /funding/userFunding names the window as /info does.
      startTime: optional(
        named(time('start of the window (oldest first from it); default: newest first'), { rest: 'startTime' }),
      ),
      endTime: optional(named(time('end of the window, inclusive; default now'), { rest: 'endTime' })),
      limit: named(
        int(`rows per page (1 to ${MAX_HISTORY_PAGE}, default ${MAX_HISTORY_PAGE})`, {
          min: 1,
          max: MAX_HISTORY_PAGE,
          default: MAX_HISTORY_PAGE,
        }),
        { graphql: 'first' },
      ),
      cursor: optional(
        cursor('nextCursor of the previous page', { maxLength: 200, rule: `must be ${cursorForm} as a page gave it` }),
      ),
    },
    WINDOW,
  );

export const FUNDING_PAGE = historyPage(FUNDING_CURSOR_FORM);
export const LEDGER_PAGE = historyPage(LEDGER_CURSOR_FORM);

// ---- liquidations ----

export const LIQUIDATIONS = defineInput({
  user,
  limit: int(`how many (1 to ${MAX_LIQUIDATIONS}, default ${LIQUIDATIONS_DEFAULT_LIMIT})`, {
    min: 1,
    max: MAX_LIQUIDATIONS,
    default: LIQUIDATIONS_DEFAULT_LIMIT,
  }),
});

/**
 * Liquidations as they happen (the /ws channel, the GraphQL subscription, the MCP collector; spec §6): every given
 * filter applies. /ws names the minimum notional `amount_dollars`, MCP `minNotional`.
 */
export const LIQUIDATION_STREAM = defineInput({
  user: optional(address('only liquidations this user was in (liquidated or liquidator)')),
  users: optional(
    list(
      address('an address'),
      `only liquidations involving one of these addresses on either side (at most ${MAX_LIQUIDATION_USERS})`,
      { max: MAX_LIQUIDATION_USERS, rule: `must be a list of at most ${MAX_LIQUIDATION_USERS} addresses` },
    ),
  ),
  amountDollars: optional(
    named(amount('only liquidations of at least this notional (px × sz), in dollars'), {
      info: 'amount_dollars',
      mcp: 'minNotional',
    }),
  ),
  builder: optional(address('only liquidations through this builder')),
});
export type LiquidationStreamInput = InputOf<typeof LIQUIDATION_STREAM>;

const CLEARINGHOUSE_USERS_RULE = `must hold 1 to ${MAX_CLEARINGHOUSE_USERS} addresses`;

/** The /info clearinghouseState of several users at once (or one `user`, relayed). */
export const CLEARINGHOUSE_STATES = defineInput(
  {
    user: optional(address('the user (relayed to the node)')),
    users: optional(
      list(address('an address'), `several users, answered in the order asked (1 to ${MAX_CLEARINGHOUSE_USERS})`, {
        min: 1,
        max: MAX_CLEARINGHOUSE_USERS,
        rule: CLEARINGHOUSE_USERS_RULE,
      }),
    ),
    dex,
  },
  {
    check: (q, name) => {
      // The /info body's schema states no count of `users` (a bad address in it is named first): it is read here, in
      // the list's words.
      const count = q.users?.length;
      if (count !== undefined && (count < 1 || count > MAX_CLEARINGHOUSE_USERS)) {
        throw new FieldError(`${name('users')}: ${CLEARINGHOUSE_USERS_RULE}, got ${count}`);
      }
      // Without `users`, the one `user` is required.
      if (q.users === undefined) addressValue(q.user, name('user'));
    },
  },
);

/** What a builder earned in a window (Builder.revenue: the builder is the parent). */
export const BUILDER_REVENUE = defineInput(
  { builder: address('the builder'), startTime: startTime('start of the window; default all stored fills'), endTime },
  WINDOW,
);

// ---- live streams and the MCP tools that collect them for a bounded time ----

/** userFills' live stream and its stored snapshot, which may merge the partial fills of a crossing order. */
export const USER_FILLS_STREAM = defineInput({
  user,
  aggregateByTime: bool('merge the partial fills of one crossing order at one time', false),
});

export const COLLECT_USER_EVENTS = defineInput({ user, seconds: seconds('events') });

export const COLLECT_LIQUIDATIONS = defineInput({ ...LIQUIDATION_STREAM.fields, seconds: seconds('liquidations') });

export type FillRowsInput = InputOf<typeof FILL_ROWS>;
export type FillPageInput = InputOf<typeof FILL_PAGE>;
export type HistoricalOrdersInput = InputOf<typeof HISTORICAL_ORDERS>;

// ---- the node's per-user types, relayed to it as sent once read by these (compat/node-types.ts) ----

/** activeAssetData: a user's trading limits on one coin. */
export const USER_COIN = defineInput({ user, coin: text('the coin') });

/** maxBuilderFee: what a user approved a builder for. */
export const USER_BUILDER = defineInput({ user, builder: address('the builder') });

/** preTransferCheck: a transfer from `source` to `user`. */
export const TRANSFER_CHECK = defineInput({ user, source: address('the sender') });

/** userBorrowLendInterest: a user's borrow/lend interest in a window, its start required. */
export const BORROW_LEND_INTEREST = defineInput({
  user,
  startTime: time('start of the window, inclusive'),
  endTime: optional(time('end of the window, inclusive')),
});
