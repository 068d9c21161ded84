// The accounts domain's capabilities, each declared once (kit/capability.ts): its input (service/inputs.ts), its
// service call, and its doors: /info types (compat-rest/capability-info.ts), path routes, MCP tools, GraphQL fields
// (kit/capability-fields.ts). The node's state relayed is declared in node-capabilities.ts; the live streams (/ws
// channels, subscriptions, replays, the MCP collectors) are live-capabilities.ts'.
import { dataEnvelopeOf } from '../../kit/answers.ts';
import type { Capabilities, InfoDoor } from '../../kit/capability.ts';
import { capability, wholeCapability } from '../../kit/capability.ts';
import type { InputOf } from '../../kit/input.ts';
import { integerLiteral } from '../../kit/json-source.ts';
import type { JsonSchema } from '../../kit/request-schema.ts';
import * as R from '../../kit/response-schema.ts';
import { resultOf } from '../../kit/response-schema.ts';
import { LIVE_CAPABILITIES } from './live-capabilities.ts';
import { NODE_STATES } from './node-capabilities.ts';
import { AccountStateRef } from './schema/account.ts';
import { badInput } from './schema/args.ts';
import { FillConnectionRef, FillRef, fillColumnsOf, TwapSliceFillRef } from './schema/fill.ts';
import { FundingConnectionRef, FundingRef, fundingOfEntry } from './schema/funding.ts';
import { BuilderRef, BuilderRevenueRef } from './schema/holdings.ts';
import { LedgerUpdateConnectionRef, LedgerUpdateRef } from './schema/ledger.ts';
import { LiquidationRef } from './schema/liquidation.ts';
import { OrderStatusConnectionRef, OrderStatusRef, orderColumnsOf } from './schema/order.ts';
import { TwapStatusChangeRef } from './schema/twap.ts';
import { UserRef } from './schema/user.ts';
import { compactFillSchema, wireFillSchema } from './service/fill-fields.ts';
import { MAX_WIRE_FILLS } from './service/fills.ts';
import { MAX_HISTORY_PAGE } from './service/history-page.ts';
import type { AccountsService } from './service/index.ts';
import {
  ALL_FILL_PAGE,
  ALL_FILLS,
  BUILDER_REVENUE,
  FILL_PAGE,
  FILL_ROWS,
  FUNDING_PAGE,
  HISTORICAL_ORDERS,
  LEDGER_PAGE,
  LIQUIDATIONS,
  ORDER_STATUS,
  ORDERS_PAGE,
  TWAP_SLICE_FILLS,
  TWAP_SLICE_FILLS_BY_TIME,
  USER,
  USER_ENTITY,
  USER_FILLS,
  USER_FILLS_BY_TIME,
} from './service/inputs.ts';
import { HISTORICAL_ORDERS_MAX_LIMIT, orderRef } from './service/orders.ts';
import { MAX_TWAP_HISTORY, toTwapHistoryItem } from './service/twaps.ts';

/** A user's funding or ledger history, paged as the service pages it: what the MCP tool says of its order. */
const historyDescription = (what: string) =>
  `${what} With startTime: that window, oldest first; without: the newest first (up to endTime). ` +
  `${MAX_HISTORY_PAGE} at most a page; pass nextCursor back as cursor for the next.`;

/**
 * A compact-fills body (/info fills, recentFills, allFills) in the result envelope with its paging headers, the path
 * endpoints' spelling `include_order_type` (spec §2.3) taken beside the camelCase of the /info bodies.
 */
const fillRowsInfo = <P extends typeof FILL_ROWS.fields | typeof ALL_FILLS.fields>(
  type: string,
): InfoDoor<AccountsService, P> => ({
  type,
  result: true,
  extra: { include_order_type: { type: ['boolean', 'null'] } },
  body: (body) => ({ ...body, includeOrderType: body.includeOrderType ?? body.include_order_type }),
  response: resultOf(R.list(compactFillSchema)),
});

/** Compact fill rows in the data envelope (`/fills/*`), paged by keyset cursor. */
const FILL_ROWS_ANSWER = { body: dataEnvelopeOf(R.list(compactFillSchema)) };

/** A schema with one more field (a spelling or a type the exchange's clients send besides the definition's). */
const withField = (schema: JsonSchema, name: string, field: JsonSchema): JsonSchema => ({
  ...schema,
  properties: { ...(schema.properties as object), [name]: field },
});

const HISTORY_LIST_SIZE = { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false };

/** A User's fields: the account is the parent's. */
const fromUser = { user: (u: { address: string }) => u.address };

/**
 * A stored-fills page as the connections ask it: newest first, each fill's order type looked up only when selected,
 * only the selected fields' columns read (every field's off GraphQL).
 */
const fillPageOf = (
  q: InputOf<typeof FILL_PAGE> | (InputOf<typeof ALL_FILL_PAGE> & { aggregateByTime: false }),
  selected: ReadonlySet<string> | undefined,
) =>
  [
    { ...q, order: 'desc' as const, includeOrderType: selected?.has('orderType') ?? true },
    selected && fillColumnsOf(selected),
  ] as const;

/** What each builder earned in a window: the inputs of one field path, which share it. */
const builderRevenues = (accounts: AccountsService, inputs: readonly InputOf<typeof BUILDER_REVENUE>[]) =>
  accounts.builderFeeRevenues({
    builders: inputs.map((q) => q.builder),
    startTime: inputs[0]?.startTime,
    endTime: inputs[0]?.endTime,
  });

const twapSliceFillsAnswer = R.list(R.record({ fill: wireFillSchema, twapId: R.int }));

export const ACCOUNTS_CAPABILITIES: Capabilities<AccountsService> = {
  // Its routes are under three prefixes: each route states its own.
  prefix: '',
  list: [
    // The account itself (Query.user): its fields are the capabilities below, the parent giving them its address.
    wholeCapability({
      name: 'user',
      input: USER_ENTITY,
      answer: (_accounts, { user }) => Promise.resolve({ address: user }),
      graphql: { type: UserRef, description: 'An account by its 0x address (any case)', answer: 'user' },
    }),
    wholeCapability({
      name: 'accountState',
      input: USER,
      answer: (accounts, { user }) => accounts.accountState(user),
      rest: { prefix: '/users', paths: ['/:user/account'], params: { user: 'user' }, querystring: () => null },
      mcp: {
        name: 'accounts_account_state',
        title: 'Account state',
        description:
          "A user's latest perp account: account value, margin used, withdrawable, and each open position (coin, " +
          'size, entry price, unrealized PnL, leverage, liquidation price), valued at live mids. Spot balances and ' +
          'HIP-3 dex positions are not included (see accounts_spot_balances).',
        key: 'account',
      },
      graphql: { type: AccountStateRef, description: '', fields: [{ on: UserRef, name: 'account', given: fromUser }] },
    }),
    wholeCapability({
      name: 'userFills',
      input: USER_FILLS,
      // MCP's window needs its start (/info's userFills reads neither bound: userFillsByTime has the window).
      answer: (accounts, q) =>
        q.startTime === undefined && q.endTime !== undefined ? Promise.resolve(null) : accounts.userFillsList(q),
      missing: () => 'endTime needs startTime',
      info: {
        type: 'userFills',
        // The window is MCP's (accounts_user_fills); /info has userFillsByTime, and takes a client's endTime unread.
        omit: ['startTime', 'endTime'],
        stream: async (accounts, q) => ({ write: (out) => accounts.userFillsJson(q, out) }),
        response: R.list(wireFillSchema),
      },
      mcp: {
        name: 'accounts_user_fills',
        title: "A user's recent fills",
        description:
          `A user's ${MAX_WIRE_FILLS} most recent fills, newest first (coin, price, size, side, time, direction, ` +
          `closed PnL, fee, oid, tid, liquidation). With startTime, the fills of that window instead (newest ` +
          `${MAX_WIRE_FILLS} of it). aggregateByTime merges the partial fills of one order at one time.`,
        key: 'fills',
      },
    }),
    wholeCapability({
      name: 'userFillsByTime',
      input: USER_FILLS_BY_TIME,
      answer: (accounts, q) => accounts.userFillsList(q),
      info: {
        type: 'userFillsByTime',
        stream: async (accounts, q) => ({ write: (out) => accounts.userFillsJson(q, out) }),
        response: R.list(wireFillSchema),
      },
    }),
    // Compact fill rows (spec §2.3): `fills` oldest first by default, `recentFills` and a user's path newest first.
    // Always paged: without the headers a caller could not tell that the default 100 rows were not all.
    capability({
      name: 'fills',
      input: FILL_ROWS,
      page: (accounts, q) => accounts.fillRows({ ...q, order: q.order ?? 'asc' }),
      info: fillRowsInfo<typeof FILL_ROWS.fields>('fills'),
      rest: { prefix: '/fills', paths: ['/'], data: true, answer: FILL_ROWS_ANSWER },
    }),
    capability({
      name: 'recentFills',
      input: FILL_ROWS,
      page: (accounts, q) => accounts.fillRows({ ...q, order: q.order ?? 'desc' }),
      info: fillRowsInfo<typeof FILL_ROWS.fields>('recentFills'),
      rest: { prefix: '/fills', paths: ['/recent'], data: true, answer: FILL_ROWS_ANSWER },
    }),
    capability({
      name: 'userFillRows',
      input: FILL_ROWS,
      page: (accounts, q) => accounts.fillRows({ ...q, order: q.order ?? 'desc' }),
      rest: {
        prefix: '/fills',
        paths: ['/user/:user_address'],
        params: { user_address: 'user' },
        data: true,
        answer: FILL_ROWS_ANSWER,
      },
    }),
    capability({
      name: 'allFills',
      input: ALL_FILLS,
      page: (accounts, q) => accounts.allFills({ ...q, order: q.order ?? 'asc' }),
      info: fillRowsInfo<typeof ALL_FILLS.fields>('allFills'),
    }),
    // MCP's fill rows: without a user every user's, of the last hour by default.
    capability({
      name: 'fillRows',
      input: FILL_ROWS,
      page: (accounts, { user, ...q }) => {
        const order = q.order ?? 'asc';
        return user === undefined
          ? accounts.allFills({ ...q, order, startTime: q.startTime ?? accounts.now() - 3_600_000 })
          : accounts.fillRows({ ...q, order, user });
      },
      mcp: {
        name: 'accounts_fills',
        title: 'Fill rows (filtered, paged)',
        description:
          'Compact fill rows filtered by user, coin, side and time window, paged by cursor (pass back nextCursor), ' +
          `${FILL_ROWS.fields.limit.maximum} at most a page. Without a user: every user's fills (then a window of at ` +
          "most a day is needed; default the last hour). Oldest first unless order is desc. For a user's recent " +
          "fills in the exchange's own form use accounts_user_fills.",
        key: 'rows',
        beside: (page) => (page.totalCount === undefined ? {} : { totalCount: page.totalCount }),
      },
    }),
    // Builder.revenue: the builders of a page of fills summed in one statement per window (per field path).
    wholeCapability({
      name: 'builderRevenue',
      input: BUILDER_REVENUE,
      answer: async (accounts, q) => (await builderRevenues(accounts, [q]))[0] ?? null,
      graphql: {
        type: BuilderRevenueRef,
        description: '',
        fields: [
          {
            on: BuilderRef,
            name: 'revenue',
            description: 'What the builder earned in a window (default all stored fills)',
            given: { builder: (b: { address: string }) => b.address },
            batch: builderRevenues,
          },
        ],
      },
    }),
    // The GraphQL connections of stored fills: a user's or a builder's, and every user's of a window of at most a day.
    capability({
      name: 'fillPage',
      input: FILL_PAGE,
      page: (accounts, q, selected) => accounts.wireFillPage(...fillPageOf(q, selected)),
      graphql: {
        type: FillRef,
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'fills',
            connection: true,
            type: FillConnectionRef,
            description:
              'Newest first, fills of one time in execution order; `after` is a cursor ' +
              '`"<time>:<block>:<event index>:<tid>"` (an endCursor)',
            given: fromUser,
            omit: ['builder'],
            listSize: HISTORY_LIST_SIZE,
          },
          {
            on: BuilderRef,
            name: 'fills',
            connection: true,
            type: FillConnectionRef,
            description:
              'Fills routed through this builder, newest first (fills of one time in execution order); `after` is ' +
              'an endCursor',
            given: { builder: (b: { address: string }) => b.address },
            omit: ['user', 'aggregateByTime'],
            listSize: HISTORY_LIST_SIZE,
          },
        ],
      },
    }),
    capability({
      name: 'allFillPage',
      input: ALL_FILL_PAGE,
      page: (accounts, q, selected) => accounts.wireFillPage(...fillPageOf({ ...q, aggregateByTime: false }, selected)),
      graphql: {
        type: FillRef,
        description: '',
        fields: [
          {
            on: 'Query',
            name: 'fills',
            connection: true,
            type: FillConnectionRef,
            description:
              "Every user's fills of a window of at most a day (the allFills /info type, `/fills`): newest first, " +
              'fills of one time in execution order; `endTime` defaults to a day after `startTime`; `after` is an ' +
              'endCursor',
            given: {},
            listSize: HISTORY_LIST_SIZE,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'twapSliceFills',
      input: TWAP_SLICE_FILLS,
      answer: (accounts, q) => accounts.twapSliceFills(q),
      info: { type: 'userTwapSliceFills', response: twapSliceFillsAnswer },
      mcp: {
        name: 'accounts_twap_slice_fills',
        title: 'TWAP slice fills',
        description: `A user's TWAP slice fills, newest first (at most ${MAX_WIRE_FILLS}), optionally of one TWAP and a window.`,
        key: 'fills',
      },
      graphql: {
        type: [TwapSliceFillRef],
        description: '',
        types: { twapId: 'ID' },
        fields: [
          {
            on: UserRef,
            name: 'twapSliceFills',
            description: `Fills of the user's TWAP slices, newest first, at most ${MAX_WIRE_FILLS}`,
            given: fromUser,
            listSize: { assumedSize: 100 },
            // An ID's digits as the definition's integer (other text is refused by the definition).
            args: (a) =>
              typeof a.twapId === 'string' && /^\d{1,16}$/.test(a.twapId) ? { ...a, twapId: Number(a.twapId) } : a,
          },
        ],
      },
    }),
    /** userTwapSliceFills of a window (`startTime` required, as the exchange has it), from the same index. */
    wholeCapability({
      name: 'twapSliceFillsByTime',
      input: TWAP_SLICE_FILLS_BY_TIME,
      answer: (accounts, q) => accounts.twapSliceFills(q),
      info: { type: 'userTwapSliceFillsByTime', response: twapSliceFillsAnswer },
    }),
    wholeCapability({
      name: 'twapHistory',
      input: USER,
      answer: (accounts, { user }) => accounts.twapHistory(user),
      // The user's TWAP status changes from the index, oldest first; `time` in seconds as the exchange writes it.
      info: { type: 'twapHistory', of: (a) => a.map(toTwapHistoryItem), response: R.list(R.twapHistoryItem) },
      mcp: {
        name: 'accounts_twap_history',
        title: 'TWAP order history',
        description:
          `The status changes of a user's TWAP orders (activated, finished, terminated, error), oldest first, the ` +
          `newest ${MAX_TWAP_HISTORY}: each with the TWAP's id, coin, side, size, executed size and notional, ` +
          'duration and start.',
        key: 'twaps',
      },
      graphql: {
        type: [TwapStatusChangeRef],
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'twapHistory',
            description: `The status changes of the user's TWAP orders, oldest first: the newest ${MAX_TWAP_HISTORY}`,
            given: fromUser,
            listSize: { assumedSize: 100 },
          },
        ],
      },
    }),
    // historicalOrders unwrapped, as JSON text from Postgres's, with the paging headers in window mode.
    capability({
      name: 'historicalOrders',
      input: HISTORICAL_ORDERS,
      page: (accounts, q) => accounts.historicalOrders(q),
      info: {
        type: 'historicalOrders',
        // The cursor (the X-Next-Cursor value, an oid) comes back as a string or as a number; its form is then the
        // definition's check (checkOrderCursor), in the words of the definition's rule for it.
        schema: (body) => withField(body, 'cursor', { type: ['string', 'integer', 'null'] }),
        body: (body) => (typeof body.cursor === 'number' ? { ...body, cursor: String(body.cursor) } : body),
        stream: async (accounts, q) => {
          const page = await accounts.historicalOrdersJson(q);
          const windowMode = q.startTime !== undefined || q.endTime !== undefined || q.cursor !== undefined;
          return { write: (out) => page.write(out), ...(windowMode ? { paging: page } : {}) };
        },
        response: R.list(R.orderWithStatus),
      },
      mcp: {
        name: 'accounts_historical_orders',
        title: 'Order history',
        description:
          `A user's orders with their latest status (filled, canceled, open, rejected, ...), newest first: limit 1 to ` +
          `${HISTORICAL_ORDERS_MAX_LIMIT} (default 2000), lookbackDays 1 to 365; or a window (startTime, endTime) ` +
          'paged by cursor.',
        key: 'orders',
      },
    }),
    // User.orders: historicalOrders' window mode (from the epoch when no startTime), only the selected columns read.
    capability({
      name: 'orders',
      input: ORDERS_PAGE,
      page: (accounts, q, selected) =>
        accounts.historicalOrders({ ...q, startTime: q.startTime ?? 0 }, selected && orderColumnsOf(selected)),
      graphql: {
        type: OrderStatusRef,
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'orders',
            connection: true,
            type: OrderStatusConnectionRef,
            description:
              'Orders with a status in the window, by oid descending: per order its latest status (trigger orders: ' +
              'the latest of each status); `first` counts orders; `after` is the last oid of the previous page',
            given: fromUser,
            listSize: HISTORY_LIST_SIZE,
            node: (row, q) => Object.assign(row, { user: q.user }),
          },
        ],
      },
    }),
    wholeCapability({
      name: 'orderStatus',
      input: ORDER_STATUS,
      answer: (accounts, q) => accounts.orderStatus({ user: q.user, ...orderRef(q.oid, q.cloid) }),
      info: {
        type: 'orderStatus',
        // An oid above 2^53 sent as a JSON number (rounded by JSON.parse) read exactly, from its digits.
        body: (body) =>
          typeof body.oid === 'number' && !Number.isSafeInteger(body.oid)
            ? { ...body, oid: integerLiteral(body, 'oid') ?? body.oid }
            : body,
        response: {
          anyOf: [
            R.record({ status: { const: 'order' }, order: R.orderWithStatus }),
            R.record({ status: { const: 'unknownOid' } }),
          ],
        },
      },
      mcp: {
        name: 'accounts_order_status',
        title: 'Status of one order',
        description:
          "One order's current status and details, by order id (oid) or client order id (cloid): live state, then " +
          'the node, then history; status unknownOid when no one knows it.',
      },
      graphql: {
        type: OrderStatusRef,
        description: '',
        types: { oid: 'ID' },
        fields: [
          {
            on: UserRef,
            name: 'orderStatus',
            nullable: true,
            description:
              'The latest status of one order, by oid or cloid (live, then the node, then history); null: unknown',
            given: fromUser,
            args: (a) => {
              if ((a.oid == null) === (a.cloid == null)) throw badInput('oid', 'give exactly one of oid and cloid');
              return a;
            },
            of: (answer, q) => (answer.status === 'order' ? { ...answer.order, user: q.user } : null),
          },
        ],
      },
    }),
    // A page of a user's history, unwrapped as the exchange answers it (a window oldest first, else the newest first:
    // the service's rule), with X-Has-More and X-Next-Cursor; `limit` and `cursor` are this service's additions.
    capability({
      name: 'funding',
      input: FUNDING_PAGE,
      page: (accounts, q) => accounts.userFunding(q),
      // The payments, the entries carrying the spec's top-level fields beside `delta`: a bare array as /info answers.
      info: { type: ['userFunding', 'accountFunding'], response: R.list(R.fundingPayment) },
      rest: { prefix: '/funding', paths: ['/userFunding'], answer: { body: R.list(R.fundingPayment) } },
      mcp: {
        name: 'accounts_funding_payments',
        title: 'Funding payments',
        description: historyDescription(
          "A user's hourly funding payments (coin, USDC paid or received, position size, rate).",
        ),
        key: 'payments',
      },
      graphql: {
        type: FundingRef,
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'fundings',
            connection: true,
            type: FundingConnectionRef,
            description:
              'Funding payments: with startTime, the window oldest first (as the exchange answers it); without, the ' +
              'newest first (up to endTime). `after` is an endCursor `"<time>:<block>:<coin>"`',
            given: fromUser,
            listSize: HISTORY_LIST_SIZE,
            node: fundingOfEntry,
          },
        ],
      },
    }),
    capability({
      name: 'ledgerUpdates',
      input: LEDGER_PAGE,
      page: (accounts, q) => accounts.ledgerUpdates(q),
      info: { type: 'userNonFundingLedgerUpdates', response: R.list(R.ledgerUpdate) },
      mcp: {
        name: 'accounts_ledger_updates',
        title: 'Ledger updates (non-funding)',
        description: historyDescription(
          "A user's non-funding ledger updates (deposits, withdrawals, transfers, liquidations, vault and spot " +
            'moves). evm_user_ledger_events answers them classified (deposit, withdrawal, agent_send between dexes, ...).',
        ),
        key: 'updates',
      },
      graphql: {
        type: LedgerUpdateRef,
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'ledgerUpdates',
            connection: true,
            type: LedgerUpdateConnectionRef,
            description:
              'Non-funding ledger updates, paged as fundings: with startTime the window oldest first, without the ' +
              'newest first. `after` is an endCursor `"<time>:<block>:<hash>:<digest>"`',
            given: fromUser,
            listSize: HISTORY_LIST_SIZE,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'liquidations',
      input: LIQUIDATIONS,
      answer: (accounts, q) => accounts.liquidations(q),
      mcp: {
        name: 'accounts_liquidations',
        title: 'Liquidations of a user',
        description:
          'Liquidations a user was in (liquidated or liquidator), most recent first. For liquidations as they happen ' +
          'use accounts_collect_liquidations.',
        key: 'liquidations',
      },
      graphql: {
        type: [LiquidationRef],
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'liquidations',
            description: 'Liquidations in which the user was liquidated or the liquidator, most recent first',
            given: fromUser,
            listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
          },
        ],
      },
    }),
    wholeCapability({
      name: 'borrowLendUserState',
      input: USER,
      answer: (accounts, { user }) => accounts.borrowLendUserState(user),
      info: {
        type: 'borrowLendUserState',
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
      mcp: {
        name: 'accounts_borrow_lend_state',
        title: 'Borrow/lend positions',
        description:
          "A user's borrow/lend positions (supplied and borrowed per token) and their health at current reserves.",
        key: 'state',
      },
    }),
    ...NODE_STATES,
    ...LIVE_CAPABILITIES,
  ],
};
