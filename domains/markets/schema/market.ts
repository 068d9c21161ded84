// Market @key(coin): one coin's trades, candles and funding history, the types of its metadata, book, mid and asset
// context (their fields, and the root fields that return markets, are declared in state-capabilities.ts; the live
// book, mid and context subscriptions in live-capabilities.ts).

import { exposeRecord } from '../../../kit/record-type.ts';
import { builder } from '../builder.ts';
import type { L2BookAnswer, L2Level } from '../service/book/coin-book.ts';
import type { L2DiffEvent } from '../service/book/l2-diff.ts';
import type { BboAnswer } from '../service/book.ts';
import { FUNDING_RATE, type FundingRate } from '../service/market-data.ts';
import type { MarketInfo, PerpAssetCtx, SpotAssetCtx } from '../service/meta.ts';

export interface MarketParent {
  coin: string;
}

export const LevelRef = builder.objectRef<L2Level>('BookLevel').implement({
  fields: (t) => ({
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    n: t.exposeInt('n', { description: 'Orders at this level' }),
  }),
});

export const BookRef = builder.objectRef<L2BookAnswer>('L2Book').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    height: t.int({
      description: 'The block the books stand at (l2BookDiff events above it apply to this book)',
      resolve: (_b, _a, ctx) => ctx.markets.books.height,
    }),
    bids: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[0] }),
    asks: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[1] }),
  }),
});

export const BookDiffRef = builder.objectRef<L2DiffEvent>('L2BookDiff').implement({
  description: "One block's changed levels of a coin's book",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    height: t.exposeInt('height'),
    prevHeight: t.exposeInt('prevHeight', { description: 'The height of the previous event of this book' }),
    bids: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (d) => d.bids }),
    asks: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (d) => d.asks }),
  }),
});

interface BboParent {
  coin: string;
  time: number;
  bid: L2Level | null;
  ask: L2Level | null;
}

export const bboOf = (b: BboAnswer | null): BboParent | null =>
  b && { coin: b.coin, time: b.time, bid: b.bbo[0], ask: b.bbo[1] };

export const BboRef = builder.objectRef<BboParent>('Bbo').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    bid: t.field({ type: LevelRef, nullable: true, resolve: (b) => b.bid }),
    ask: t.field({ type: LevelRef, nullable: true, resolve: (b) => b.ask }),
  }),
});

export const AssetCtxRef = builder.objectRef<PerpAssetCtx & { coin: string }>('AssetCtx').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    funding: t.expose('funding', { type: 'Decimal' }),
    openInterest: t.expose('openInterest', { type: 'Decimal' }),
    prevDayPx: t.expose('prevDayPx', { type: 'Decimal' }),
    dayNtlVlm: t.expose('dayNtlVlm', { type: 'Decimal' }),
    dayBaseVlm: t.expose('dayBaseVlm', { type: 'Decimal' }),
    premium: t.expose('premium', { type: 'Decimal', nullable: true }),
    oraclePx: t.expose('oraclePx', { type: 'Decimal' }),
    markPx: t.expose('markPx', { type: 'Decimal' }),
    midPx: t.expose('midPx', { type: 'Decimal', nullable: true }),
    impactPxs: t.expose('impactPxs', { type: ['Decimal'], nullable: true, listSize: { assumedSize: 2 } }),
  }),
});

export const SpotAssetCtxRef = builder.objectRef<SpotAssetCtx>('SpotAssetCtx').implement({
  description: "A spot pair's context (the exchange's SpotAssetCtx)",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    prevDayPx: t.expose('prevDayPx', { type: 'Decimal' }),
    dayNtlVlm: t.expose('dayNtlVlm', { type: 'Decimal' }),
    dayBaseVlm: t.expose('dayBaseVlm', { type: 'Decimal' }),
    markPx: t.expose('markPx', { type: 'Decimal' }),
    midPx: t.expose('midPx', { type: 'Decimal', nullable: true }),
    circulatingSupply: t.expose('circulatingSupply', { type: 'Decimal' }),
    totalSupply: t.expose('totalSupply', { type: 'Decimal' }),
  }),
});

export const FundingRateRef = builder.objectRef<FundingRate>('FundingRate').implement({
  fields: (t) => exposeRecord(t, FUNDING_RATE),
});

interface DepthBand {
  bps: number;
  bidDepthUsd: string;
  askDepthUsd: string;
}

export const DepthBandRef = builder.objectRef<DepthBand>('DepthBand').implement({
  description: 'Cumulative notional (USD) resting within `bps` basis points of the mid',
  fields: (t) => ({
    bps: t.exposeInt('bps'),
    bidDepthUsd: t.expose('bidDepthUsd', { type: 'Decimal' }),
    askDepthUsd: t.expose('askDepthUsd', { type: 'Decimal' }),
  }),
});

const MarketKindEnum = builder.enumType('MarketKind', {
  values: { PERP: { value: 'perp' }, SPOT: { value: 'spot' }, OUTCOME: { value: 'outcome' } } as const,
});

export const MarketInfoRef = builder.objectRef<MarketInfo>('MarketInfo').implement({
  description: "The node's metadata of a coin: its perp dex's meta, or spotMeta (outcome sides carry none)",
  fields: (t) => ({
    kind: t.field({ type: MarketKindEnum, resolve: (i) => i.kind }),
    dex: t.exposeString('dex', { nullable: true, description: 'HIP-3 dex of a "dex:COIN" perp' }),
    szDecimals: t.exposeInt('szDecimals', { nullable: true, description: 'Decimals allowed in a size' }),
    maxLeverage: t.exposeInt('maxLeverage', { nullable: true }),
    marginTableId: t.exposeInt('marginTableId', { nullable: true }),
    onlyIsolated: t.exposeBoolean('onlyIsolated'),
    isDelisted: t.exposeBoolean('isDelisted'),
    baseToken: t.exposeString('baseToken', { nullable: true, description: 'Spot pairs: the base token' }),
    quoteToken: t.exposeString('quoteToken', { nullable: true, description: 'Spot pairs: the quote token' }),
  }),
});

export const MarketRef = builder.objectRef<MarketParent>('Market').implement({
  description: 'A tradable coin (perp, spot pair, HIP-3 dex coin or outcome side)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
  }),
});

builder.asEntity(MarketRef, {
  key: builder.selection<{ coin: string }>('coin'),
  resolveReference: (ref) => ({ coin: ref.coin }),
});

export const MidRef = builder.objectRef<{ coin: string; mid: string }>('Mid').implement({
  fields: (t) => ({ coin: t.exposeString('coin'), mid: t.expose('mid', { type: 'Decimal' }) }),
});

export const midsList = (mids: Record<string, string>) => Object.entries(mids).map(([coin, mid]) => ({ coin, mid }));
