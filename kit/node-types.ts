// The rest of the node's documented /info types (hyperliquid-wire.md §3, the @nktkas/hyperliquid SDK's list): state
// the service does not index (fees, sub-accounts, staking, vaults, deploy auctions, validators...), relayed to the
// node as it answers, once the body holds the fields the exchange requires. Their answers are the node's: the
// OpenAPI schema of each says what it is and leaves its shape to the node (hyperliquid-wire.md §3).

import type { InfoEntry } from './info.ts';
import { dexBody, noFields, proxied } from './proxy.ts';
import { address, intIn, type JsonSchema, nonEmpty, object, optAddress, optTimeMs, timeMs } from './request-schema.ts';

/** Metadata that changes with a governance action or a deploy, not with trading: cached this long. */
const METADATA_TTL_MS = 30_000;

/** A relayed answer: any JSON the node sends, described. */
const nodeAnswer = (description: string): JsonSchema => ({ description: `${description}, as the node answers it` });

/** One `user` address and nothing else (the exchange's per-user types). */
const userOnly = object({ user: address }, ['user']);

/** A user type relayed uncached (a user's state changes with each of their actions). */
const ofUser = (description: string): InfoEntry => proxied(0, userOnly, nodeAnswer(description));

/** A type without fields, relayed (cached `ttlMs` when its data allows). */
const global = (description: string, ttlMs = 0): InfoEntry => proxied(ttlMs, noFields, nodeAnswer(description));

/** A perp dex's name, required (`perpDexLimits`, `perpDexStatus`; "" is the first perp dex). */
const dexRequired = object({ dex: { type: 'string', pattern: '^[^\\u0000]*$' } }, ['dex']);

/** Types of the markets domain's side of the exchange (listings, deploys, validators, vaults). */
export const nodeMarketTypes: Record<string, InfoEntry> = {
  allPerpMetas: global("every perp dex's `meta`, in perpDexs order", METADATA_TTL_MS),
  perpsAtOpenInterestCap: proxied(0, dexBody, nodeAnswer('the coins at their open-interest cap (string[])')),
  perpDexLimits: proxied(0, dexRequired, nodeAnswer("a HIP-3 dex's open-interest and transfer caps, or null")),
  perpDexStatus: proxied(0, dexRequired, nodeAnswer("a HIP-3 dex's `{totalNetDeposit}`")),
  perpAnnotation: proxied(METADATA_TTL_MS, object({ coin: nonEmpty }, ['coin']), nodeAnswer("a perp's annotation")),
  perpCategories: global("the perps' categories", METADATA_TTL_MS),
  perpConciseAnnotations: global("the perps' concise annotations", METADATA_TTL_MS),
  predictedFundings: global('the predicted funding rates per coin and venue'),
  exchangeStatus: global('`{time, specialStatuses}`'),
  liquidatable: global('the accounts now liquidatable'),
  perpDeployAuctionStatus: global('the perp deploy gas auction'),
  spotPairDeployAuctionStatus: global('the spot pair deploy gas auction'),
  gossipPriorityAuctionStatus: global('the gossip priority auction'),
  gossipRootIps: global("the gossip network's root IPs"),
  tokenDetails: proxied(
    METADATA_TTL_MS,
    object({ tokenId: { type: 'string', pattern: '^0x[0-9a-fA-F]{32}$' } }, ['tokenId']),
    nodeAnswer("a spot token's details (supplies, price, genesis, deployer)"),
  ),
  borrowLendReserveState: proxied(
    0,
    object({ token: intIn(0, 2 ** 32 - 1) }, ['token']),
    nodeAnswer("a token's borrow/lend reserve now"),
  ),
  usdcRouting: global('the USDC routing state'),
  outcomeMeta: global('the HIP-4 outcome markets', METADATA_TTL_MS),
  outcomeTemplates: global('the HIP-4 outcome templates', METADATA_TTL_MS),
  settledOutcome: proxied(0, object({ outcome: intIn(0) }, ['outcome']), nodeAnswer('a settled HIP-4 outcome')),
  validatorSummaries: global('the validators (stake, commission, uptime)'),
  validatorL1Votes: global("the validators' pending L1 votes"),
  vaultSummaries: global('the vaults (name, address, leader, TVL, closed, relationship)'),
  vaultDetails: proxied(
    0,
    object({ vaultAddress: address, user: optAddress }, ['vaultAddress']),
    nodeAnswer("a vault's details (portfolio, APR, followers; with `user`, their state in it)"),
  ),
};

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
    object({ user: address, coin: nonEmpty }, ['user', 'coin']),
    nodeAnswer("a user's leverage, max trade sizes and available-to-trade on one coin"),
  ),
  maxBuilderFee: proxied(
    0,
    object({ user: address, builder: address }, ['user', 'builder']),
    nodeAnswer('the builder fee a user approved a builder for (an integer, tenths of a basis point)'),
  ),
  preTransferCheck: proxied(
    0,
    object({ user: address, source: address }, ['user', 'source']),
    nodeAnswer('what a transfer from `source` to `user` would meet (fee, user exists, sanctioned)'),
  ),
  userBorrowLendInterest: proxied(
    0,
    object({ user: address, startTime: timeMs, endTime: optTimeMs }, ['user', 'startTime']),
    nodeAnswer("a user's borrow/lend interest in a window"),
  ),
};
