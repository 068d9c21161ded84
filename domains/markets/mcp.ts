// The markets domain's MCP tools: one per capability of its service (the /info types, path endpoints and /ws
// channels it serves), each calling the service as the resolvers and compat handlers do (the tools collecting a
// live stream for a few seconds are live-capabilities.ts'). Each tool's input is its capability's definition (service/inputs.ts),
// which its call reads the arguments through.

import type { McpTool } from '../../kit/domain.ts';
import { HISTORY_DATASET_NAMES, HISTORY_SERIES_NAMES } from './service/history.ts';
import {
  AVAILABLE_DATES,
  CANDLES,
  FUNDING_HISTORY,
  MARKET_HISTORY,
  NO_INPUT,
  RESERVE_HISTORY,
  TRADES,
} from './service/inputs.ts';
import { CANDLE_INTERVALS } from './service/intervals.ts';
import {
  MAX_RESERVE_HISTORY,
  MAX_TRADES,
  RESERVE_HISTORY_DEFAULT_LIMIT,
  TRADES_DEFAULT_LIMIT,
} from './service/limits.ts';

export const marketsTools: readonly McpTool[] = [
  {
    name: 'markets_candles',
    title: 'Candles (OHLCV)',
    description:
      `Candles of a coin from startTime to endTime (default now), oldest first: open, high, low, close, volume and ` +
      `trade count per bucket. Intervals: ${CANDLE_INTERVALS.join(', ')}.`,
    input: CANDLES.schema,
    call: async (args, { services: { markets } }) => ({ candles: await markets.candleSnapshot(CANDLES.parse(args)) }),
  },
  {
    name: 'markets_trades',
    title: 'Trades of a coin',
    description:
      `Stored trades of a coin, most recent first (price, size, side, time, hash, the two users): the last ones, ` +
      `or those of a window. limit 1 to ${MAX_TRADES}, default ${TRADES_DEFAULT_LIMIT}. For trades as they happen use ` +
      'markets_collect_trades.',
    input: TRADES.schema,
    async call(args, { services: { markets } }) {
      const trades = await markets.trades(TRADES.parse(args));
      return { trades };
    },
  },
  {
    name: 'markets_funding_history',
    title: 'Funding rate history',
    description:
      "A perp's hourly funding rates and premiums from startTime to endTime (default now), oldest first. For the " +
      "current rate use markets_asset_context; for a user's payments, accounts_funding_payments.",
    input: FUNDING_HISTORY.schema,
    async call(args, { services: { markets } }) {
      return { funding: await markets.fundingHistory(FUNDING_HISTORY.parse(args)) };
    },
  },
  {
    name: 'markets_reserve_states',
    title: 'Borrow/lend reserves now',
    description:
      'Every borrow/lend reserve token with its latest state: borrow and supply rates (yearly), utilization, ' +
      'total supplied and borrowed, oracle price.',
    input: NO_INPUT.schema,
    call: async (_args, { services: { markets } }) => ({ reserves: await markets.allReserveStates() }),
  },
  {
    name: 'markets_reserve_history',
    title: 'Borrow/lend reserve history',
    description:
      `Samples of borrow/lend reserves (one token or all) in a window, default the last 7 days; with interval, the ` +
      `last sample of each bucket. limit 1 to ${MAX_RESERVE_HISTORY}, default ${RESERVE_HISTORY_DEFAULT_LIMIT}.`,
    input: RESERVE_HISTORY.schema,
    async call(args, { services: { markets } }) {
      const samples = await markets.reserveHistory(RESERVE_HISTORY.parse(args));
      return { samples };
    },
  },
  {
    name: 'markets_history_coins',
    title: 'Coins with market history',
    description: 'Coins for which the market-history archive (bbo, spread, depth, slippage, book samples) holds data.',
    input: NO_INPUT.schema,
    call: async (_args, { services: { markets } }) => ({ coins: await markets.historyCoins() }),
  },
  {
    name: 'markets_history',
    title: 'Market history samples',
    description:
      `Archived samples of one series of a coin's market, newest first: ${HISTORY_SERIES_NAMES.join(', ')}. ` +
      'Window default: the day before endTime (default now). limit 1 to 1000, default 100; hasMore and nextCursor ' +
      '(pass it back as cursor) page through the window. For a summary of a window use markets_liquidity_report.',
    input: MARKET_HISTORY.schema,
    async call(args, { services: { markets } }) {
      return { ...(await markets.marketHistory(MARKET_HISTORY.parse(args))) };
    },
  },
  {
    name: 'markets_available_dates',
    title: 'Dates with archived data',
    description: `The UTC dates on which each archive dataset (${HISTORY_DATASET_NAMES.join(', ')}) holds data, per coin.`,
    input: AVAILABLE_DATES.schema,
    async call(args, { services: { markets } }) {
      const dates = await markets.availableDates(AVAILABLE_DATES.parse(args));
      return { dates };
    },
  },
  {
    name: 'markets_data_coverage',
    title: 'Data coverage',
    description:
      'Where each dataset of this service starts and ends (fills, orders, funding, ledger, trades, candles, ...) ' +
      'and from when it is complete: check it before asking for old history.',
    input: NO_INPUT.schema,
    call: async (_args, { services: { markets, coverage } }) => ({ ...(await coverage(markets.now())) }),
  },
];
