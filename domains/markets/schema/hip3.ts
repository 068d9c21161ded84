// Dex @key(name): a HIP-3 builder-deployed perp dex and the price/volume snapshots of its coins (Dex.snapshots,
// Market.dex, Query.dexes and Query.hip3TopMovers are declared in state-capabilities.ts).
import { builder } from '../builder.ts';
import type { Hip3Snapshot } from '../service/hip3.ts';
import { MarketRef } from './market.ts';

export const SnapshotRef = builder.objectRef<Hip3Snapshot>('Hip3Snapshot').implement({
  description: 'A HIP-3 coin: latest price, funding and open interest, 24 h and cumulative volume, fees and trades',
  fields: (t) => ({
    dexId: t.exposeString('dex_id'),
    market: t.field({ type: MarketRef, resolve: (s) => ({ coin: s.coin }) }),
    coin: t.exposeString('coin'),
    markPx: t.expose('current_mark_price', { type: 'Decimal', nullable: true }),
    oraclePx: t.expose('current_oracle_price', { type: 'Decimal', nullable: true }),
    fundingRate: t.expose('current_funding_rate', { type: 'Decimal', nullable: true }),
    openInterest: t.expose('open_interest', { type: 'Decimal', nullable: true }),
    volume24h: t.expose('volume_24h', { type: 'Decimal' }),
    fees24h: t.expose('fees_24h', { type: 'Decimal' }),
    trades24h: t.exposeInt('trades_24h'),
    totalVolume: t.expose('total_volume_cumulative', { type: 'Decimal' }),
    totalFees: t.expose('total_fees_cumulative', { type: 'Decimal' }),
    isHalted: t.exposeBoolean('is_halted'),
    lastUpdate: t.expose('last_update', { type: 'Timestamp', nullable: true }),
  }),
});

export const DexRef = builder.objectRef<{ name: string }>('Dex').implement({
  description: 'A HIP-3 perp dex; its coins are named `<dex>:<COIN>`',
  fields: (t) => ({
    name: t.exposeString('name'),
  }),
});

builder.asEntity(DexRef, {
  key: builder.selection<{ name: string }>('name'),
  resolveReference: (ref) => ({ name: ref.name }),
});
