// The accounts domain's MCP tools: one per capability of its service (the /info types, path endpoints and /ws
// channels it serves), each calling the service as the resolvers and compat handlers do, plus bounded live tools.
// The service keeps its rules (defaults, caps, windows, coverage); the schemas bound what a model may send.

import {
  addressArg,
  boolArg,
  coinArg,
  collect,
  described,
  enumArg,
  intArg,
  secondsArg,
  sideArg,
  TEXT,
  textArg,
  timeArg,
  toolInput,
} from '../../kit/mcp-tool.ts';
import { windowOf } from '../../kit/request-schema.ts';
import type { McpTool } from '../domain.ts';
import {
  FILL_ROWS_DEFAULT_LIMIT,
  HISTORICAL_ORDERS_MAX_LIMIT,
  type HistoryPage,
  type HistoryPageQuery,
  LIQUIDATIONS_DEFAULT_LIMIT,
  MAX_FILL_ROWS,
  MAX_HISTORY_PAGE,
  MAX_LIQUIDATION_USERS,
  MAX_LIQUIDATIONS,
  MAX_TWAP_HISTORY,
  MAX_WIRE_FILLS,
  orderRef,
  toWsLiquidation,
  type UserEvent,
} from './service/index.ts';

type Args = Record<string, unknown>;

const user = addressArg();
const startArg = timeArg('start of the window; default the beginning of coverage');
const endArg = timeArg('end of the window; default now');

const userOf = (args: Args) => (args.user as string).toLowerCase();

/** A user's state the node keeps (open orders, balances), relayed as it answers. */
function fromNode(name: string, type: string, title: string, description: string): McpTool {
  return {
    name,
    title,
    description,
    input: toolInput({ user }, ['user']),
    call: async (args, { services }) => ({ [type]: await services.upstream.json({ type, user: userOf(args) }) }),
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
  page: (
    q: Omit<HistoryPageQuery, 'limit'> & { limit?: number },
    accounts: Parameters<McpTool['call']>[1]['services']['accounts'],
  ) => Promise<HistoryPage<unknown>>,
): McpTool {
  return {
    name,
    title,
    description:
      `${what} With startTime: that window, oldest first; without: the newest first (up to endTime). ` +
      `${MAX_HISTORY_PAGE} at most a page; pass nextCursor back as cursor for the next.`,
    input: toolInput(
      {
        user,
        startTime: timeArg('start of the window (oldest first from it); default: newest first'),
        endTime: endArg,
        limit: intArg(1, MAX_HISTORY_PAGE, `rows per page (1 to ${MAX_HISTORY_PAGE}, default ${MAX_HISTORY_PAGE})`),
        cursor: textArg('nextCursor of the previous page', { maxLength: 200 }),
      },
      ['user'],
    ),
    async call(args, { services: { accounts } }) {
      const q = { user: userOf(args), ...windowOf(args), limit: args.limit as number | undefined };
      const p = await page({ ...q, cursor: args.cursor as string | undefined }, accounts);
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
    input: toolInput({ user }, ['user']),
    call: async (args, { services: { accounts } }) => ({ account: await accounts.accountState(userOf(args)) }),
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
    input: toolInput(
      {
        user,
        startTime: timeArg('only fills from this time (switches to the window)'),
        endTime: endArg,
        aggregateByTime: boolArg('merge partial fills of one order in the same block'),
      },
      ['user'],
    ),
    async call(args, { services: { accounts } }) {
      const { startTime, endTime } = windowOf(args);
      const aggregateByTime = args.aggregateByTime as boolean | undefined;
      if (startTime === undefined) {
        if (endTime !== undefined) return { fills: [], note: 'endTime needs startTime' };
        // The JSON compat's userFills writes, copied into the answer (mcp/direct.ts), not parsed.
        return { fills: await accounts.userFillsList({ user: userOf(args), aggregateByTime }) };
      }
      const text = await accounts.userFillsByTimeJson({ user: userOf(args), startTime, endTime, aggregateByTime });
      return { fills: JSON.parse(text.toString()) as unknown[] };
    },
  },
  {
    name: 'accounts_fills',
    title: 'Fill rows (filtered, paged)',
    description:
      'Compact fill rows filtered by user, coin, side and time window, paged by cursor (pass back nextCursor), ' +
      `${MAX_FILL_ROWS} at most a page. Without a user: every user's fills (then a window of at most a day is ` +
      "needed). For a user's recent fills in the exchange's own form use accounts_user_fills.",
    input: toolInput({
      user: addressArg('only this user'),
      coin: coinArg('only this coin'),
      side: sideArg(),
      startTime: timeArg('start of the window'),
      endTime: endArg,
      limit: intArg(1, MAX_FILL_ROWS, `rows per page (1 to ${MAX_FILL_ROWS}, default ${FILL_ROWS_DEFAULT_LIMIT})`),
      cursor: described(TEXT, 'nextCursor of the previous page'),
      order: enumArg(['asc', 'desc'], 'oldest first (asc, default) or newest first (desc)'),
      includeOrderType: boolArg("add each fill's order type"),
    }),
    async call(args, { services: { accounts } }) {
      const q = {
        coin: args.coin as string | undefined,
        side: args.side as 'A' | 'B' | undefined,
        ...windowOf(args),
        limit: args.limit as number | undefined,
        cursor: args.cursor as string | undefined,
        order: (args.order as 'asc' | 'desc' | undefined) ?? 'asc',
        includeOrderType: args.includeOrderType === true,
      };
      const page =
        args.user === undefined
          ? await accounts.allFills({ ...q, startTime: q.startTime ?? accounts.now() - 3_600_000 })
          : await accounts.fillRows({ ...q, user: userOf(args) });
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
    description: "A user's TWAP slice fills, newest first (at most 2000), optionally of one TWAP and a window.",
    input: toolInput(
      { user, twapId: intArg(0, Number.MAX_SAFE_INTEGER, 'only this TWAP'), startTime: startArg, endTime: endArg },
      ['user'],
    ),
    call: async (args, { services: { accounts } }) => ({
      fills: await accounts.twapSliceFills({
        user: userOf(args),
        twapId: args.twapId as number | undefined,
        ...windowOf(args),
      }),
    }),
  },
  {
    name: 'accounts_twap_history',
    title: 'TWAP order history',
    description:
      `The status changes of a user's TWAP orders (activated, finished, terminated, error), oldest first, the newest ` +
      `${MAX_TWAP_HISTORY}: each with the TWAP's id, coin, side, size, executed size and notional, duration and start.`,
    input: toolInput({ user }, ['user']),
    call: async (args, { services: { accounts } }) => ({ twaps: await accounts.twapHistory(userOf(args)) }),
  },
  {
    name: 'accounts_historical_orders',
    title: 'Order history',
    description:
      `A user's orders with their latest status (filled, canceled, open, rejected, ...), newest first: limit 1 to ` +
      `${HISTORICAL_ORDERS_MAX_LIMIT} (default 2000), lookbackDays 1 to 365; or a window (startTime, endTime) paged ` +
      'by cursor.',
    input: toolInput(
      {
        user,
        limit: intArg(1, HISTORICAL_ORDERS_MAX_LIMIT, `orders (1 to ${HISTORICAL_ORDERS_MAX_LIMIT}, default 2000)`),
        lookbackDays: intArg(1, 365, 'only the last N days (1 to 365)'),
        startTime: timeArg('window mode: start'),
        endTime: timeArg('window mode: end'),
        cursor: described({ type: 'string', pattern: '^[0-9]{1,20}$' }, 'window mode: nextCursor of the previous page'),
      },
      ['user'],
    ),
    async call(args, { services: { accounts } }) {
      const page = await accounts.historicalOrders({
        user: userOf(args),
        limit: args.limit as number | undefined,
        lookbackDays: args.lookbackDays as number | undefined,
        ...windowOf(args),
        cursor: args.cursor as string | undefined,
      });
      return { orders: page.rows, hasMore: page.hasMore, nextCursor: page.nextCursor ?? null };
    },
  },
  {
    name: 'accounts_order_status',
    title: 'Status of one order',
    description:
      "One order's current status and details, by order id (oid) or client order id (cloid): live state, then the " +
      'node, then history; status unknownOid when no one knows it.',
    input: toolInput(
      {
        user,
        oid: described(
          { type: ['integer', 'string'], minimum: 0, pattern: '^[0-9]{1,20}$' },
          'the order id (an integer, or its decimal digits)',
        ),
        cloid: described(
          { type: 'string', pattern: '^0x[0-9a-fA-F]{32}$' },
          'the client order id (0x and 32 hex digits)',
        ),
      },
      ['user'],
    ),
    call: async (args, { services: { accounts } }) =>
      (await accounts.orderStatus({ user: userOf(args), ...orderRef(args.oid, args.cloid) })) as unknown as Args,
  },
  historyTool(
    'accounts_funding_payments',
    'Funding payments',
    "A user's hourly funding payments (coin, USDC paid or received, position size, rate).",
    'payments',
    (q, accounts) => accounts.userFunding(q),
  ),
  historyTool(
    'accounts_ledger_updates',
    'Ledger updates (non-funding)',
    "A user's non-funding ledger updates (deposits, withdrawals, transfers, liquidations, vault and spot moves). " +
      'evm_user_ledger_events answers them classified (deposit, withdrawal, agent_send between dexes, ...).',
    'updates',
    (q, accounts) => accounts.ledgerUpdates(q),
  ),
  {
    name: 'accounts_liquidations',
    title: 'Liquidations of a user',
    description:
      'Liquidations a user was in (liquidated or liquidator), most recent first. For liquidations as they happen ' +
      'use accounts_collect_liquidations.',
    input: toolInput(
      {
        user,
        limit: intArg(
          1,
          MAX_LIQUIDATIONS,
          `how many (1 to ${MAX_LIQUIDATIONS}, default ${LIQUIDATIONS_DEFAULT_LIMIT})`,
        ),
      },
      ['user'],
    ),
    call: async (args, { services: { accounts } }) => ({
      liquidations: await accounts.liquidations(
        userOf(args),
        (args.limit as number | undefined) ?? LIQUIDATIONS_DEFAULT_LIMIT,
      ),
    }),
  },
  {
    name: 'accounts_borrow_lend_state',
    title: 'Borrow/lend positions',
    description:
      "A user's borrow/lend positions (supplied and borrowed per token) and their health at current reserves.",
    input: toolInput({ user }, ['user']),
    call: async (args, { services: { accounts } }) => ({ state: await accounts.borrowLendUserState(userOf(args)) }),
  },

  // ---- live: a stream collected for a bounded time ----
  {
    name: 'accounts_collect_user_events',
    title: "Collect a user's live events",
    description:
      "Waits and collects a user's events as they happen for `seconds` (1 to 60): fills, funding payments, " +
      'liquidations and orders the exchange canceled. For "tell me what happens on this account in the next 30 s".',
    input: toolInput({ user, seconds: secondsArg('events') }, ['user', 'seconds']),
    async call(args, { services: { accounts }, signal }) {
      const got = await collect<UserEvent>(accounts.streams.userEvents(userOf(args)), {
        seconds: args.seconds as number,
        max: 10_000,
        signal,
      });
      return { events: got.items, count: got.items.length, stoppedBy: got.stoppedBy, seconds: got.seconds };
    },
  },
  {
    name: 'accounts_collect_liquidations',
    title: 'Collect live liquidations',
    description:
      'Waits and collects liquidations as they happen for `seconds` (1 to 60), filtered by users (liquidated or ' +
      'liquidator), minimum notional in dollars and builder; all filters combine.',
    input: toolInput(
      {
        users: described(
          { type: 'array', items: addressArg('an address'), minItems: 1, maxItems: MAX_LIQUIDATION_USERS },
          `only liquidations involving these addresses (up to ${MAX_LIQUIDATION_USERS})`,
        ),
        minNotional: described({ type: 'number', minimum: 0 }, 'only liquidations of at least this many dollars'),
        builder: addressArg('only liquidations through this builder'),
        seconds: secondsArg('liquidations'),
      },
      ['seconds'],
    ),
    async call(args, { services: { accounts }, signal }) {
      const stream = accounts.streams.liquidations({
        users: args.users as string[] | undefined,
        amountDollars: args.minNotional as number | undefined,
        builder: args.builder as string | undefined,
      });
      const got = await collect(stream, {
        seconds: args.seconds as number,
        max: 5_000,
        signal,
        items: (rows) => rows.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time })),
      });
      return { liquidations: got.items, count: got.items.length, stoppedBy: got.stoppedBy, seconds: got.seconds };
    },
  },
];
