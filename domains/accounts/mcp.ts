// The accounts domain's MCP tools: one per capability of its service (the /info types, path endpoints and /ws
// channels it serves), each calling the service as the resolvers and compat handlers do, plus bounded live tools.
// The service keeps its rules (defaults, caps, windows, coverage); the schemas bound what a model may send.

import type { McpTool } from '../../kit/domain.ts';
import { collect } from '../../kit/mcp-tool.ts';
import {
  COLLECT_LIQUIDATIONS,
  COLLECT_USER_EVENTS,
  FILL_ROWS,
  FUNDING_PAGE,
  HISTORICAL_ORDERS,
  HISTORICAL_ORDERS_MAX_LIMIT,
  type HistoryPage,
  LEDGER_PAGE,
  LIQUIDATIONS,
  MAX_HISTORY_PAGE,
  MAX_TWAP_HISTORY,
  MAX_WIRE_FILLS,
  ORDER_STATUS,
  orderRef,
  TWAP_SLICE_FILLS,
  toWsLiquidation,
  USER,
  USER_FILLS,
  type UserEvent,
} from './service/index.ts';

type Args = Record<string, unknown>;
type Accounts = Parameters<McpTool['call']>[1]['services']['accounts'];

/** A user's state the node keeps (open orders, balances), relayed as it answers. */
function fromNode(name: string, type: string, title: string, description: string): McpTool {
  return {
    name,
    title,
    description,
    input: USER.schema,
    call: async (args, { services }) => ({ [type]: await services.upstream.json({ type, ...USER.parse(args) }) }),
  };
}

/**
 * A user's funding or ledger history, paged as the service pages it (userFunding): with startTime the window oldest
 * first, without it the newest first; `nextCursor` continues the same question.
 */
function historyTool(
  name: string,
  title: string,
  what: string,
  key: string,
  definition: typeof FUNDING_PAGE,
  page: (q: ReturnType<typeof FUNDING_PAGE.parse>, accounts: Accounts) => Promise<HistoryPage<unknown>>,
): McpTool {
  return {
    name,
    title,
    description:
      `${what} With startTime: that window, oldest first; without: the newest first (up to endTime). ` +
      `${MAX_HISTORY_PAGE} at most a page; pass nextCursor back as cursor for the next.`,
    input: definition.schema,
    async call(args, { services: { accounts } }) {
      const p = await page(definition.parse(args), accounts);
      return { [key]: p.rows, hasMore: p.hasMore, nextCursor: p.nextCursor };
    },
  };
}

export const accountsTools: readonly McpTool[] = [
  {
    name: 'accounts_account_state',
    title: 'Account state',
    description:
      "A user's latest perp account: account value, margin used, withdrawable, and each open position (coin, size, " +
      'entry price, unrealized PnL, leverage, liquidation price), valued at live mids. Spot balances and HIP-3 dex ' +
      'positions are not included (see accounts_spot_balances).',
    input: USER.schema,
    call: async (args, { services: { accounts } }) => ({ account: await accounts.accountState(USER.parse(args).user) }),
  },
  fromNode(
    'accounts_open_orders',
    'frontendOpenOrders',
    'Open orders',
    "A user's resting orders now (coin, side, price, size, order type, trigger, reduce-only, oid, cloid), from the " +
      'node. For past orders use accounts_historical_orders; for one order, accounts_order_status.',
  ),
  fromNode(
    'accounts_spot_balances',
    'spotClearinghouseState',
    'Spot balances',
    "A user's spot token balances (total, on hold, entry notional), from the node.",
  ),
  fromNode(
    'accounts_clearinghouse_state',
    'clearinghouseState',
    'Clearinghouse state (node)',
    "A user's perp clearinghouse state exactly as the exchange node reports it (margin summary, positions with " +
      'leverage settings). accounts_account_state answers from indexed data and is usually enough.',
  ),
  fromNode(
    'accounts_user_fees',
    'userFees',
    'Fee schedule and rates',
    "A user's fee rates (perp and spot, taker and maker), the exchange's fee schedule with its volume tiers, the " +
      "user's daily volumes and active referral and staking discounts, from the node.",
  ),
  fromNode(
    'accounts_sub_accounts',
    'subAccounts',
    'Sub-accounts',
    "A master account's sub-accounts (name, address, perp and spot state of each), from the node; null when it has " +
      'none.',
  ),
  fromNode(
    'accounts_delegations',
    'delegations',
    'Stake delegations',
    "A user's HYPE stake delegations (validator, amount, locked until), from the node.",
  ),
  {
    name: 'accounts_user_fills',
    title: "A user's recent fills",
    description:
      `A user's ${MAX_WIRE_FILLS} most recent fills, newest first (coin, price, size, side, time, direction, closed ` +
      `PnL, fee, oid, tid, liquidation). With startTime, the fills of that window instead (newest ${MAX_WIRE_FILLS} of it). ` +
      'aggregateByTime merges the partial fills of one order at one time.',
    input: USER_FILLS.schema,
    async call(args, { services: { accounts } }) {
      const q = USER_FILLS.parse(args);
      if (q.startTime === undefined && q.endTime !== undefined) return { fills: [], note: 'endTime needs startTime' };
      // The JSON compat's userFills (or userFillsByTime) writes, copied into the answer (mcp/direct.ts), not parsed.
      return { fills: await accounts.userFillsList(q) };
    },
  },
  {
    name: 'accounts_fills',
    title: 'Fill rows (filtered, paged)',
    description:
      'Compact fill rows filtered by user, coin, side and time window, paged by cursor (pass back nextCursor), ' +
      `${FILL_ROWS.fields.limit.maximum} at most a page. Without a user: every user's fills (then a window of at ` +
      "most a day is needed; default the last hour). Oldest first unless order is desc. For a user's recent fills " +
      "in the exchange's own form use accounts_user_fills.",
    input: FILL_ROWS.schema,
    async call(args, { services: { accounts } }) {
      const { user, ...q } = FILL_ROWS.parse(args);
      const order = q.order ?? 'asc';
      const page =
        user === undefined
          ? await accounts.allFills({ ...q, order, startTime: q.startTime ?? accounts.now() - 3_600_000 })
          : await accounts.fillRows({ ...q, order, user });
      return {
        rows: page.rows,
        hasMore: page.hasMore,
        nextCursor: page.nextCursor ?? null,
        ...(page.totalCount === undefined ? {} : { totalCount: page.totalCount }),
      };
    },
  },
  {
    name: 'accounts_twap_slice_fills',
    title: 'TWAP slice fills',
    description: `A user's TWAP slice fills, newest first (at most ${MAX_WIRE_FILLS}), optionally of one TWAP and a window.`,
    input: TWAP_SLICE_FILLS.schema,
    call: async (args, { services: { accounts } }) => ({
      fills: await accounts.twapSliceFills(TWAP_SLICE_FILLS.parse(args)),
    }),
  },
  {
    name: 'accounts_twap_history',
    title: 'TWAP order history',
    description:
      `The status changes of a user's TWAP orders (activated, finished, terminated, error), oldest first, the newest ` +
      `${MAX_TWAP_HISTORY}: each with the TWAP's id, coin, side, size, executed size and notional, duration and start.`,
    input: USER.schema,
    call: async (args, { services: { accounts } }) => ({ twaps: await accounts.twapHistory(USER.parse(args).user) }),
  },
  {
    name: 'accounts_historical_orders',
    title: 'Order history',
    description:
      `A user's orders with their latest status (filled, canceled, open, rejected, ...), newest first: limit 1 to ` +
      `${HISTORICAL_ORDERS_MAX_LIMIT} (default 2000), lookbackDays 1 to 365; or a window (startTime, endTime) paged ` +
      'by cursor.',
    input: HISTORICAL_ORDERS.schema,
    async call(args, { services: { accounts } }) {
      const page = await accounts.historicalOrders(HISTORICAL_ORDERS.parse(args));
      return { orders: page.rows, hasMore: page.hasMore, nextCursor: page.nextCursor ?? null };
    },
  },
  {
    name: 'accounts_order_status',
    title: 'Status of one order',
    description:
      "One order's current status and details, by order id (oid) or client order id (cloid): live state, then the " +
      'node, then history; status unknownOid when no one knows it.',
    input: ORDER_STATUS.schema,
    async call(args, { services: { accounts } }) {
      const q = ORDER_STATUS.parse(args);
      return (await accounts.orderStatus({ user: q.user, ...orderRef(q.oid, q.cloid) })) as unknown as Args;
    },
  },
  historyTool(
    'accounts_funding_payments',
    'Funding payments',
    "A user's hourly funding payments (coin, USDC paid or received, position size, rate).",
    'payments',
    FUNDING_PAGE,
    (q, accounts) => accounts.userFunding(q),
  ),
  historyTool(
    'accounts_ledger_updates',
    'Ledger updates (non-funding)',
    "A user's non-funding ledger updates (deposits, withdrawals, transfers, liquidations, vault and spot moves). " +
      'evm_user_ledger_events answers them classified (deposit, withdrawal, agent_send between dexes, ...).',
    'updates',
    LEDGER_PAGE,
    (q, accounts) => accounts.ledgerUpdates(q),
  ),
  {
    name: 'accounts_liquidations',
    title: 'Liquidations of a user',
    description:
      'Liquidations a user was in (liquidated or liquidator), most recent first. For liquidations as they happen ' +
      'use accounts_collect_liquidations.',
    input: LIQUIDATIONS.schema,
    call: async (args, { services: { accounts } }) => ({
      liquidations: await accounts.liquidations(LIQUIDATIONS.parse(args)),
    }),
  },
  {
    name: 'accounts_borrow_lend_state',
    title: 'Borrow/lend positions',
    description:
      "A user's borrow/lend positions (supplied and borrowed per token) and their health at current reserves.",
    input: USER.schema,
    call: async (args, { services: { accounts } }) => ({
      state: await accounts.borrowLendUserState(USER.parse(args).user),
    }),
  },

  // ---- live: a stream collected for a bounded time ----
  {
    name: 'accounts_collect_user_events',
    title: "Collect a user's live events",
    description:
      "Waits and collects a user's events as they happen for `seconds` (1 to 60): fills, funding payments, " +
      'liquidations and orders the exchange canceled. For "tell me what happens on this account in the next 30 s".',
    input: COLLECT_USER_EVENTS.schema,
    async call(args, { services: { accounts }, signal }) {
      const { user, seconds } = COLLECT_USER_EVENTS.parse(args);
      const got = await collect<UserEvent>(accounts.streams.userEvents(user), { seconds, max: 10_000, signal });
      return { events: got.items, count: got.items.length, stoppedBy: got.stoppedBy, seconds: got.seconds };
    },
  },
  {
    name: 'accounts_collect_liquidations',
    title: 'Collect live liquidations',
    description:
      'Waits and collects liquidations as they happen for `seconds` (1 to 60), filtered by user or users ' +
      '(liquidated or liquidator), minimum notional in dollars and builder; all filters combine.',
    input: COLLECT_LIQUIDATIONS.schema,
    async call(args, { services: { accounts }, signal }) {
      const { seconds, ...filter } = COLLECT_LIQUIDATIONS.parse(args);
      const got = await collect(accounts.streams.liquidations(filter), {
        seconds,
        max: 5_000,
        signal,
        items: (rows) => rows.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time })),
      });
      return { liquidations: got.items, count: got.items.length, stoppedBy: got.stoppedBy, seconds: got.seconds };
    },
  },
];
