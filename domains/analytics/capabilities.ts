// The analytics domain's capabilities, each declared once (kit/capability.ts): its input (service/inputs.ts), its
// service call and its doors. The /users/* and /builders/* path routes (spec §4.3, each in the data envelope, times
// as naive UTC ISO: the spec's path-row convention), the MCP tools and the subgraph's Query fields and entity fields
// (User.performance, Builder.externalActivity, ...) are made from this list. Every answer is a whole answer (a
// per-user figure, a ranking page with its own paging), the service's decimal strings and epoch-ms times, which the
// GraphQL types expose as they are. /users/{user}/account is the accounts domain's, under the same /users: fastify
// keeps both domains' routes apart by path and method.
import { CALL_CREDITS, CREDITS_PER_WALLET, perWalletCredits } from '../../access/costs.ts';
import type { Capabilities } from '../../kit/capability.ts';
import { wholeCapability } from '../../kit/capability.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import { BuilderRef, ExternalActivityRef } from './schema/builder-activity.ts';
import {
  IntervalEnum,
  LeaderboardWindowEnum,
  MetricEnum,
  RoundTripStatusEnum,
  TimeframeEnum,
  TradeSortEnum,
  WindowEnum,
} from './schema/enums.ts';
import { LeaderboardPageRef } from './schema/leaderboard.ts';
import { EquityHistoryRef, PerformanceRef, PnlCalendarRef, TradeRef } from './schema/performance.ts';
import { BatchEntryRef, UserRef } from './schema/user.ts';
import type { AnalyticsService } from './service/index.ts';
import {
  BATCH_PERFORMANCE,
  BUILDER,
  DEFAULT_TOP_TRADES,
  EQUITY_HISTORY,
  EXTERNAL_ACTIVITY,
  LEADERBOARD,
  LEADERBOARD_RANK,
  LEADERBOARD_WINDOWS,
  LIVE_TOP,
  MAX_ROUND_TRIPS,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  PERFORMANCE,
  PNL_CALENDAR,
  ROUND_TRIPS,
  TOP_TRADES,
} from './service/inputs.ts';
import { METRICS } from './service/ranking.ts';

/** Epoch-ms fields of a row as naive UTC ISO (null stays null). */
function isoTimes<T extends object>(row: T, keys: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const k of keys) if (typeof out[k] === 'number') out[k] = naiveIso(out[k] as number);
  return out as T;
}

const PERIOD = ['start_time', 'end_time'];
const FILL_TIMES = ['first_fill', 'last_fill'];

/** A User's fields: the account is the parent's. */
const fromUser = { user: (u: { address: string }) => u.address };

/** A batch call costs CREDITS_PER_WALLET per wallet (access/costs.ts). */
const perWallet = ({ users }: { users: readonly string[] }) => perWalletCredits(users);

export const ANALYTICS_CAPABILITIES: Capabilities<AnalyticsService> = {
  prefix: '',
  list: [
    wholeCapability({
      name: 'leaderboard',
      input: LEADERBOARD,
      answer: (analytics, input) => analytics.leaderboard(input),
      rest: {
        paths: ['/users/leaderboard'],
        data: (page) => ({
          data: page.rows.map((r) => isoTimes(r, ['refreshed_at'])),
          page: { hasMore: page.hasMore, totalCount: page.totalCount },
          beside: {
            window: page.window,
            by: page.by,
            refreshed_at: page.refreshedAt === null ? null : naiveIso(page.refreshedAt),
          },
        }),
      },
      mcp: {
        name: 'analytics_leaderboard',
        title: 'Trader leaderboard',
        description:
          `Accounts ranked by ${METRICS.join(', ')}. With \`window\` (${LEADERBOARD_WINDOWS.join(', ')}) a page of ` +
          `the scheduled ranking; without, the live top ${LIVE_TOP} over the last \`hours\`. Use it to find who ` +
          'trades most or best; for one known account use analytics_performance.',
        summary: (r) => `${(r.rows as unknown[]).length} of ${r.totalCount} accounts by ${r.by}`,
      },
      graphql: {
        type: LeaderboardPageRef,
        description:
          'Accounts ranked by `by` (default PNL). With `window`: pages of up to 500 of the scheduled ranking (7d and ' +
          '30d refreshed every 5 minutes, ALL hourly); without: the live top 100 over the last `hours` (1 to 168). ' +
          'WIN_RATE and PNL_PCT rank only accounts with `minTrades` closed trips (default 10)',
        answer: 'leaderboard',
        types: { window: LeaderboardWindowEnum, by: MetricEnum },
        // Its rows are a page: priced per element by what is below them (router/credits.ts), as the demand estimate.
        listSize: { slicingArguments: ['limit'], sizedFields: ['rows'], requireOneSlicingArgument: false },
      },
    }),
    wholeCapability({
      name: 'performance',
      input: PERFORMANCE,
      answer: (analytics, input) => analytics.performance(input),
      rest: {
        paths: ['/users/:user/performance'],
        params: { user: 'user' },
        data: (perf) => ({ data: isoTimes(perf, PERIOD) }),
      },
      mcp: {
        name: 'analytics_performance',
        title: 'Trader performance',
        description:
          "One account's performance over a window or startTime/endTime: volume, realized and net PnL, fees, " +
          'funding, wins/losses, best/worst trade, drawdowns. For several accounts at once use ' +
          'analytics_batch_performance; day by day, analytics_pnl_calendar.',
      },
      graphql: {
        type: PerformanceRef,
        description: '',
        types: { window: WindowEnum },
        fields: [
          {
            on: UserRef,
            name: 'performance',
            description: 'Over `window` (default 7d); startTime/endTime take precedence',
            given: fromUser,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'batchPerformance',
      input: BATCH_PERFORMANCE,
      answer: (analytics, input) => analytics.batchPerformance(input),
      credits: perWallet,
      rest: {
        paths: ['/users/batch/performance'],
        method: 'POST',
        data: (entries) => ({ data: entries.map((e) => isoTimes(e, PERIOD)) }),
      },
      mcp: {
        name: 'analytics_batch_performance',
        title: 'Performance of many wallets',
        description:
          `Performance of 1 to ${MAX_WALLETS} wallets in one call, in submission order: the figures of ` +
          `analytics_performance, drawdowns only on request. Costs ${CREDITS_PER_WALLET} credits per wallet (for ` +
          `one wallet analytics_performance costs ${CALL_CREDITS}).`,
        key: 'data',
      },
      graphql: {
        type: [BatchEntryRef],
        description:
          `Performance of 1 to ${MAX_WALLETS} wallets, one entry per address in submission order; costs 3 credits ` +
          'per address (as POST /users/batch/performance)',
        answer: 'batchPerformance',
        types: { window: WindowEnum },
        listSize: { assumedSize: MAX_WALLETS },
        of: (entries: { address: string }[]) =>
          entries.map((performance) => ({ address: performance.address, performance })),
      },
    }),
    wholeCapability({
      name: 'equityHistory',
      input: EQUITY_HISTORY,
      answer: (analytics, input) => analytics.equityHistory(input),
      rest: {
        paths: ['/users/:user/equity-history'],
        params: { user: 'user' },
        data: (h) => ({
          data: h.points.map((p) => isoTimes(p, ['time'])),
          beside: { interval: h.interval, window: h.window, summary: h.summary },
        }),
      },
      mcp: {
        name: 'analytics_equity_history',
        title: 'Account equity history',
        description:
          "Hourly (1h) or daily-close (1d) snapshots of a perp account's value over a window, with change and max " +
          'drawdown. For PnL per day use analytics_pnl_calendar.',
      },
      graphql: {
        type: EquityHistoryRef,
        description: '',
        types: { interval: IntervalEnum, window: WindowEnum },
        fields: [
          {
            on: UserRef,
            name: 'equityHistory',
            description: 'Hourly (1h) or daily-close (1d) snapshots of the perp account over `window` (default 7d)',
            given: fromUser,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'pnlCalendar',
      input: PNL_CALENDAR,
      answer: (analytics, input) => analytics.pnlCalendar(input),
      rest: {
        paths: ['/users/:user/pnl-calendar'],
        params: { user: 'user' },
        data: (c) => ({ data: c.days, beside: { window: c.window, totals: c.totals } }),
      },
      mcp: {
        name: 'analytics_pnl_calendar',
        title: 'Daily PnL calendar',
        description:
          'One row per UTC trading day (realized, fees, funding, net and cumulative net PnL, fills, volume, closing ' +
          'equity) over a window, with totals of profitable and losing days. For one total over the period use ' +
          'analytics_performance.',
      },
      graphql: {
        type: PnlCalendarRef,
        description: '',
        types: { window: WindowEnum },
        fields: [
          {
            on: UserRef,
            name: 'pnlCalendar',
            description: 'One row per UTC trading day over `window` (default 30d)',
            given: fromUser,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'topTrades',
      input: TOP_TRADES,
      answer: (analytics, input) => analytics.topTrades(input),
      rest: {
        paths: ['/users/:user/top-trades'],
        params: { user: 'user' },
        // Open positions carry status `open` and no `closed_at` (spec §2.3).
        data: (trades) => ({
          data: trades.map(({ closed_at, ...t }) =>
            isoTimes(t.status === 'open' ? t : { ...t, closed_at }, ['opened_at', 'closed_at']),
          ),
        }),
      },
      mcp: {
        name: 'analytics_top_trades',
        title: 'Best round trips',
        description:
          "An account's best (or worst, sort=loss) round-trip trades, open to close per coin, with entry, exit, " +
          'size, notional and PnL; open positions included unless includeOpen is false. For single fills use ' +
          'accounts_fills.',
        key: 'trades',
      },
      graphql: {
        type: [TradeRef],
        description: '',
        types: { sort: TradeSortEnum },
        fields: [
          {
            on: UserRef,
            name: 'topTrades',
            description: `Best round trips by \`sort\` (default PNL), 1 to ${MAX_TOP_TRADES} (default ${DEFAULT_TOP_TRADES})`,
            given: fromUser,
            listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
          },
        ],
      },
    }),
    wholeCapability({
      name: 'roundTrips',
      input: ROUND_TRIPS,
      answer: (analytics, input) => analytics.roundTrips(input),
      graphql: {
        type: [TradeRef],
        description: '',
        types: { status: RoundTripStatusEnum },
        fields: [
          {
            on: UserRef,
            name: 'roundTrips',
            description: `Round trips opened in the window, newest first, 1 to ${MAX_ROUND_TRIPS}`,
            given: fromUser,
            listSize: { slicingArguments: ['first'], requireOneSlicingArgument: false },
          },
        ],
      },
    }),
    wholeCapability({
      name: 'leaderboardRank',
      input: LEADERBOARD_RANK,
      answer: (analytics, input) => analytics.leaderboardRank(input),
      graphql: {
        type: 'Int',
        description: '',
        types: { window: LeaderboardWindowEnum, by: MetricEnum },
        fields: [
          {
            on: UserRef,
            name: 'leaderboardRank',
            nullable: true,
            description:
              "The user's rank in a scheduled window's leaderboard by `by` (default PNL), as Query.leaderboard " +
              'numbers it; null when the window does not rank the user',
            given: fromUser,
          },
        ],
      },
    }),
    wholeCapability({
      name: 'externalActivity',
      input: EXTERNAL_ACTIVITY,
      answer: (analytics, input) => analytics.externalActivity(input),
      credits: perWallet,
      rest: {
        paths: ['/builders/:builder/external-activity'],
        method: 'POST',
        params: { builder: 'builder' },
        data: (a) => ({
          data: a.data.map((w) => ({
            ...w,
            externalBuilders: w.externalBuilders.map((b) => isoTimes(b, FILL_TIMES)),
            noBuilder: w.noBuilder && isoTimes(w.noBuilder, FILL_TIMES),
            own: w.own && isoTimes(w.own, FILL_TIMES),
          })),
          beside: { builder: a.builder, timeframe: a.timeframe, summary: a.summary },
        }),
      },
      mcp: {
        name: 'analytics_builder_external_activity',
        title: "Builder's wallets trading elsewhere",
        description:
          `For a builder and 1 to ${MAX_WALLETS} wallets: each wallet's fills through other builders, this builder ` +
          "and none in the timeframe; wallets trading elsewhere first. Use it to see which of a builder's users " +
          `also trade through competitors. Costs ${CREDITS_PER_WALLET} credits per wallet.`,
      },
      graphql: {
        type: ExternalActivityRef,
        description: '',
        types: { timeframe: TimeframeEnum },
        fields: [
          {
            on: BuilderRef,
            name: 'externalActivity',
            description:
              `Per wallet (1 to ${MAX_WALLETS}): fills through other builders, this one and none in the timeframe ` +
              '(default D7); flagged wallets first by external volume. Costs 3 credits per address',
            given: { builder: (b: { address: string }) => b.address },
          },
        ],
      },
    }),
    // The entity a builder's fields hang on.
    wholeCapability({
      name: 'builder',
      input: BUILDER,
      answer: async (_analytics, { address }) => ({ address }),
      graphql: { type: BuilderRef, description: 'A builder by its 0x address (any case)', answer: 'builder' },
    }),
  ],
};
