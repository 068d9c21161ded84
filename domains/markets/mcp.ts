// The markets domain's MCP tools: one per capability of its service (the /info types, path endpoints and /ws
// channels it serves), each calling the service as the resolvers and compat handlers do, plus bounded live tools
// that collect a stream for a few seconds. Each tool's input is its capability's definition (service/inputs.ts),
// which its call reads the arguments through.

import type { McpTool } from '../../kit/domain.ts';
import { collect } from '../../kit/mcp-tool.ts';
import { compareDecimal } from '../../platform/decimal.ts';
import { HISTORY_DATASET_NAMES, HISTORY_SERIES_NAMES } from './service/history.ts';
import {
  AVAILABLE_DATES,
  CANDLES,
  COLLECT_BBO,
  COLLECT_CANDLES,
  COLLECT_MIDS,
  COLLECT_TRADES,
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
import type { WireTrade } from './service/market-data.ts';

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
  // ---- live: a stream collected for a bounded time ----
  {
    name: 'markets_collect_trades',
    title: 'Collect live trades',
    description:
      'Waits and collects the trades of a coin as they happen, for `seconds` (1 to 60) or until `maxTrades` ' +
      '(default 500, at most 5000): for "watch BTC trades for 10 seconds". Returns the trades, their count and volume.',
    input: COLLECT_TRADES.schema,
    async call(args, { services: { markets }, signal }) {
      const { coin, seconds, maxTrades } = COLLECT_TRADES.parse(args);
      const got = await collect<WireTrade[], WireTrade>(markets.streams.trades(coin), {
        seconds,
        max: maxTrades,
        signal,
        items: (batch) => batch,
      });
      const volume = got.items.reduce((sum, t) => sum + Number(t.sz), 0);
      return { coin, trades: got.items, count: got.items.length, volume, ...stopped(got) };
    },
    summary: (r) => `${r.count} ${r.coin} trades in ${r.seconds} s (volume ${r.volume})`,
  },
  {
    name: 'markets_collect_candles',
    title: 'Collect live candle updates',
    description:
      "Follows a coin's open candle of one interval for `seconds` (1 to 60): every update, each bucket ending with a " +
      'closed frame. Starts with the open candle.',
    input: COLLECT_CANDLES.schema,
    async call(args, { services: { markets }, signal }) {
      const { coin, interval, seconds } = COLLECT_CANDLES.parse(args);
      const stream = markets.streams.candle(coin, interval);
      const first = stream.snapshot();
      const got = await collect(stream, { seconds, max: 10_000, signal });
      return { candles: first ? [first, ...got.items] : got.items, ...stopped(got) };
    },
  },
  {
    name: 'markets_collect_bbo',
    title: 'Collect best bid/offer changes',
    description:
      "Follows a coin's best bid and offer for `seconds` (1 to 60): the current one, then each change. For spread " +
      'and top-of-book moves over a short time.',
    input: COLLECT_BBO.schema,
    async call(args, { services: { markets }, signal }) {
      const { coin, seconds } = COLLECT_BBO.parse(args);
      const stream = markets.streams.bbo(coin);
      const first = stream.snapshot();
      const got = await collect(stream, { seconds, max: 10_000, signal });
      return { updates: first ? [first, ...got.items] : got.items, ...stopped(got) };
    },
  },
  {
    name: 'markets_collect_mids',
    title: 'Collect mid price changes',
    description:
      'Follows the mid prices of some coins for `seconds` (1 to 60), sampled at most every half second: first, ' +
      'last, low and high mid per coin. For "how did BTC move in the last 30 seconds".',
    input: COLLECT_MIDS.schema,
    async call(args, { services: { markets }, signal }) {
      const { coins, seconds } = COLLECT_MIDS.parse(args);
      const stream = await markets.streams.allMids(null);
      const got = await collect(stream, { seconds, max: 10_000, signal });
      const samples = [stream.snapshot(), ...got.items].filter((m) => m !== null);
      const mids = Object.fromEntries(
        coins.map((coin) => {
          // Prices stay decimal text, compared exactly.
          const pxs = samples.flatMap((m) => (m?.[coin] === undefined ? [] : [m[coin] as string]));
          if (pxs.length === 0) return [coin, null];
          const low = pxs.reduce((a, b) => (compareDecimal(b, a) < 0 ? b : a));
          const high = pxs.reduce((a, b) => (compareDecimal(b, a) > 0 ? b : a));
          return [coin, { first: pxs[0], last: pxs.at(-1), low, high }];
        }),
      );
      return { mids, samples: samples.length, ...stopped(got) };
    },
  },
];

/** How a collection ended, as live tools report it. */
function stopped(got: { stoppedBy: string; seconds: number }) {
  return { stoppedBy: got.stoppedBy, seconds: got.seconds };
}
