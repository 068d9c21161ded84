// What the markets service's reads take, stated once (kit/input.ts): the /info bodies, path routes, MCP inputs and
// GraphQL arguments derive from these, and every edge reads its request through them.
import {
  address,
  bool,
  cursor,
  defineInput,
  type InputOf,
  int,
  intOf,
  list,
  named,
  oneOf,
  optional,
  seconds,
  text,
  time,
} from '../../../kit/input.ts';
import { FieldError } from '../../../platform/fields.ts';
import { BookQueryError } from './book/aggregation.ts';
import { HISTORY_DATASET_NAMES, HISTORY_SERIES_NAMES } from './history.ts';
import { CANDLE_INTERVALS } from './intervals.ts';
import {
  ALL_MIDS_MAX_COINS,
  COLLECT_MAX_MIDS_COINS,
  COLLECT_MAX_TRADES,
  COLLECT_TRADES_DEFAULT,
  HIP3_TOP_MOVERS_DEFAULT,
  HISTORY_SAMPLES_DEFAULT,
  L2_LEVELS_DEFAULT,
  MAX_HIP3_TOP_MOVERS,
  MAX_HISTORY_SAMPLES,
  MAX_L2_BOOKS,
  MAX_L2_LEVELS,
  MAX_RESERVE_HISTORY,
  MAX_STREAM_COINS,
  MAX_TRADES,
  RESERVE_HISTORY_DEFAULT_LIMIT,
  TRADES_DEFAULT_LIMIT,
} from './limits.ts';
import { RESERVE_INTERVALS } from './reserves.ts';

const coin = (what = 'the coin') =>
  text(`${what}: a perp name ("BTC"), a HIP-3 dex coin ("xyz:XYZ100"), a spot pair ("PURR/USDC" or "@1")`);
const end = optional(time('end of the window; default now'));
const WINDOW = { window: ['startTime', 'endTime'] } as const;
/** A perp dex's name; absent, null or "" is the first (main) perp dex. */
const dex = optional(text('a HIP-3 perp dex name; omit (or "") for the main perp dex', { minLength: 0 }));

/** Nothing: the capabilities that take no input (spot meta, data coverage, history coins, reserve states). */
export const NO_INPUT = defineInput({});

/** One coin: market info, asset context, best bid/offer, current depth, recent trades, a market by its coin. */
export const COIN = defineInput({ coin: coin() });

/** A perp dex: its meta and its asset contexts. */
export const DEX = defineInput({ dex });

/** Mids by the exchange's `dex` rule (MarketsService.dexMids), optionally only some coins. */
export const ALL_MIDS = defineInput({
  dex,
  coins: optional(
    list(coin('a coin'), `only these coins (up to ${ALL_MIDS_MAX_COINS})`, {
      min: 1,
      max: ALL_MIDS_MAX_COINS,
      rule: `must hold 1 to ${ALL_MIDS_MAX_COINS} coins`,
    }),
  ),
});

/**
 * A book's aggregation, the exchange's rule: nSigFigs 2 to 5; mantissa 1, 2 or 5, and only with nSigFigs 5 (null and
 * absent both mean none).
 */
const aggregation = {
  nSigFigs: optional(
    int('aggregate price levels to this many significant figures (2 to 5); omit or null for full precision', {
      min: 2,
      max: 5,
    }),
  ),
  mantissa: optional(intOf([1, 2, 5] as const, 'with nSigFigs 5 only: round levels to 1, 2 or 5')),
};
const AGGREGATION = {
  check(input: { nSigFigs?: number; mantissa?: number }, name: (key: 'mantissa') => string) {
    if (input.mantissa !== undefined && input.nSigFigs !== 5) {
      throw new BookQueryError(`${name('mantissa')}: only with nSigFigs 5`);
    }
  },
};

export const L2_BOOK = defineInput({ coin: coin(), ...aggregation }, AGGREGATION);

/** How many levels a side a live book sends (order_book_server's `nLevels`). */
const nLevels = optional(
  int(`levels a side, 1 to ${MAX_L2_LEVELS}; default ${L2_LEVELS_DEFAULT}`, { min: 1, max: MAX_L2_LEVELS }),
);

/** A live book, every block it changes (l2BookDiff; GraphQL's l2Book and l2BookDiff): a book and its depth. */
export const L2_BOOK_DIFF = defineInput({ ...L2_BOOK.fields, nLevels }, AGGREGATION);

/**
 * What a live /ws subscription follows (l2Book, l2BookDiff, l4Book, trades, bbo): exactly one of `coin`, `coins` (1 to
 * MAX_STREAM_COINS, as GoldRush's and Alchemy's `coins`) or `dex`, every market of a perp dex ("" the main dex: its
 * perps and the spot pairs, as allMids without `dex`). Each coin counts as one subscription: in the connection's cap,
 * the key's rate limit and its credits (access/costs.ts subscribeCredits).
 */
const coinSelection = {
  coin: optional(coin()),
  coins: optional(
    list(coin('a coin'), `the coins (1 to ${MAX_STREAM_COINS}), in place of coin`, {
      min: 1,
      max: MAX_STREAM_COINS,
      rule: `must hold 1 to ${MAX_STREAM_COINS} coins`,
    }),
  ),
  dex: optional(
    text('every market of this perp dex, in place of coin ("" the main dex: its perps and the spot pairs)', {
      minLength: 0,
    }),
  ),
};
const SELECTION_KEYS = ['coin', 'coins', 'dex'] as const;

/** Exactly one of coin, coins and dex (a refusal names the first field sent, or `coin` when none was). */
function checkSelection(input: { coin?: string; coins?: string[]; dex?: string }, name: (key: 'coin') => string) {
  const given = SELECTION_KEYS.filter((k) => input[k] !== undefined);
  if (given.length === 1) return;
  if (given.length === 0) {
    throw new FieldError(
      `${name('coin')}: is required (or coins, a list of 1 to ${MAX_STREAM_COINS} coins, or dex, every market of a perp dex)`,
    );
  }
  throw new FieldError(`${given[1]}: only one of coin, coins and dex, got ${given.join(' and ')}`);
}

const SELECTION = { check: checkSelection };
const AGGREGATED_SELECTION = {
  check(
    input: { coin?: string; coins?: string[]; dex?: string; nSigFigs?: number; mantissa?: number },
    name: (key: 'mantissa' | 'coin') => string,
  ) {
    checkSelection(input, name);
    AGGREGATION.check(input, name);
  },
};

/** What a live subscription's coin selection reads as: a list of coins, or a dex to resolve (MarketsService.dexCoins). */
export type CoinSelection = { coin?: string; coins?: string[]; dex?: string };

/** The /ws l2BookDiff channel's: L2_BOOK_DIFF over one coin, many or a dex. */
export const L2_BOOK_DIFF_STREAM = defineInput({ ...coinSelection, ...aggregation, nLevels }, AGGREGATED_SELECTION);

/**
 * The /ws l2Book channel's: a live book and the TS SDK's `fast`, the exchange's shallow book (without nLevels), over
 * one coin, many or a dex.
 */
export const L2_BOOK_STREAM = defineInput(
  { ...L2_BOOK_DIFF_STREAM.fields, fast: optional(bool('the shallow book: 5 levels a side instead of 20')) },
  AGGREGATED_SELECTION,
);

/** The /ws l4Book, trades and bbo channels': one coin, many or a dex. */
export const COIN_STREAM = defineInput(coinSelection, SELECTION);

export const L2_BOOKS = defineInput(
  {
    coins: list(coin('a coin'), `the coins (1 to ${MAX_L2_BOOKS})`, {
      min: 1,
      max: MAX_L2_BOOKS,
      rule: `must hold 1 to ${MAX_L2_BOOKS} coins`,
    }),
    ...aggregation,
  },
  AGGREGATION,
);

/** A coin's L4 book (every resting order): its snapshot and its per-block updates. */
export const L4_BOOK = defineInput({ coin: coin() });

/** A book's aggregation as the service takes it. */
export type Aggregation = Pick<InputOf<typeof L2_BOOK>, 'nSigFigs' | 'mantissa'>;

const interval = oneOf(CANDLE_INTERVALS, 'bucket size');

/** A coin's candles of one interval in a window (candleSnapshot; its /info body nests them in `req`). */
export const CANDLES = defineInput(
  { coin: coin(), interval, startTime: time('start of the window'), endTime: end },
  WINDOW,
);

/** A coin's live candle of one interval. */
export const CANDLE_STREAM = defineInput({ coin: coin(), interval });

/** Every coin's live candles of one interval. */
export const ALL_CANDLES_STREAM = defineInput({ interval });

// ---- live tools: a stream collected for a bounded time ----

export const COLLECT_TRADES = defineInput({
  coin: coin(),
  seconds: seconds('trades'),
  maxTrades: int(`stop after this many trades (1 to ${COLLECT_MAX_TRADES}, default ${COLLECT_TRADES_DEFAULT})`, {
    min: 1,
    max: COLLECT_MAX_TRADES,
    default: COLLECT_TRADES_DEFAULT,
  }),
});

export const COLLECT_CANDLES = defineInput({ ...CANDLE_STREAM.fields, seconds: seconds('candle updates') });

export const COLLECT_BBO = defineInput({ coin: coin(), seconds: seconds('changes') });

export const COLLECT_MIDS = defineInput({
  coins: list(coin('a coin'), `the coins to follow (1 to ${COLLECT_MAX_MIDS_COINS})`, {
    min: 1,
    max: COLLECT_MAX_MIDS_COINS,
    rule: `must hold 1 to ${COLLECT_MAX_MIDS_COINS} coins`,
  }),
  seconds: seconds('mids'),
});

export const TRADES = defineInput(
  {
    coin: coin(),
    limit: int(`how many trades (1 to ${MAX_TRADES}, default ${TRADES_DEFAULT_LIMIT})`, {
      min: 1,
      max: MAX_TRADES,
      default: TRADES_DEFAULT_LIMIT,
    }),
    startTime: optional(time('start of the window')),
    endTime: end,
  },
  WINDOW,
);

export const FUNDING_HISTORY = defineInput(
  { coin: coin('the perp'), startTime: time('start of the window'), endTime: end },
  WINDOW,
);

export const RESERVE_HISTORY = defineInput(
  {
    token: optional(int('the reserve token index; omit for every token', { min: 0, max: Number.MAX_SAFE_INTEGER })),
    interval: optional(oneOf(RESERVE_INTERVALS, 'downsample to one sample per bucket')),
    limit: int(`how many samples (1 to ${MAX_RESERVE_HISTORY}, default ${RESERVE_HISTORY_DEFAULT_LIMIT})`, {
      min: 1,
      max: MAX_RESERVE_HISTORY,
      default: RESERVE_HISTORY_DEFAULT_LIMIT,
    }),
    startTime: optional(time('start of the window; default 7 days before the end')),
    endTime: end,
  },
  WINDOW,
);

export const MARKET_HISTORY = defineInput(
  {
    series: oneOf(HISTORY_SERIES_NAMES, 'which series'),
    coin: coin(),
    limit: int(`how many samples (1 to ${MAX_HISTORY_SAMPLES}, default ${HISTORY_SAMPLES_DEFAULT})`, {
      min: 1,
      max: MAX_HISTORY_SAMPLES,
      default: HISTORY_SAMPLES_DEFAULT,
    }),
    startTime: optional(time('start of the window; default one day before the end')),
    endTime: end,
    // GraphQL calls it `cursor` too: the samples before a page, not a Relay connection's `after`.
    cursor: optional(
      named(
        cursor('the nextCursor of a page: the samples before it', {
          maxLength: 32,
          pattern: '^\\d{1,16}$',
          rule: 'must be the next_cursor of a page (a sample time in epoch ms)',
        }),
        { graphql: 'cursor' },
      ),
    ),
  },
  WINDOW,
);

export const LIQUIDITY_REPORT = defineInput(
  { coin: coin(), startTime: optional(time('start; default one day before the end')), endTime: end },
  WINDOW,
);

export const AVAILABLE_DATES = defineInput({
  coin: optional(coin('only this coin')),
  dataset: optional(oneOf(HISTORY_DATASET_NAMES, 'only this dataset')),
});

export const HIP3_SNAPSHOTS = defineInput({
  dexId: optional(text('only this HIP-3 dex')),
  coin: optional(coin('only this coin')),
});

export const HIP3_TOP_MOVERS = defineInput({
  limit: int(`how many coins (1 to ${MAX_HIP3_TOP_MOVERS}, default ${HIP3_TOP_MOVERS_DEFAULT})`, {
    min: 1,
    max: MAX_HIP3_TOP_MOVERS,
    default: HIP3_TOP_MOVERS_DEFAULT,
  }),
});

// ---- relayed to the node as sent, once read by these (state-capabilities.ts) ----

/** A perp dex's name, required (perpDexLimits, perpDexStatus); "" is the first perp dex. */
export const NAMED_DEX = defineInput({ dex: text('a perp dex name ("" for the main perp dex)', { minLength: 0 }) });

/** marginTable: a margin table's id (a u32 on the exchange). */
export const MARGIN_TABLE = defineInput({ id: int('a margin table id', { min: 0, max: 2 ** 32 - 1 }), dex });

/** leadingVaults: the vaults a user leads. */
export const VAULT_LEADER = defineInput({ user: address('the vault leader'), dex });

/** vaultDetails: a vault, and with `user` their state in it. */
export const VAULT = defineInput({ vaultAddress: address('the vault'), user: optional(address('a depositor')) });

/** tokenDetails: a spot token by its id. */
export const TOKEN_ID = defineInput({
  tokenId: text("a spot token's id (0x and 32 hex digits)", {
    pattern: '^0x[0-9a-fA-F]{32}$',
    rule: 'must be a token id (0x followed by 32 hex digits)',
  }),
});

/**
 * A Token as the graph looks it up (GraphQL's `token`), by its index (a u32 on the exchange). No description: the
 * argument prints as it was written by hand.
 */
export const TOKEN_LOOKUP = defineInput({ index: int('', { min: 0, max: 2 ** 32 - 1 }) });

/** borrowLendReserveState: a token by its index (a u32 on the exchange). */
export const TOKEN_INDEX = defineInput({ token: int('a token index', { min: 0, max: 2 ** 32 - 1 }) });

/** settledOutcome: a HIP-4 outcome by its id. */
export const OUTCOME = defineInput({ outcome: int('an outcome id', { min: 0, max: Number.MAX_SAFE_INTEGER }) });
