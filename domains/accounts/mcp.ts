// The accounts domain's MCP tools written by hand (the others are its capabilities' tools, capabilities.ts and
// live-capabilities.ts): the node's state relayed, and orders. The service keeps its rules (defaults, caps, windows,
// coverage); the schemas bound what a model may send.

import type { McpTool } from '../../kit/domain.ts';
import { HISTORICAL_ORDERS, ORDER_STATUS, USER } from './service/inputs.ts';
import { HISTORICAL_ORDERS_MAX_LIMIT, orderRef } from './service/orders.ts';

type Args = Record<string, unknown>;

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

export const accountsTools: readonly McpTool[] = [
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
];
