// UserEvent: one frame of the exchange's userEvents channel (exactly one field set: a batch of fills, one funding
// payment, one liquidation, or the orders the exchange canceled on the user's behalf), and that subscription.
import { builder } from '../builder.ts';
import { subscribeTopics } from '../live.ts';
import { toWireFill, type WireFill } from '../service/fills.ts';
import type { WsFunding } from '../service/funding.ts';
import { liquidationsMatching, toWsLiquidation, type WsLiquidation } from '../service/liquidations.ts';
import { addressArg } from './args.ts';
import { FillRef } from './fill.ts';
import { FundingRef, fundingOfRow } from './funding.ts';
import { LiquidationEventRef } from './liquidation.ts';
import { MarketRef } from './market.ts';

interface NonUserCancel {
  coin: string;
  oid: number;
  status: string;
}

interface UserEvent {
  fills?: WireFill[];
  funding?: WsFunding;
  liquidation?: WsLiquidation;
  nonUserCancel?: NonUserCancel[];
}

/** Every "…Canceled" status is the exchange's doing (margin, liquidation, self-trade...); "canceled" is the user's. */
const NON_USER_CANCEL = /Canceled$/;

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
    args: { user: t.arg.string({ required: true }) },
    subscribe: (_root, a, ctx) => {
      const user = addressArg(a.user, 'user');
      const involved = liquidationsMatching({ user });
      return subscribeTopics<UserEvent>(ctx.accounts.bus, {
        fills: (rows) => {
          const fills = rows.filter((r) => r.address === user).map(toWireFill);
          return fills.length ? [{ fills }] : [];
        },
        fundingPayments: (rows) => rows.filter((r) => r.address === user).map((r) => ({ funding: fundingOfRow(r) })),
        liquidations: (rows) => rows.filter(involved).map((r) => ({ liquidation: toWsLiquidation(r) })),
        orderStatuses: (rows) => {
          const canceled = rows
            .filter((r) => r.address === user && NON_USER_CANCEL.test(r.status))
            .map((r) => ({ coin: r.coin, oid: r.oid, status: r.status }));
          return canceled.length ? [{ nonUserCancel: canceled }] : [];
        },
      });
    },
    resolve: (event) => event,
  }),
}));
