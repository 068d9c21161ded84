// The analytics domain's MCP tools: the service's answers as structured content, arguments bounded by the spec's
// limits (the tool server checks them against `input`). The two batch tools cost 3 credits per wallet.
import { CALL_CREDITS, CREDITS_PER_WALLET, perWalletCredits } from '../../access/costs.ts';
import type { McpTool } from '../../kit/domain.ts';
import {
  BATCH_PERFORMANCE,
  EQUITY_HISTORY,
  EXTERNAL_ACTIVITY,
  LEADERBOARD,
  LEADERBOARD_WINDOWS,
  LIVE_TOP,
  MAX_WALLETS,
  METRICS,
  PERFORMANCE,
  PNL_CALENDAR,
  TOP_TRADES,
} from './service/index.ts';

type Args = Record<string, unknown>;

export const analyticsTools: readonly McpTool[] = [
  {
    name: 'analytics_leaderboard',
    title: 'Trader leaderboard',
    description:
      `Accounts ranked by ${METRICS.join(', ')}. With \`window\` (${LEADERBOARD_WINDOWS.join(', ')}) a page of the ` +
      `scheduled ranking; without, the live top ${LIVE_TOP} over the last \`hours\`. Use it to find who trades most ` +
      'or best; for one known account use analytics_performance.',
    input: LEADERBOARD.schema,
    call: async (a, { services }) => {
      const page = await services.analytics.leaderboard(LEADERBOARD.parse(a));
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
    input: PERFORMANCE.schema,
    call: async (a, { services }) => ({ ...(await services.analytics.performance(PERFORMANCE.parse(a))) }),
  },
  {
    name: 'analytics_batch_performance',
    title: 'Performance of many wallets',
    description:
      `Performance of 1 to ${MAX_WALLETS} wallets in one call, in submission order: the figures of ` +
      `analytics_performance, drawdowns only on request. Costs ${CREDITS_PER_WALLET} credits per wallet (for one ` +
      `wallet analytics_performance costs ${CALL_CREDITS}).`,
    input: BATCH_PERFORMANCE.schema,
    credits: (a: Args) => perWalletCredits(a.addresses),
    call: async (a, { services }) => ({
      data: await services.analytics.batchPerformance(BATCH_PERFORMANCE.parse(a)),
    }),
  },
  {
    name: 'analytics_pnl_calendar',
    title: 'Daily PnL calendar',
    description:
      'One row per UTC trading day (realized, fees, funding, net and cumulative net PnL, fills, volume, closing ' +
      'equity) over a window, with totals of profitable and losing days. For one total over the period use ' +
      'analytics_performance.',
    input: PNL_CALENDAR.schema,
    call: async (a, { services }) => ({ ...(await services.analytics.pnlCalendar(PNL_CALENDAR.parse(a))) }),
  },
  {
    name: 'analytics_equity_history',
    title: 'Account equity history',
    description:
      "Hourly (1h) or daily-close (1d) snapshots of a perp account's value over a window, with change and max " +
      'drawdown. For PnL per day use analytics_pnl_calendar.',
    input: EQUITY_HISTORY.schema,
    call: async (a, { services }) => ({ ...(await services.analytics.equityHistory(EQUITY_HISTORY.parse(a))) }),
  },
  {
    name: 'analytics_top_trades',
    title: 'Best round trips',
    description:
      "An account's best (or worst, sort=loss) round-trip trades, open to close per coin, with entry, exit, size, " +
      'notional and PnL; open positions included unless includeOpen is false. For single fills use accounts_fills.',
    input: TOP_TRADES.schema,
    call: async (a, { services }) => ({ trades: await services.analytics.topTrades(TOP_TRADES.parse(a)) }),
  },
  {
    name: 'analytics_builder_external_activity',
    title: "Builder's wallets trading elsewhere",
    description:
      `For a builder and 1 to ${MAX_WALLETS} wallets: each wallet's fills through other builders, this builder and ` +
      "none in the timeframe; wallets trading elsewhere first. Use it to see which of a builder's users also trade " +
      `through competitors. Costs ${CREDITS_PER_WALLET} credits per wallet.`,
    input: EXTERNAL_ACTIVITY.schema,
    credits: (a: Args) => perWalletCredits(a.addresses),
    call: async (a, { services }) => ({
      ...(await services.analytics.externalActivity(EXTERNAL_ACTIVITY.parse(a))),
    }),
  },
];
