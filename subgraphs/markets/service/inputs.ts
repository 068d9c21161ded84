// What the markets service's history reads take, stated once (kit/input.ts): the /info bodies, MCP inputs and
// GraphQL arguments derive from these, and every edge reads its request through them.
import { cursor, defineInput, int, named, oneOf, optional, text, time } from '../../../kit/input.ts';
import { HISTORY_DATASET_NAMES, HISTORY_SERIES_NAMES } from './history.ts';
import {
  HIP3_TOP_MOVERS_DEFAULT,
  HISTORY_SAMPLES_DEFAULT,
  MAX_HIP3_TOP_MOVERS,
  MAX_HISTORY_SAMPLES,
  MAX_RESERVE_HISTORY,
  MAX_TRADES,
  RESERVE_HISTORY_DEFAULT_LIMIT,
  TRADES_DEFAULT_LIMIT,
} from './limits.ts';
import { RESERVE_INTERVALS } from './reserves.ts';

const coin = (what = 'the coin') =>
  text(`${what}: a perp name ("BTC"), a HIP-3 dex coin ("xyz:XYZ100"), a spot pair ("PURR/USDC" or "@1")`);
const end = optional(time('end of the window; default now'));
const WINDOW = { window: ['startTime', 'endTime'] } as const;

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
