// Trade: one match, as the exchange prints it, with its two traders as federated User references.
import {
  CURSOR_DESCRIPTION,
  cursoredIterator,
  cursorOf,
  STORED_AFTER_DESCRIPTION,
  storedIterator,
  withCursor,
} from '../../../kit/live.ts';
import { replayFields } from '../../../kit/replay-fields.ts';
import { holesFrom } from '../../../kit/resume.ts';
import { builder, type MarketsContext } from '../builder.ts';
import { COIN } from '../service/inputs.ts';
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

/** The live subscription's batch size as pricing assumes it, its replay's too. */
const BATCH = { assumedSize: 20 };

builder.subscriptionFields((t) => ({
  trades: t.field({
    type: [TradeRef],
    description: 'Trades of a coin as they happen, one batch per block',
    listSize: BATCH,
    args: { ...COIN.args(t), after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }) },
    // Resumed from the store where the service has its stored stream (a bus), else from the bus's log.
    subscribe: (_root, { after, ...a }, ctx) => {
      const { coin } = COIN.parse(a, 'graphql');
      const stored = ctx.markets.stored;
      return stored
        ? storedIterator(stored.trades(coin), after)
        : cursoredIterator(ctx.markets.streams.trades(coin), after);
    },
    resolve: withCursor,
  }),
}));

replayFields<MarketsContext>(builder, [
  {
    name: 'tradesReplay',
    item: TradeRef,
    list: BATCH,
    description:
      'Trades of a coin in a stored window, paced by their own times at `speed`, as trades sends them, with a gap ' +
      'frame where the store has a hole and a complete frame at the end (the /ws replay subscription)',
    args: (t) => COIN.args(t),
    stream: (a, ctx) => {
      const { coin } = COIN.parse(a, 'graphql');
      if (!ctx.markets.stored) throw new Error('replays need the service to follow the event bus');
      return ctx.markets.stored.trades(coin);
    },
    data: (event, cursor) => withCursor({ event: event as WireTrade[], cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
