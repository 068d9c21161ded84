// The markets domain's capabilities, each declared once (kit/capability.ts): the market's present (mids, metas,
// contexts, books, HIP-3 snapshots: state-capabilities.ts) and its stored history (candles, trades, funding,
// reserves, the history datasets, coverage: history-capabilities.ts), and its live streams (the subscriptions:
// live-capabilities.ts). Its /info types, path routes, MCP tools and
// subgraph fields are made from this list; those not yet declared here are still written by hand (compat/, mcp.ts,
// schema/).
import type { Capabilities } from '../../kit/capability.ts';
import { HISTORY_CAPABILITIES } from './history-capabilities.ts';
import { LIVE_CAPABILITIES } from './live-capabilities.ts';
import type { MarketsService } from './service/index.ts';
import { STATE_CAPABILITIES } from './state-capabilities.ts';

export const MARKETS_CAPABILITIES: Capabilities<MarketsService> = {
  prefix: '',
  list: [...STATE_CAPABILITIES, ...HISTORY_CAPABILITIES, ...LIVE_CAPABILITIES],
};
