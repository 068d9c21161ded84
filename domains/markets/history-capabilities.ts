// The markets domain's capabilities of its stored history: candles, trades, funding, reserves, the history
// datasets and their coverage. Each declared once (kit/capability.ts): its input (service/inputs.ts), its service
// call and its doors (/info types, path routes, MCP tools, GraphQL fields).
import { dataEnvelopeOf, naiveTime } from '../../kit/answers.ts';
import type { Capability } from '../../kit/capability.ts';
import { wholeCapability } from '../../kit/capability.ts';
import { resultEnvelope } from '../../kit/envelopes.ts';
import * as R from '../../kit/response-schema.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import {
  AvailableDatesRef,
  DataCoverageRef,
  HistoryDatasetEnum,
  HistoryPageRef,
  HistorySeriesEnum,
  listedDates,
} from './schema/archive.ts';
import { CandleIntervalEnum, CandleRef } from './schema/candle.ts';
import { FundingRateRef, type MarketParent, MarketRef } from './schema/market.ts';
import { ReserveIntervalEnum, ReserveRef, TokenRef } from './schema/token.ts';
import { TradeRef } from './schema/trade.ts';
import {
  HISTORY_DATASET_NAMES,
  HISTORY_SERIES_NAMES,
  type HistoryPage,
  type HistorySeries,
} from './service/history.ts';
import type { MarketsService } from './service/index.ts';
import {
  AVAILABLE_DATES,
  CANDLES,
  COIN,
  FUNDING_HISTORY,
  MARKET_HISTORY,
  NO_INPUT,
  RESERVE_HISTORY,
  TOKEN_LOOKUP,
  TRADES,
} from './service/inputs.ts';
import { CANDLE_INTERVALS } from './service/intervals.ts';
import {
  MAX_RESERVE_HISTORY,
  MAX_TRADES,
  RESERVE_HISTORY_DEFAULT_LIMIT,
  TRADES_DEFAULT_LIMIT,
} from './service/limits.ts';
import { FUNDING_RATE } from './service/market-data.ts';
import { RESERVE_SAMPLE, RESERVE_STATE } from './service/reserves.ts';

const nullableDecimal = R.orNull(R.decimal);
const level = R.record({ px: R.decimal, sz: R.decimal, n: R.int });
/** Each series' samples (history.ts), newest first; `time` naive UTC ISO. */
const SERIES_ROWS = {
  bbo: R.record({
    time: naiveTime,
    bid_px: nullableDecimal,
    bid_sz: nullableDecimal,
    bid_n: R.orNull(R.int),
    ask_px: nullableDecimal,
    ask_sz: nullableDecimal,
    ask_n: R.orNull(R.int),
  }),
  spread: R.record({
    time: naiveTime,
    bid_px: R.decimal,
    ask_px: R.decimal,
    spread: R.decimal,
    spread_bps: R.decimal,
  }),
  depth: R.record({
    time: naiveTime,
    mid_px: R.decimal,
    bands: R.mapOf(R.record({ bidDepthUsd: R.decimal, askDepthUsd: R.decimal })),
  }),
  slippage: R.record({ time: naiveTime, notional: R.decimal, buy_bps: nullableDecimal, sell_bps: nullableDecimal }),
  book: R.record({ time: naiveTime, levels: R.tuple(R.list(level), R.list(level)) }),
};
/** A Market's fields: the coin is the parent's. */
const fromMarket = { coin: (m: MarketParent) => m.coin };

/** The /market path routes (each in the data envelope, times naive UTC ISO). */
const MARKET = '/market';

/** The archive of one series as `/market/<series>/{coin}` answers it: the series is the path's. */
const seriesRoute = (series: HistorySeries) =>
  wholeCapability({
    name: `${series}History`,
    input: MARKET_HISTORY,
    answer: (markets: MarketsService, q) => markets.marketHistory(q) as Promise<HistoryPage<{ time: number }>>,
    rest: {
      prefix: MARKET,
      paths: [`/${series}/:coin`],
      params: { coin: 'coin' },
      querystring: () => MARKET_HISTORY.query(['series', 'coin']),
      fields: (req) => ({ ...(req.query as object), series }),
      data: (page) => ({ data: page.rows.map((r) => ({ ...r, time: naiveIso(r.time) })), page }),
      answer: { body: dataEnvelopeOf(R.list(SERIES_ROWS[series])) },
    },
  });

export const HISTORY_CAPABILITIES: readonly Capability<MarketsService>[] = [
  wholeCapability({
    name: 'candles',
    input: CANDLES,
    answer: (markets, q) => markets.candleSnapshot(q),
    info: {
      type: 'candleSnapshot',
      nested: 'req',
      // The exchange's JSON written straight from Postgres's text (no object per candle), sent whole.
      stream: async (markets, q) => {
        const json = await markets.candleSnapshotJson(q);
        return { write: async () => json };
      },
      response: R.list(R.wireCandle),
    },
    mcp: {
      name: 'markets_candles',
      title: 'Candles (OHLCV)',
      description:
        `Candles of a coin from startTime to endTime (default now), oldest first: open, high, low, close, volume and ` +
        `trade count per bucket. Intervals: ${CANDLE_INTERVALS.join(', ')}.`,
      key: 'candles',
    },
    graphql: {
      type: [CandleRef],
      description: '',
      types: { interval: CandleIntervalEnum },
      fields: [
        {
          on: MarketRef,
          name: 'candles',
          description: 'Oldest first; at most the 5000 most recent candles of the window',
          given: fromMarket,
          listSize: { assumedSize: 500 },
        },
      ],
    },
  }),
  wholeCapability({
    name: 'recentTrades',
    input: COIN,
    answer: (markets, { coin }) => markets.recentTrades(coin, 100),
    info: { type: 'recentTrades', response: R.list(R.wireTrade) },
  }),
  wholeCapability({
    name: 'trades',
    input: TRADES,
    answer: (markets, q) => markets.trades(q),
    info: { type: 'trades', of: resultEnvelope, response: R.resultOf(R.list(R.wireTrade)) },
    mcp: {
      name: 'markets_trades',
      title: 'Trades of a coin',
      description:
        `Stored trades of a coin, most recent first (price, size, side, time, hash, the two users): the last ones, ` +
        `or those of a window. limit 1 to ${MAX_TRADES}, default ${TRADES_DEFAULT_LIMIT}. For trades as they happen use ` +
        'markets_collect_trades.',
      key: 'trades',
    },
    graphql: {
      type: [TradeRef],
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'trades',
          description: 'Most recent first',
          given: fromMarket,
          listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
        },
      ],
    },
  }),
  wholeCapability({
    name: 'fundingHistory',
    input: FUNDING_HISTORY,
    answer: (markets, q) => markets.fundingHistory(q),
    info: {
      type: 'fundingHistory',
      response: R.list(FUNDING_RATE.schema),
    },
    mcp: {
      name: 'markets_funding_history',
      title: 'Funding rate history',
      description:
        "A perp's hourly funding rates and premiums from startTime to endTime (default now), oldest first. For the " +
        "current rate use markets_asset_context; for a user's payments, accounts_funding_payments.",
      key: 'funding',
    },
    graphql: {
      type: [FundingRateRef],
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'fundingHistory',
          description: 'Hourly rates, oldest first, at most 500',
          given: fromMarket,
          listSize: { assumedSize: 500 },
        },
      ],
    },
  }),
  wholeCapability({
    name: 'reserveStates',
    input: NO_INPUT,
    answer: (markets) => markets.allReserveStates(),
    info: { type: 'allBorrowLendReserveStates', response: R.list(R.tuple(R.int, RESERVE_STATE.schema)) },
    mcp: {
      name: 'markets_reserve_states',
      title: 'Borrow/lend reserves now',
      description:
        'Every borrow/lend reserve token with its latest state: borrow and supply rates (yearly), utilization, ' +
        'total supplied and borrowed, oracle price.',
      key: 'reserves',
    },
  }),
  /** A Token by its index, without a call: its fields ask for its reserve and history. */
  wholeCapability({
    name: 'token',
    input: TOKEN_LOOKUP,
    answer: async (_markets, { index }) => ({ index }),
    graphql: { type: TokenRef, description: '', answer: 'token' },
  }),
  /** The tokens with a reserve, each with its latest sample (Token.reserve answers it without another call). */
  wholeCapability({
    name: 'tokens',
    input: NO_INPUT,
    answer: async (markets) => (await markets.latestReserves()).map((s) => ({ index: s.token, latest: s })),
    graphql: {
      type: [TokenRef],
      description: 'Every token with a borrow/lend reserve',
      answer: 'tokens',
      listSize: { assumedSize: 10 },
    },
  }),
  wholeCapability({
    name: 'reserveHistory',
    input: RESERVE_HISTORY,
    answer: (markets, q) => markets.reserveHistory(q),
    info: {
      type: 'borrowLendReserveHistory',
      response: R.record({
        token: { type: ['integer', 'null'] },
        interval: { type: ['string', 'null'] },
        history: R.list(RESERVE_SAMPLE.schema),
      }),
    },
    mcp: {
      name: 'markets_reserve_history',
      title: 'Borrow/lend reserve history',
      description:
        `Samples of borrow/lend reserves (one token or all) in a window, default the last 7 days; with interval, the ` +
        `last sample of each bucket. limit 1 to ${MAX_RESERVE_HISTORY}, default ${RESERVE_HISTORY_DEFAULT_LIMIT}.`,
      key: 'samples',
    },
    graphql: {
      type: [ReserveRef],
      description: '',
      types: { interval: ReserveIntervalEnum },
      fields: [
        {
          on: TokenRef,
          name: 'reserveHistory',
          description: 'Raw one-minute samples, or the last sample per bucket; oldest first',
          given: { token: (tok: { index: number }) => tok.index },
          listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
          of: (r) => r.history,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'historyCoins',
    input: NO_INPUT,
    answer: (markets) => markets.historyCoins(),
    rest: { prefix: MARKET, paths: ['/coins'], data: true, answer: { body: dataEnvelopeOf(R.list(R.str)) } },
    mcp: {
      name: 'markets_history_coins',
      title: 'Coins with market history',
      description:
        'Coins for which the market-history archive (bbo, spread, depth, slippage, book samples) holds data.',
      key: 'coins',
    },
    graphql: {
      type: ['String'],
      description: 'Coins for which the market-history archive holds samples',
      answer: 'historyCoins',
    },
  }),
  wholeCapability({
    name: 'marketHistory',
    input: MARKET_HISTORY,
    answer: (markets, q) => markets.marketHistory(q),
    mcp: {
      name: 'markets_history',
      title: 'Market history samples',
      description:
        `Archived samples of one series of a coin's market, newest first: ${HISTORY_SERIES_NAMES.join(', ')}. ` +
        'Window default: the day before endTime (default now). limit 1 to 1000, default 100; hasMore and nextCursor ' +
        '(pass it back as cursor) page through the window. For a summary of a window use markets_liquidity_report.',
    },
    graphql: {
      type: HistoryPageRef,
      description: '',
      types: { series: HistorySeriesEnum },
      fields: [
        {
          on: MarketRef,
          name: 'history',
          description: 'Archived samples of one series; window default: the day before endTime (default now)',
          given: fromMarket,
        },
      ],
    },
  }),
  ...HISTORY_SERIES_NAMES.map(seriesRoute),
  wholeCapability({
    name: 'availableDates',
    input: AVAILABLE_DATES,
    answer: (markets, q) => markets.availableDates(q),
    /** `{result: {coin: {dataset: ["YYYY-MM-DD", ...]}}, cursor: null}`; `coin` and `dataset` optional filters. */
    info: {
      type: 'availableDates',
      of: resultEnvelope,
      response: R.resultOf(R.mapOf(R.mapOf(R.list({ type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })))),
    },
    mcp: {
      name: 'markets_available_dates',
      title: 'Dates with archived data',
      description: `The UTC dates on which each archive dataset (${HISTORY_DATASET_NAMES.join(', ')}) holds data, per coin.`,
      key: 'dates',
    },
    graphql: {
      type: [AvailableDatesRef],
      description: 'Per coin and dataset, the UTC dates with data (the availableDates /info type)',
      answer: 'availableDates',
      types: { dataset: HistoryDatasetEnum },
      listSize: { assumedSize: 100 },
      of: listedDates,
    },
  }),
  wholeCapability({
    name: 'dataCoverage',
    input: NO_INPUT,
    // Every domain's datasets: the platform's, not this domain's alone.
    answer: (markets, _q, _selected, platform) => platform.coverage(markets.now()),
    info: {
      type: 'dataCoverage',
      of: resultEnvelope,
      response: R.resultOf(
        R.record({
          region: R.str,
          datasets: R.mapOf(
            R.record({
              start: { type: ['integer', 'null'] },
              latest: { type: ['integer', 'null'] },
              earliest: { type: ['integer', 'null'] },
              delaySeconds: { type: ['number', 'null'] },
            }),
          ),
          backfills: R.list(R.record({ lane: R.str, until: R.int, loadedThrough: R.mapOf(R.int) })),
        }),
      ),
    },
    mcp: {
      name: 'markets_data_coverage',
      title: 'Data coverage',
      description:
        'Where each dataset of this service starts and ends (fills, orders, funding, ledger, trades, candles, ...) ' +
        'and from when it is complete: check it before asking for old history.',
    },
    graphql: { type: DataCoverageRef, description: '', answer: 'dataCoverage' },
  }),
];
