// UserEvent: one frame of the exchange's userEvents channel (exactly one field set: a batch of fills, one funding
// payment, one liquidation, or the orders the exchange canceled on the user's behalf); the subscription is
// live-capabilities.ts'.
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { NonUserCancel, UserEvent } from '../service/streams.ts';
import { FillRef } from './fill.ts';
import { FundingRef } from './funding.ts';
import { LiquidationEventRef } from './liquidation.ts';
import { MarketRef } from './market.ts';

const NonUserCancelRef = builder.objectRef<NonUserCancel>('NonUserCancel').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (c) => ({ coin: c.coin }) }),
    oid: t.id({ resolve: (c) => String(c.oid) }),
    status: t.exposeString('status', { description: '"marginCanceled", "liquidatedCanceled", "selfTradeCanceled"...' }),
  }),
});

export const UserEventRef = builder.objectRef<UserEvent>('UserEvent').implement({
  description: 'Exactly one field is set',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    fills: t.field({ type: [FillRef], nullable: true, listSize: { assumedSize: 20 }, resolve: (e) => e.fills }),
    funding: t.field({ type: FundingRef, nullable: true, resolve: (e) => e.funding }),
    liquidation: t.field({ type: LiquidationEventRef, nullable: true, resolve: (e) => e.liquidation }),
    nonUserCancel: t.field({
      type: [NonUserCancelRef],
      nullable: true,
      listSize: { assumedSize: 5 },
      resolve: (e) => e.nonUserCancel,
    }),
  }),
});
