// User @key(address), owned by accounts and extended here with the account's derived history: performance, equity,
// PnL calendar, top trades and round trips. Query.batchPerformance ranks many wallets in one call.
import { builder } from '../builder.ts';
import {
  DEFAULT_TOP_TRADES,
  MAX_ROUND_TRIPS,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  type Performance,
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
      args: {
        window: t.arg({ type: WindowEnum }),
        startTime: t.arg({ type: 'Timestamp' }),
        endTime: t.arg({ type: 'Timestamp' }),
      },
      resolve: (u, a, ctx) =>
        ctx.analytics.performance({
          user: u.address,
          window: a.window ?? undefined,
          startTime: a.startTime ?? undefined,
          endTime: a.endTime ?? undefined,
        }),
    }),
    equityHistory: t.field({
      type: EquityHistoryRef,
      description: 'Hourly (1h) or daily-close (1d) snapshots of the perp account over `window` (default 7d)',
      args: { interval: t.arg({ type: IntervalEnum }), window: t.arg({ type: WindowEnum }) },
      resolve: (u, a, ctx) =>
        ctx.analytics.equityHistory({
          user: u.address,
          interval: a.interval ?? undefined,
          window: a.window ?? undefined,
        }),
    }),
    pnlCalendar: t.field({
      type: PnlCalendarRef,
      description: 'One row per UTC trading day over `window` (default 30d)',
      args: { window: t.arg({ type: WindowEnum }) },
      resolve: (u, a, ctx) => ctx.analytics.pnlCalendar({ user: u.address, window: a.window ?? undefined }),
    }),
    topTrades: t.field({
      type: [TradeRef],
      description: `Best round trips by \`sort\` (default PNL), 1 to ${MAX_TOP_TRADES} (default ${DEFAULT_TOP_TRADES})`,
      args: {
        sort: t.arg({ type: TradeSortEnum }),
        limit: t.arg.int({ defaultValue: DEFAULT_TOP_TRADES }),
        includeOpen: t.arg.boolean({ defaultValue: true }),
      },
      listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx) =>
        ctx.analytics.topTrades({
          user: u.address,
          sort: a.sort ?? undefined,
          limit: a.limit ?? undefined,
          includeOpen: a.includeOpen ?? undefined,
        }),
    }),
    roundTrips: t.field({
      type: [TradeRef],
      description: `Round trips opened in the window, newest first, 1 to ${MAX_ROUND_TRIPS}`,
      args: {
        status: t.arg({ type: RoundTripStatusEnum }),
        startTime: t.arg({ type: 'Timestamp' }),
        endTime: t.arg({ type: 'Timestamp' }),
        first: t.arg.int({ defaultValue: 100 }),
      },
      listSize: { slicingArguments: ['first'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx) =>
        ctx.analytics.roundTrips({
          user: u.address,
          status: a.status ?? undefined,
          startTime: a.startTime ?? undefined,
          endTime: a.endTime ?? undefined,
          limit: a.first ?? undefined,
        }),
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
    args: {
      addresses: t.arg.stringList({ required: true }),
      window: t.arg({ type: WindowEnum }),
      includeDrawdown: t.arg.boolean({ defaultValue: false }),
    },
    listSize: { assumedSize: MAX_WALLETS },
    resolve: async (_r, a, ctx) => {
      const entries = await ctx.analytics.batchPerformance({
        users: a.addresses,
        window: a.window ?? undefined,
        includeDrawdown: a.includeDrawdown ?? false,
      });
      return entries.map((performance) => ({ address: performance.address, performance }));
    },
  }),
}));
