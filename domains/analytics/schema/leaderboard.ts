// Query.leaderboard: a page of a scheduled window (7d, 30d, all) ranked by a metric, or without `window` the live
// top 100 over the last `hours`, as /users/leaderboard answers it.
import { builder } from '../builder.ts';
import type { LeaderboardPage, LeaderboardRow } from '../service/index.ts';
import { LEADERBOARD, LEADERBOARD_RANK } from '../service/index.ts';
import { LeaderboardWindowEnum, MetricEnum } from './enums.ts';
import { UserRef } from './user.ts';

const RowRef = builder.objectRef<LeaderboardRow>('LeaderboardRow').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    address: t.exposeString('address'),
    user: t.field({ type: UserRef, resolve: (r) => ({ address: r.address }) }),
    fills: t.exposeInt('fills'),
    trades: t.exposeInt('trades', { description: 'Closed round trips' }),
    volume: t.expose('volume', { type: 'Decimal' }),
    realizedPnl: t.expose('realized_pnl', { type: 'Decimal' }),
    fees: t.expose('fees', { type: 'Decimal' }),
    funding: t.expose('funding', { type: 'Decimal' }),
    pnl: t.expose('pnl', { type: 'Decimal', description: 'realized − fees + funding' }),
    wins: t.exposeInt('wins'),
    losses: t.exposeInt('losses'),
    winRate: t.expose('win_rate', { type: 'Decimal', nullable: true }),
    pnlPct: t.expose('pnl_pct', {
      type: 'Decimal',
      nullable: true,
      description: 'Net PnL / traded volume, in percent',
    }),
    accountValue: t.expose('account_value', { type: 'Decimal', nullable: true }),
    unrealizedPnl: t.expose('unrealized_pnl', { type: 'Decimal', nullable: true }),
    refreshedAt: t.expose('refreshed_at', { type: 'Timestamp' }),
  }),
});

const PageRef = builder.objectRef<LeaderboardPage>('LeaderboardPage').implement({
  fields: (t) => ({
    window: t.exposeString('window', { nullable: true, description: 'Null: the live ranking' }),
    by: t.exposeString('by'),
    rows: t.field({ type: [RowRef], resolve: (p) => p.rows }),
    totalCount: t.exposeInt('totalCount'),
    hasMore: t.exposeBoolean('hasMore'),
    refreshedAt: t.expose('refreshedAt', { type: 'Timestamp', nullable: true }),
  }),
});

builder.queryFields((t) => ({
  leaderboard: t.field({
    type: PageRef,
    description:
      'Accounts ranked by `by` (default PNL). With `window`: pages of up to 500 of the scheduled ranking (7d and ' +
      '30d refreshed every 5 minutes, ALL hourly); without: the live top 100 over the last `hours` (1 to 168). ' +
      'WIN_RATE and PNL_PCT rank only accounts with `minTrades` closed trips (default 10)',
    args: LEADERBOARD.args(t, { types: { window: LeaderboardWindowEnum, by: MetricEnum } }),
    // Its rows are a page: priced per element by what is below them (router/credits.ts), as the demand estimate.
    listSize: { slicingArguments: ['limit'], sizedFields: ['rows'], requireOneSlicingArgument: false },
    resolve: (_r, a, ctx) => ctx.analytics.leaderboard(LEADERBOARD.parse(a, 'graphql')),
  }),
}));

builder.objectFields(UserRef, (t) => ({
  leaderboardRank: t.int({
    nullable: true,
    description:
      "The user's rank in a scheduled window's leaderboard by `by` (default PNL), as Query.leaderboard numbers it; " +
      'null when the window does not rank the user',
    args: LEADERBOARD_RANK.args(t, { omit: ['user'], types: { window: LeaderboardWindowEnum, by: MetricEnum } }),
    resolve: (u, a, ctx) => ctx.analytics.leaderboardRank(LEADERBOARD_RANK.parse({ ...a, user: u.address }, 'graphql')),
  }),
}));
