// User @key(address), owned by accounts and extended here with the account's derived history: performance, equity,
// PnL calendar, top trades and round trips. Query.batchPerformance ranks many wallets in one call.
import { builder } from '../builder.ts';
import {
  BATCH_PERFORMANCE,
  DEFAULT_TOP_TRADES,
  EQUITY_HISTORY,
  MAX_ROUND_TRIPS,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  PERFORMANCE,
  type Performance,
  PNL_CALENDAR,
  ROUND_TRIPS,
  TOP_TRADES,
} from '../service/index.ts';
import { IntervalEnum, RoundTripStatusEnum, TradeSortEnum, WindowEnum } from './enums.ts';
import { EquityHistoryRef, PerformanceRef, PnlCalendarRef, TradeRef } from './performance.ts';

interface UserParent {
  address: string;
}

export const UserRef = builder.objectRef<UserParent>('User').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    performance: t.field({
      type: PerformanceRef,
      description: 'Over `window` (default 7d); startTime/endTime take precedence',
      args: PERFORMANCE.args(t, { omit: ['user'], types: { window: WindowEnum } }),
      resolve: (u, a, ctx) => ctx.analytics.performance(PERFORMANCE.parse({ ...a, user: u.address }, 'graphql')),
    }),
    equityHistory: t.field({
      type: EquityHistoryRef,
      description: 'Hourly (1h) or daily-close (1d) snapshots of the perp account over `window` (default 7d)',
      args: EQUITY_HISTORY.args(t, { omit: ['user'], types: { interval: IntervalEnum, window: WindowEnum } }),
      resolve: (u, a, ctx) => ctx.analytics.equityHistory(EQUITY_HISTORY.parse({ ...a, user: u.address }, 'graphql')),
    }),
    pnlCalendar: t.field({
      type: PnlCalendarRef,
      description: 'One row per UTC trading day over `window` (default 30d)',
      args: PNL_CALENDAR.args(t, { omit: ['user'], types: { window: WindowEnum } }),
      resolve: (u, a, ctx) => ctx.analytics.pnlCalendar(PNL_CALENDAR.parse({ ...a, user: u.address }, 'graphql')),
    }),
    topTrades: t.field({
      type: [TradeRef],
      description: `Best round trips by \`sort\` (default PNL), 1 to ${MAX_TOP_TRADES} (default ${DEFAULT_TOP_TRADES})`,
      args: TOP_TRADES.args(t, { omit: ['user'], types: { sort: TradeSortEnum } }),
      listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx) => ctx.analytics.topTrades(TOP_TRADES.parse({ ...a, user: u.address }, 'graphql')),
    }),
    roundTrips: t.field({
      type: [TradeRef],
      description: `Round trips opened in the window, newest first, 1 to ${MAX_ROUND_TRIPS}`,
      args: ROUND_TRIPS.args(t, { omit: ['user'], types: { status: RoundTripStatusEnum } }),
      listSize: { slicingArguments: ['first'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx) => ctx.analytics.roundTrips(ROUND_TRIPS.parse({ ...a, user: u.address }, 'graphql')),
    }),
  }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});

const BatchEntryRef = builder.objectRef<{ address: string; performance: Performance }>('BatchPerformance').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    user: t.field({ type: UserRef, resolve: (e) => ({ address: e.address }) }),
    performance: t.field({ type: PerformanceRef, resolve: (e) => e.performance }),
  }),
});

builder.queryFields((t) => ({
  batchPerformance: t.field({
    type: [BatchEntryRef],
    description:
      `Performance of 1 to ${MAX_WALLETS} wallets, one entry per address in submission order; costs 3 credits per ` +
      'address (as POST /users/batch/performance)',
    args: BATCH_PERFORMANCE.args(t, { types: { window: WindowEnum } }),
    listSize: { assumedSize: MAX_WALLETS },
    resolve: async (_r, a, ctx) => {
      const entries = await ctx.analytics.batchPerformance(BATCH_PERFORMANCE.parse(a, 'graphql'));
      return entries.map((performance) => ({ address: performance.address, performance }));
    },
  }),
}));
