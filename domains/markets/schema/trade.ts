// Trade: one match, as the exchange prints it, with its two traders as federated User references.
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { WireTrade } from '../service/market-data.ts';
import { UserRef } from './user.ts';

export const TradeRef = builder.objectRef<WireTrade>('Trade').implement({
  description: 'One match: the aggressor side, price, size and the buyer and seller',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    coin: t.exposeString('coin'),
    side: t.exposeString('side', { description: '"B" (buy) or "A" (sell): the aggressor side' }),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    time: t.expose('time', { type: 'Timestamp' }),
    hash: t.exposeString('hash'),
    tid: t.id({ description: 'Trade id (a 50-bit number, as a string)', resolve: (tr) => String(tr.tid) }),
    users: t.field({
      type: [UserRef],
      description: 'Buyer, then seller',
      listSize: { assumedSize: 2 },
      resolve: (tr) => tr.users.filter(Boolean).map((address) => ({ address })),
    }),
  }),
});
