// The analytics domain's MCP tools: the service's answers as structured content, arguments bounded by the spec's
// limits (the tool server checks them against `input`). The two batch tools cost 3 credits per wallet.
import { CALL_CREDITS, CREDITS_PER_WALLET, perWalletCredits } from '../../access/costs.ts';
import { addressArg, addressesArg, boolArg, enumArg, intArg, toolInput, windowArgs } from '../../kit/mcp-tool.ts';
import { windowOf } from '../../kit/request-schema.ts';
import type { McpTool } from '../domain.ts';
import {
  DEFAULT_LEADERBOARD_PAGE_SIZE,
  DEFAULT_LIVE_HOURS,
  DEFAULT_MIN_TRADES,
  DEFAULT_TOP_TRADES,
  EQUITY_INTERVALS,
  type EquityInterval,
  LEADERBOARD_WINDOWS,
  type LeaderboardWindow,
  LIVE_TOP,
  MAX_LEADERBOARD_PAGE,
  MAX_LEADERBOARD_PAGE_SIZE,
  MAX_LIVE_HOURS,
  MAX_MIN_TRADES,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  METRICS,
  type Metric,
  RATIO_METRICS,
  TIMEFRAMES,
  type Timeframe,
  TRADE_SORTS,
  type TradeSort,
  WINDOW_RULE,
  WINDOWS,
  type Window,
} from './service/index.ts';

const user = addressArg('the account');
const wallets = addressesArg(MAX_WALLETS, 'the wallets, answered in this order');
const windowArg = (defaultWindow: Window) =>
  enumArg(
    WINDOWS,
    `the period ending now: ${WINDOWS.join(', ')} (all = since the first fill), ${WINDOW_RULE}; default ${defaultWindow}`,
  );

type Args = Record<string, unknown>;
const opt = <T>(v: unknown) => (v === undefined ? undefined : (v as T));

export const analyticsTools: readonly McpTool[] = [
  {
    name: 'analytics_leaderboard',
    title: 'Trader leaderboard',
    description:
      `Accounts ranked by ${METRICS.join(', ')}. With \`window\` (${LEADERBOARD_WINDOWS.join(', ')}) a page of the ` +
      `scheduled ranking; without, the live top ${LIVE_TOP} over the last \`hours\`. Use it to find who trades most ` +
      'or best; for one known account use analytics_performance.',
    input: toolInput({
      window: enumArg(
        LEADERBOARD_WINDOWS,
        'rank over this scheduled window (paged); omit for the live ranking over the last `hours`',
      ),
      by: enumArg(METRICS, 'the metric to rank by, largest first; default pnl'),
      page: intArg(1, MAX_LEADERBOARD_PAGE, `page of the scheduled ranking (1 to ${MAX_LEADERBOARD_PAGE}, default 1)`),
      limit: intArg(
        1,
        MAX_LEADERBOARD_PAGE_SIZE,
        `accounts per page (1 to ${MAX_LEADERBOARD_PAGE_SIZE}, default ${DEFAULT_LEADERBOARD_PAGE_SIZE})`,
      ),
      minTrades: intArg(
        0,
        MAX_MIN_TRADES,
        `rank only accounts with at least this many closed trades; default ${DEFAULT_MIN_TRADES} for ` +
          `${RATIO_METRICS.join(' and ')}, 0 for the other metrics`,
      ),
      hours: intArg(
        1,
        MAX_LIVE_HOURS,
        `live ranking only: the last N hours (1 to ${MAX_LIVE_HOURS}, default ${DEFAULT_LIVE_HOURS}), ${WINDOW_RULE}`,
      ),
    }),
    call: async (a, { services }) => {
      const page = await services.analytics.leaderboard({
        window: opt<LeaderboardWindow>(a.window),
        by: opt<Metric>(a.by),
        page: opt<number>(a.page),
        limit: opt<number>(a.limit),
        minTrades: opt<number>(a.minTrades),
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
      "One account's performance over a window or startTime/endTime: volume, realized and net PnL, fees, funding, " +
      'wins/losses, best/worst trade, drawdowns. For several accounts at once use analytics_batch_performance; ' +
      'day by day, analytics_pnl_calendar.',
    input: toolInput(
      {
        user,
        window: windowArg('7d'),
        ...windowArgs('start of a custom period (takes precedence over window)', 'end of a custom period; default now'),
      },
      ['user'],
    ),
    call: async (a, { services }) => ({
      ...(await services.analytics.performance({
        user: a.user as string,
        window: opt<Window>(a.window),
        ...windowOf(a),
      })),
    }),
  },
  {
    name: 'analytics_batch_performance',
    title: 'Performance of many wallets',
    description:
      `Performance of 1 to ${MAX_WALLETS} wallets in one call, in submission order: the figures of ` +
      `analytics_performance, drawdowns only on request. Costs ${CREDITS_PER_WALLET} credits per wallet (for one ` +
      `wallet analytics_performance costs ${CALL_CREDITS}).`,
    input: toolInput(
      {
        addresses: wallets,
        window: windowArg('7d'),
        includeDrawdown: boolArg("add each wallet's max drawdown (trade and equity based); default false"),
      },
      ['addresses'],
    ),
    credits: (a: Args) => perWalletCredits(a.addresses),
    call: async (a, { services }) => ({
      data: await services.analytics.batchPerformance({
        users: a.addresses as string[],
        window: opt<Window>(a.window),
        includeDrawdown: opt<boolean>(a.includeDrawdown),
      }),
    }),
  },
  {
    name: 'analytics_pnl_calendar',
    title: 'Daily PnL calendar',
    description:
      'One row per UTC trading day (realized, fees, funding, net and cumulative net PnL, fills, volume, closing ' +
      'equity) over a window, with totals of profitable and losing days. For one total over the period use ' +
      'analytics_performance.',
    input: toolInput({ user, window: windowArg('30d') }, ['user']),
    call: async (a, { services }) => ({
      ...(await services.analytics.pnlCalendar({ user: a.user as string, window: opt<Window>(a.window) })),
    }),
  },
  {
    name: 'analytics_equity_history',
    title: 'Account equity history',
    description:
      "Hourly (1h) or daily-close (1d) snapshots of a perp account's value over a window, with change and max " +
      'drawdown. For PnL per day use analytics_pnl_calendar.',
    input: toolInput(
      {
        user,
        interval: enumArg(EQUITY_INTERVALS, 'one snapshot per hour (1h, default) or the close of each UTC day (1d)'),
        window: windowArg('7d'),
      },
      ['user'],
    ),
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
      "An account's best (or worst, sort=loss) round-trip trades, open to close per coin, with entry, exit, size, " +
      'notional and PnL; open positions included unless includeOpen is false. For single fills use accounts_fills.',
    input: toolInput(
      {
        user,
        sort: enumArg(TRADE_SORTS, 'pnl (default), pnl_abs (largest either way), notional, or loss (worst first)'),
        limit: intArg(1, MAX_TOP_TRADES, `how many trades (1 to ${MAX_TOP_TRADES}, default ${DEFAULT_TOP_TRADES})`),
        includeOpen: boolArg('count open positions as trades (their PnL unrealized); default true'),
      },
      ['user'],
    ),
    call: async (a, { services }) => ({
      trades: await services.analytics.topTrades({
        user: a.user as string,
        sort: opt<TradeSort>(a.sort),
        limit: opt<number>(a.limit),
        includeOpen: opt<boolean>(a.includeOpen),
      }),
    }),
  },
  {
    name: 'analytics_builder_external_activity',
    title: "Builder's wallets trading elsewhere",
    description:
      `For a builder and 1 to ${MAX_WALLETS} wallets: each wallet's fills through other builders, this builder and ` +
      "none in the timeframe; wallets trading elsewhere first. Use it to see which of a builder's users also trade " +
      `through competitors. Costs ${CREDITS_PER_WALLET} credits per wallet.`,
    input: toolInput(
      {
        builder: addressArg('the builder'),
        addresses: wallets,
        timeframe: enumArg(TIMEFRAMES, `the period ending now, ${WINDOW_RULE}; default 7d`),
        includeNoBuilder: boolArg('add the fills made without any builder; default true'),
      },
      ['builder', 'addresses'],
    ),
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
