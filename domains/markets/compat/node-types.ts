// The rest of the node's documented /info types (hyperliquid-wire.md §3, the @nktkas/hyperliquid SDK's list): state
// the service does not index (fees, sub-accounts, staking, vaults, deploy auctions, validators...), relayed to the
// node as it answers, once the body holds the fields the exchange requires. Their answers are the node's: the
// OpenAPI schema of each says what it is and leaves its shape to the node (hyperliquid-wire.md §3). This file: the
// markets domain's side of the exchange; the per-user types are accounts' (domains/accounts/compat/node-types.ts).
import type { InfoEntry } from '../../../kit/info.ts';
import { METADATA_TTL_MS, nodeAnswer, proxied } from '../../../kit/proxy.ts';
import { COIN, DEX, NAMED_DEX, NO_INPUT, OUTCOME, TOKEN_ID, TOKEN_INDEX, VAULT } from '../service/inputs.ts';

/** A type without fields, relayed (cached `ttlMs` when its data allows). */
const global = (description: string, ttlMs = 0): InfoEntry => proxied(ttlMs, NO_INPUT, nodeAnswer(description));

/** Types of the markets domain's side of the exchange (listings, deploys, validators, vaults). */
export const nodeMarketTypes: Record<string, InfoEntry> = {
  allPerpMetas: global("every perp dex's `meta`, in perpDexs order", METADATA_TTL_MS),
  perpsAtOpenInterestCap: proxied(0, DEX, nodeAnswer('the coins at their open-interest cap (string[])')),
  perpDexLimits: proxied(0, NAMED_DEX, nodeAnswer("a HIP-3 dex's open-interest and transfer caps, or null")),
  perpDexStatus: proxied(0, NAMED_DEX, nodeAnswer("a HIP-3 dex's `{totalNetDeposit}`")),
  perpAnnotation: proxied(METADATA_TTL_MS, COIN, nodeAnswer("a perp's annotation")),
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
    TOKEN_ID,
    nodeAnswer("a spot token's details (supplies, price, genesis, deployer)"),
  ),
  borrowLendReserveState: proxied(0, TOKEN_INDEX, nodeAnswer("a token's borrow/lend reserve now")),
  usdcRouting: global('the USDC routing state'),
  outcomeMeta: global('the HIP-4 outcome markets', METADATA_TTL_MS),
  outcomeTemplates: global('the HIP-4 outcome templates', METADATA_TTL_MS),
  settledOutcome: proxied(0, OUTCOME, nodeAnswer('a settled HIP-4 outcome')),
  validatorSummaries: global('the validators (stake, commission, uptime)'),
  validatorL1Votes: global("the validators' pending L1 votes"),
  vaultSummaries: global('the vaults (name, address, leader, TVL, closed, relationship)'),
  vaultDetails: proxied(
    0,
    VAULT,
    nodeAnswer("a vault's details (portfolio, APR, followers; with `user`, their state in it)"),
  ),
};
