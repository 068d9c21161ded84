// The analytics domain's MCP tools: the service's answers as structured content, arguments bounded by the spec's
// limits (the tool server checks them against `input`). The two batch tools cost 3 credits per wallet.
import { perWalletCredits } from '../../access/costs.ts';
import { timeMs } from '../../compat-rest/info/request-schema.ts';
import { ADDRESS_PATTERN } from '../../platform/fields.ts';
import type { McpTool } from '../domain.ts';
import {
  DEFAULT_TOP_TRADES,
  EQUITY_INTERVALS,
  type EquityInterval,
  LEADERBOARD_WINDOWS,
  type LeaderboardWindow,
  MAX_LEADERBOARD_PAGE,
  MAX_LEADERBOARD_PAGE_SIZE,
  MAX_LIVE_HOURS,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  METRICS,
  type Metric,
  TIMEFRAMES,
  type Timeframe,
  TRADE_SORTS,
  type TradeSort,
  WINDOWS,
  type Window,
} from './service/index.ts';

const address = { type: 'string', pattern: ADDRESS_PATTERN, description: '0x address (40 hex digits)' };
const wallets = { type: 'array', minItems: 1, maxItems: MAX_WALLETS, items: address };
const windowArg = { type: 'string', enum: [...WINDOWS] };

type Args = Record<string, unknown>;
const opt = <T>(v: unknown) => (v === undefined ? undefined : (v as T));

export const analyticsTools: readonly McpTool[] = [
  {
    name: 'analytics_leaderboard',
    title: 'Trader leaderboard',
    description:
      'Accounts ranked by volume, net pnl, closed trades, win_rate, pnl_pct or unrealized_pnl. With `window` (7d, ' +
      '30d, all) a page of the scheduled ranking; without, the live top 100 over the last `hours`. Use to find who ' +
      'trades most or best.',
    input: {
      type: 'object',
      properties: {
        window: { type: 'string', enum: [...LEADERBOARD_WINDOWS] },
        by: { type: 'string', enum: [...METRICS] },
        page: { type: 'integer', minimum: 1, maximum: MAX_LEADERBOARD_PAGE },
        limit: { type: 'integer', minimum: 1, maximum: MAX_LEADERBOARD_PAGE_SIZE },
        min_trades: { type: 'integer', minimum: 0, maximum: 1_000_000 },
        hours: { type: 'integer', minimum: 1, maximum: MAX_LIVE_HOURS },
      },
      additionalProperties: false,
    },
    call: async (a, { services }) => {
      const page = await services.analytics.leaderboard({
        window: opt<LeaderboardWindow>(a.window),
        by: opt<Metric>(a.by),
        page: opt<number>(a.page),
        limit: opt<number>(a.limit),
        minTrades: opt<number>(a.min_trades),
        hours: opt<number>(a.hours),
      });
      return { ...page };
    },
    summary: (r) => `${(r.rows as unknown[]).length} of ${r.totalCount} accounts by ${r.by}`,
  },
  {
    name: 'analytics_performance',
    title: 'Trader performance',
    description:
      "One account's performance over a window (7d default, 30d, 90d, all) or start_time/end_time (epoch ms): " +
      'volume, realized and net PnL, fees, funding, wins/losses, best/worst trade, drawdowns.',
    input: {
      type: 'object',
      required: ['user'],
      properties: {
        user: address,
        window: windowArg,
        start_time: timeMs,
        end_time: timeMs,
      },
      additionalProperties: false,
    },
    call: async (a, { services }) => ({
      ...(await services.analytics.performance({
        user: a.user as string,
        window: opt<Window>(a.window),
        startTime: opt<number>(a.start_time),
        endTime: opt<number>(a.end_time),
      })),
    }),
  },
  {
    name: 'analytics_batch_performance',
    title: 'Performance of many wallets',
    description: `Performance of 1 to ${MAX_WALLETS} wallets in one call, in submission order. Costs 3 credits per wallet.`,
    input: {
      type: 'object',
      required: ['addresses'],
      properties: { addresses: wallets, window: windowArg, include_drawdown: { type: 'boolean' } },
      additionalProperties: false,
    },
    credits: (a: Args) => perWalletCredits(a.addresses),
    call: async (a, { services }) => ({
      data: await services.analytics.batchPerformance({
        users: a.addresses as string[],
        window: opt<Window>(a.window),
        includeDrawdown: opt<boolean>(a.include_drawdown),
      }),
    }),
  },
  {
    name: 'analytics_pnl_calendar',
    title: 'Daily PnL calendar',
    description:
      'One row per UTC trading day (realized, fees, funding, net and cumulative net PnL, fills, volume, closing ' +
      'equity) over a window (30d default), with totals of profitable and losing days.',
    input: {
      type: 'object',
      required: ['user'],
      properties: { user: address, window: windowArg },
      additionalProperties: false,
    },
    call: async (a, { services }) => ({
      ...(await services.analytics.pnlCalendar({ user: a.user as string, window: opt<Window>(a.window) })),
    }),
  },
  {
    name: 'analytics_equity_history',
    title: 'Account equity history',
    description: 'Hourly (1h) or daily-close (1d) perp account snapshots over a window, with change and max drawdown.',
    input: {
      type: 'object',
      required: ['user'],
      properties: { user: address, interval: { type: 'string', enum: [...EQUITY_INTERVALS] }, window: windowArg },
      additionalProperties: false,
    },
    call: async (a, { services }) => ({
      ...(await services.analytics.equityHistory({
        user: a.user as string,
        interval: opt<EquityInterval>(a.interval),
        window: opt<Window>(a.window),
      })),
    }),
  },
  {
    name: 'analytics_top_trades',
    title: 'Best round trips',
    description:
      `An account's best round-trip trades by pnl, pnl_abs, notional or loss (1 to ${MAX_TOP_TRADES}, default ` +
      `${DEFAULT_TOP_TRADES}); open positions included unless include_open is false.`,
    input: {
      type: 'object',
      required: ['user'],
      properties: {
        user: address,
        sort: { type: 'string', enum: [...TRADE_SORTS] },
        limit: { type: 'integer', minimum: 1, maximum: MAX_TOP_TRADES },
        include_open: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    call: async (a, { services }) => ({
      trades: await services.analytics.topTrades({
        user: a.user as string,
        sort: opt<TradeSort>(a.sort),
        limit: opt<number>(a.limit),
        includeOpen: opt<boolean>(a.include_open),
      }),
    }),
  },
  {
    name: 'analytics_builder_external_activity',
    title: "Builder's wallets trading elsewhere",
    description:
      `For a builder and 1 to ${MAX_WALLETS} wallets: each wallet's fills through other builders, this builder and ` +
      'none in the timeframe (1h, 24h, 7d default, 30d); flagged wallets first. Costs 3 credits per wallet.',
    input: {
      type: 'object',
      required: ['builder', 'addresses'],
      properties: {
        builder: address,
        addresses: wallets,
        timeframe: { type: 'string', enum: [...TIMEFRAMES] },
        includeNoBuilder: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    credits: (a: Args) => perWalletCredits(a.addresses),
    call: async (a, { services }) => ({
      ...(await services.analytics.externalActivity({
        builder: a.builder as string,
        users: a.addresses as string[],
        timeframe: opt<Timeframe>(a.timeframe),
        includeNoBuilder: opt<boolean>(a.includeNoBuilder),
      })),
    }),
  },
];
