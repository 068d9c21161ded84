// Hip4Fill: one side of a match on an outcome coin, or a settlement fill; the fill list, the statistics per venue
// (providers) and per time bucket (analytics) over them (their Query fields: capabilities.ts; the live fills
// subscription: live-capabilities.ts).
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { AnalyticsBucket } from '../service/fills.ts';
import { AnalyticsRef, Hip4FillRef, MarketRef, OutcomeRef, ProviderRef, UserRef } from './refs.ts';

Hip4FillRef.implement({
  description: "One side of a match on an outcome coin (#<10·outcome+side>), or a holder's settlement fill",
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    user: t.field({ type: UserRef, resolve: (f) => ({ address: f.address }) }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    outcomeId: t.exposeInt('outcome_id'),
    sideIndex: t.exposeInt('side_index'),
    outcome: t.field({
      type: OutcomeRef,
      nullable: true,
      resolve: (f, _a, ctx) => ctx.hip4.outcome(f.outcome_id),
    }),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    side: t.exposeString('side', { description: '"B" (buy) or "A" (sell)' }),
    time: t.expose('time', { type: 'Timestamp' }),
    dir: t.exposeString('dir'),
    closedPnl: t.expose('closed_pnl', { type: 'Decimal' }),
    hash: t.exposeString('hash'),
    oid: t.id({ resolve: (f) => String(f.oid) }),
    tid: t.id({ resolve: (f) => String(f.tid) }),
    fee: t.expose('fee', { type: 'Decimal' }),
    feeToken: t.exposeString('fee_token'),
    crossed: t.exposeBoolean('crossed', { description: 'Whether the fill took liquidity' }),
    isSettlement: t.exposeBoolean('is_settlement'),
  }),
});

ProviderRef.implement({
  description: 'Trading statistics of one venue ("oracle" for oracle-emitted markets); settlement fills excluded',
  fields: (t) => ({
    venue: t.exposeString('venue'),
    marketsTraded: t.exposeInt('markets_traded'),
    fills: t.exposeInt('fills'),
    volumeUsdc: t.expose('volume_usdc', { type: 'Decimal', description: 'Notional matched (each match once)' }),
    uniqueUsers: t.exposeInt('unique_users'),
    fees: t.expose('fees', { type: 'Decimal' }),
    lastTrade: t.expose('last_trade', { type: 'Timestamp' }),
  }),
});

const BucketRef = builder.objectRef<AnalyticsBucket>('Hip4AnalyticsBucket');
BucketRef.implement({
  fields: (t) => ({
    bucket: t.expose('bucket', { type: 'Timestamp', description: 'Start of the bucket, aligned to the interval' }),
    coin: t.exposeString('coin', { nullable: true, description: 'Set when rows are split by coin' }),
    fills: t.exposeInt('fills'),
    volume: t.exposeFloat('volume'),
    buyVolume: t.exposeFloat('buy_volume'),
    sellVolume: t.exposeFloat('sell_volume'),
    feesUsdc: t.exposeFloat('fees_usdc'),
    uniqueUsers: t.exposeInt('unique_users'),
  }),
});

AnalyticsRef.implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: '"live" once any HIP-4 fill is held, else "not_yet_live"' }),
    buckets: t.field({ type: [BucketRef], listSize: { assumedSize: 200 }, resolve: (a) => a.rows }),
  }),
});
