// Funding: one hourly funding payment of a user's position (the exchange's userFundings item), the funding connection
// (User.fundings, a capability's field); its subscription is live-capabilities.ts'.

import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { UserFundingEntry, WsFunding } from '../service/funding.ts';
import { MarketRef } from './market.ts';

export const FundingRef = builder.objectRef<WsFunding>('Funding').implement({
  description: 'A funding payment (usdc > 0: received)',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.expose('time', { type: 'Timestamp' }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    usdc: t.expose('usdc', { type: 'Decimal' }),
    szi: t.expose('szi', { type: 'Decimal', description: 'Signed position size' }),
    fundingRate: t.expose('fundingRate', { type: 'Decimal' }),
    nSamples: t.exposeInt('nSamples', { nullable: true }),
  }),
});

export const FundingConnectionRef = builder.connectionObject(
  { type: FundingRef, name: 'FundingConnection' },
  { name: 'FundingEdge' },
);

/** A stored userFunding entry in the channel's shape (its hash is always the zero hash). */
export function fundingOfEntry({ time, delta: { type: _type, ...payment } }: UserFundingEntry): WsFunding {
  return { time, ...payment };
}
