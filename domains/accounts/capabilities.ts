// The accounts domain's capabilities, each declared once (kit/capability.ts): its input (service/inputs.ts), its
// service call, and its doors: /info types (compat-rest/capability-info.ts), path routes, MCP tools. The node's state
// (relayed types, compat/node-types.ts), the compact fill rows, orders and the GraphQL fields are still written by
// hand (compat/, mcp.ts, schema/).
import { dataEnvelopeOf } from '../../kit/answers.ts';
import type { Capabilities, InfoDoor } from '../../kit/capability.ts';
import { capability, wholeCapability } from '../../kit/capability.ts';
import * as R from '../../kit/response-schema.ts';
import { resultOf } from '../../kit/response-schema.ts';
import { LIVE_CAPABILITIES } from './live-capabilities.ts';
import { AccountStateRef } from './schema/account.ts';
import { LiquidationRef } from './schema/liquidation.ts';
import { TwapStatusChangeRef } from './schema/twap.ts';
import { UserRef } from './schema/user.ts';
import { compactFillSchema, wireFillSchema } from './service/fill-fields.ts';
import { MAX_WIRE_FILLS } from './service/fills.ts';
import { MAX_HISTORY_PAGE } from './service/history-page.ts';
import type { AccountsService } from './service/index.ts';
import {
  ALL_FILLS,
  FILL_ROWS,
  FUNDING_PAGE,
  LEDGER_PAGE,
  LIQUIDATIONS,
  TWAP_SLICE_FILLS,
  TWAP_SLICE_FILLS_BY_TIME,
  USER,
  USER_FILLS,
  USER_FILLS_BY_TIME,
} from './service/inputs.ts';
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

/** A User's fields: the account is the parent's. */
const fromUser = { user: (u: { address: string }) => u.address };

const twapSliceFillsAnswer = R.list(R.record({ fill: wireFillSchema, twapId: R.int }));

export const ACCOUNTS_CAPABILITIES: Capabilities<AccountsService> = {
  // Its routes are under three prefixes: each route states its own.
  prefix: '',
  list: [
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
        stream: (accounts, q, out) => accounts.userFillsJson(q, out),
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
        stream: (accounts, q, out) => accounts.userFillsJson(q, out),
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
    ...LIVE_CAPABILITIES,
  ],
};
