// UserEvent: one frame of the exchange's userEvents channel (exactly one field set: a batch of fills, one funding
// payment, one liquidation, or the orders the exchange canceled on the user's behalf), and that subscription.
import { CURSOR_DESCRIPTION, cursorOf, cursorOn, STORED_AFTER_DESCRIPTION, storedIterator } from '../../../kit/live.ts';
import { replayFields } from '../../../kit/replay-fields.ts';
import { holesFrom } from '../../../kit/resume.ts';
import { type AccountsContext, builder } from '../builder.ts';
import { USER } from '../service/inputs.ts';
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

const UserEventRef = builder.objectRef<UserEvent>('UserEvent').implement({
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

builder.subscriptionFields((t) => ({
  userEvents: t.field({
    type: UserEventRef,
    description:
      "The user's fills (one batch per block), funding payments and liquidations (one frame each), and cancels",
    args: { ...USER.args(t), after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }) },
    subscribe: (_root, { after, ...a }, ctx) =>
      storedIterator(ctx.accounts.stored.userEvents(USER.parse(a, 'graphql').user), after),
    resolve: cursorOn,
  }),
}));

replayFields<AccountsContext>(builder, [
  {
    name: 'userEventsReplay',
    item: UserEventRef,
    list: false,
    description: "The user's events of a stored window, replayed as userEvents sends them (userFillsReplay)",
    args: (t) => USER.args(t),
    stream: (a, ctx) => ctx.accounts.stored.userEvents(USER.parse(a, 'graphql').user),
    data: (event, cursor) => cursorOn({ event: event as UserEvent, cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
