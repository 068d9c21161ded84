// LeaderboardPage: a page of a scheduled window (7d, 30d, all) ranked by a metric, or without `window` the live top
// 100 over the last `hours`, as /users/leaderboard answers it; Query.leaderboard and User.leaderboardRank are
// capabilities (../capabilities.ts).
import { builder } from '../builder.ts';
import type { LeaderboardPage, LeaderboardRow } from '../service/answers.ts';
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

export const LeaderboardPageRef = builder.objectRef<LeaderboardPage>('LeaderboardPage').implement({
  fields: (t) => ({
    window: t.exposeString('window', { nullable: true, description: 'Null: the live ranking' }),
    by: t.exposeString('by'),
    rows: t.field({ type: [RowRef], resolve: (p) => p.rows }),
    totalCount: t.exposeInt('totalCount'),
    hasMore: t.exposeBoolean('hasMore'),
    refreshedAt: t.expose('refreshedAt', { type: 'Timestamp', nullable: true }),
  }),
});
