// The markets queries' caps and defaults: what one answer holds at most, and the windows a query defaults to.

/** Levels a side of a live book subscription (l2Book's and l2BookDiff's `nLevels`): the most and the default. */
export const MAX_L2_LEVELS = 100;
export const L2_LEVELS_DEFAULT = 20;
/** The most coins one live subscription names in `coins` (/ws l2Book, l2BookDiff, l4Book, trades, bbo). */
export const MAX_STREAM_COINS = 100;
/** The most coins one l2Books request takes. */
export const MAX_L2_BOOKS = 50;
/** The most coins one mids request (the MCP tool's `coins`) names. */
export const ALL_MIDS_MAX_COINS = 500;
/** The live tools: the most trades one collection keeps (and its default), the most coins whose mids it follows. */
export const COLLECT_MAX_TRADES = 5000;
export const COLLECT_TRADES_DEFAULT = 500;
export const COLLECT_MAX_MIDS_COINS = 50;
/** Trades of a coin per answer: the default and the most. */
export const TRADES_DEFAULT_LIMIT = 100;
export const MAX_TRADES = 1000;
/** Reserve samples per answer: the default and the most; the default window is the last RESERVE_WINDOW_MS. */
export const RESERVE_HISTORY_DEFAULT_LIMIT = 1000;
export const MAX_RESERVE_HISTORY = 10_000;
export const RESERVE_WINDOW_MS = 7 * 86_400_000;
/** HIP-3 top movers per answer: the default and the most. */
export const HIP3_TOP_MOVERS_DEFAULT = 10;
export const MAX_HIP3_TOP_MOVERS = 100;
/** Samples of one series per market-history answer: the default and the most. */
export const HISTORY_SAMPLES_DEFAULT = 100;
export const MAX_HISTORY_SAMPLES = 1000;

/** The market-history archive's default window: the last day before its end (default now). */
export const HISTORY_WINDOW_MS = 86_400_000;
