// The rest of the node's documented /info types (hyperliquid-wire.md §3, the @nktkas/hyperliquid SDK's list): state
// the service does not index (fees, sub-accounts, staking, vaults, deploy auctions, validators...), relayed to the
// node as it answers, once the body holds the fields the exchange requires. Their answers are the node's: the
// OpenAPI schema of each says what it is and leaves its shape to the node (hyperliquid-wire.md §3). This file: the
// accounts domain's side, the per-user types; the markets domain's are in domains/markets/compat/node-types.ts.
import type { InfoEntry } from '../../../kit/info.ts';
import { nodeAnswer, proxied } from '../../../kit/proxy.ts';
import { BORROW_LEND_INTEREST, TRANSFER_CHECK, USER, USER_BUILDER, USER_COIN } from '../service/inputs.ts';

/** A user type relayed uncached (a user's state changes with each of their actions). */
const ofUser = (description: string): InfoEntry => proxied(0, USER, nodeAnswer(description));

/** Per-user types of the accounts domain's side (all take `user`: a master or sub-account, not an agent). */
export const nodeUserTypes: Record<string, InfoEntry> = {
  userFees: ofUser("a user's fee schedule, rates, volume and discounts"),
  userRateLimit: ofUser("a user's request rate limit `{cumVlm, nRequestsUsed, nRequestsCap, nRequestsSurplus}`"),
  userRole: ofUser("a user's role (`missing`, `user`, `vault`, `agent`, `subAccount`)"),
  portfolio: ofUser("a user's account value and PnL history by period"),
  subAccounts: ofUser("a user's sub-accounts with their states, or null"),
  subAccounts2: ofUser("a user's sub-accounts (newer form)"),
  userVaultEquities: ofUser("a user's equity in each vault"),
  delegations: ofUser("a user's stake delegations"),
  delegatorSummary: ofUser("a user's staking summary"),
  delegatorHistory: ofUser("a user's staking history"),
  delegatorRewards: ofUser("a user's staking rewards"),
  extraAgents: ofUser("a user's approved agents"),
  approvedBuilders: ofUser('the builders a user approved'),
  referral: ofUser("a user's referral state and rewards"),
  isVip: ofUser('whether a user is VIP'),
  legalCheck: ofUser("a user's legal check"),
  spotDeployState: ofUser("a user's spot deploy state"),
  userToMultiSigSigners: ofUser("a multi-sig user's signers, or null"),
  userAbstraction: ofUser("a user's account abstraction mode"),
  userDexAbstraction: ofUser("whether a user's dex abstraction is on"),
  webData2: ofUser("the exchange front end's snapshot of a user's state"),
  activeAssetData: proxied(
    0,
    USER_COIN,
    nodeAnswer("a user's leverage, max trade sizes and available-to-trade on one coin"),
  ),
  maxBuilderFee: proxied(
    0,
    USER_BUILDER,
    nodeAnswer('the builder fee a user approved a builder for (an integer, tenths of a basis point)'),
  ),
  preTransferCheck: proxied(
    0,
    TRANSFER_CHECK,
    nodeAnswer('what a transfer from `source` to `user` would meet (fee, user exists, sanctioned)'),
  ),
  userBorrowLendInterest: proxied(0, BORROW_LEND_INTEREST, nodeAnswer("a user's borrow/lend interest in a window")),
};
