// The accounts domain's capabilities relayed to the node (kit/capability.ts): a user's state the service does not
// index (open orders, balances, clearinghouse states, fees, sub-accounts, staking, vaults, deploy auctions...), as the
// node answers it. An /info type's body is read by its input definition, then relayed as sent (its documented fields)
// and answered byte for byte (kit/proxy.ts); its OpenAPI schema says what it is and leaves its shape to the node
// (hyperliquid-wire.md §3). An MCP tool answers the node's state under its type (`{ userFees: ... }`). The markets
// domain's relayed types are in domains/markets/compat/node-types.ts.
import type { TProperties } from '@sinclair/typebox';
import type { Capability, McpDoor } from '../../kit/capability.ts';
import { wholeCapability } from '../../kit/capability.ts';
import type { Input } from '../../kit/input.ts';
import { nodeAnswer } from '../../kit/proxy.ts';
import type { JsonSchema } from '../../kit/request-schema.ts';
import * as R from '../../kit/response-schema.ts';
import type { AccountsService } from './service/index.ts';
import {
  BORROW_LEND_INTEREST,
  CLEARINGHOUSE_STATES,
  TRANSFER_CHECK,
  USER,
  USER_BUILDER,
  USER_COIN,
  USER_ON_DEX,
} from './service/inputs.ts';

/**
 * A user's state the node keeps, `type` of the node's /info: relayed uncached (a user's state changes with each of
 * their actions) on /info when `response` is given; an MCP tool when `mcp` is.
 */
function nodeState<P extends TProperties>(
  type: string,
  input: Input<P>,
  doors: { response?: JsonSchema; mcp?: McpDoor; name?: string },
): Capability<AccountsService> {
  return wholeCapability({
    name: doors.name ?? type,
    input,
    answer: (accounts: AccountsService, q) => accounts.nodeState(type, q),
    ...(doors.response ? { info: { type, relay: 0, response: doors.response } } : {}),
    ...(doors.mcp ? { mcp: doors.mcp } : {}),
  });
}

/** A per-user type relayed on /info alone (all take `user`: a master or sub-account, not an agent). */
const ofUser = (type: string, description: string) => nodeState(type, USER, { response: nodeAnswer(description) });

/** A user's state now, as an MCP tool (`user` alone), from the node. */
const tool = (type: string, name: string, title: string, description: string, response?: string) =>
  nodeState(type, USER, {
    name: response ? type : name,
    mcp: { name, title, description },
    ...(response ? { response: nodeAnswer(response) } : {}),
  });

/** clearinghouseState's body: the count of `users` refused by the definition's check, not the body schema. */
const statesSchema = (schema: JsonSchema): JsonSchema => {
  const properties = schema.properties as Record<string, JsonSchema>;
  const { minItems: _min, maxItems: _max, ...users } = properties.users ?? {};
  return { ...schema, properties: { ...properties, users } };
};

export const NODE_STATES: readonly Capability<AccountsService>[] = [
  nodeState('openOrders', USER_ON_DEX, { response: R.list(R.openOrder) }),
  nodeState('frontendOpenOrders', USER_ON_DEX, { response: R.list(R.frontendOrder) }),
  nodeState('spotClearinghouseState', USER_ON_DEX, { response: R.spotClearinghouseState }),
  /** One `user` (relayed), or several `users` answered together in the order asked. */
  wholeCapability({
    name: 'clearinghouseState',
    input: CLEARINGHOUSE_STATES,
    answer: (accounts: AccountsService, q) => accounts.clearinghouseStates(q.users ?? [], q.dex ?? ''),
    info: {
      type: 'clearinghouseState',
      schema: statesSchema,
      relay: 0,
      relayWhen: (q) => q.users === undefined,
      /** With `user`: the node's state. With `users`: `[{user, clearinghouseState}]` in the order asked. */
      response: {
        anyOf: [R.clearinghouseState, R.list(R.record({ user: R.address, clearinghouseState: R.clearinghouseState }))],
      },
    },
  }),
  tool(
    'frontendOpenOrders',
    'accounts_open_orders',
    'Open orders',
    "A user's resting orders now (coin, side, price, size, order type, trigger, reduce-only, oid, cloid), from the " +
      'node. For past orders use accounts_historical_orders; for one order, accounts_order_status.',
  ),
  tool(
    'spotClearinghouseState',
    'accounts_spot_balances',
    'Spot balances',
    "A user's spot token balances (total, on hold, entry notional), from the node.",
  ),
  tool(
    'clearinghouseState',
    'accounts_clearinghouse_state',
    'Clearinghouse state (node)',
    "A user's perp clearinghouse state exactly as the exchange node reports it (margin summary, positions with " +
      'leverage settings). accounts_account_state answers from indexed data and is usually enough.',
  ),
  tool(
    'userFees',
    'accounts_user_fees',
    'Fee schedule and rates',
    "A user's fee rates (perp and spot, taker and maker), the exchange's fee schedule with its volume tiers, the " +
      "user's daily volumes and active referral and staking discounts, from the node.",
    "a user's fee schedule, rates, volume and discounts",
  ),
  ofUser('userRateLimit', "a user's request rate limit `{cumVlm, nRequestsUsed, nRequestsCap, nRequestsSurplus}`"),
  ofUser('userRole', "a user's role (`missing`, `user`, `vault`, `agent`, `subAccount`)"),
  ofUser('portfolio', "a user's account value and PnL history by period"),
  tool(
    'subAccounts',
    'accounts_sub_accounts',
    'Sub-accounts',
    "A master account's sub-accounts (name, address, perp and spot state of each), from the node; null when it has " +
      'none.',
    "a user's sub-accounts with their states, or null",
  ),
  ofUser('subAccounts2', "a user's sub-accounts (newer form)"),
  ofUser('userVaultEquities', "a user's equity in each vault"),
  tool(
    'delegations',
    'accounts_delegations',
    'Stake delegations',
    "A user's HYPE stake delegations (validator, amount, locked until), from the node.",
    "a user's stake delegations",
  ),
  ofUser('delegatorSummary', "a user's staking summary"),
  ofUser('delegatorHistory', "a user's staking history"),
  ofUser('delegatorRewards', "a user's staking rewards"),
  ofUser('extraAgents', "a user's approved agents"),
  ofUser('approvedBuilders', 'the builders a user approved'),
  ofUser('referral', "a user's referral state and rewards"),
  ofUser('isVip', 'whether a user is VIP'),
  ofUser('legalCheck', "a user's legal check"),
  ofUser('spotDeployState', "a user's spot deploy state"),
  ofUser('userToMultiSigSigners', "a multi-sig user's signers, or null"),
  ofUser('userAbstraction', "a user's account abstraction mode"),
  ofUser('userDexAbstraction', "whether a user's dex abstraction is on"),
  ofUser('webData2', "the exchange front end's snapshot of a user's state"),
  nodeState('activeAssetData', USER_COIN, {
    response: nodeAnswer("a user's leverage, max trade sizes and available-to-trade on one coin"),
  }),
  nodeState('maxBuilderFee', USER_BUILDER, {
    response: nodeAnswer('the builder fee a user approved a builder for (an integer, tenths of a basis point)'),
  }),
  nodeState('preTransferCheck', TRANSFER_CHECK, {
    response: nodeAnswer('what a transfer from `source` to `user` would meet (fee, user exists, sanctioned)'),
  }),
  nodeState('userBorrowLendInterest', BORROW_LEND_INTEREST, {
    response: nodeAnswer("a user's borrow/lend interest in a window"),
  }),
];
