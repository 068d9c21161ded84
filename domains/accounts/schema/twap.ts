// TwapStatusChange: one stored status change of a user's TWAP order (User.twapHistory; /info twapHistory).
import { builder } from '../builder.ts';
import type { TwapState, TwapStatusChange } from '../service/twaps.ts';
import { MarketRef } from './market.ts';

const TwapStateRef = builder.objectRef<TwapState>('TwapState').implement({
  description: "The TWAP's parameters and progress at the status change",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (s) => ({ coin: s.coin }) }),
    user: t.exposeString('user'),
    side: t.exposeString('side', { description: '"B" buy or "A" sell' }),
    sz: t.expose('sz', { type: 'Decimal', description: 'The whole size to execute' }),
    executedSz: t.expose('executedSz', { type: 'Decimal' }),
    executedNtl: t.expose('executedNtl', { type: 'Decimal', description: 'Executed notional, in dollars' }),
    minutes: t.exposeInt('minutes'),
    reduceOnly: t.exposeBoolean('reduceOnly'),
    randomize: t.exposeBoolean('randomize'),
    startedAt: t.expose('timestamp', { type: 'Timestamp', description: "The TWAP's start" }),
  }),
});

export const TwapStatusChangeRef = builder.objectRef<TwapStatusChange>('TwapStatusChange').implement({
  description: "A status change of a user's TWAP order",
  fields: (t) => ({
    time: t.expose('time', { type: 'Timestamp' }),
    twapId: t.id({ resolve: (c) => String(c.twapId) }),
    status: t.exposeString('status', { description: 'activated, finished, terminated or error' }),
    error: t.exposeString('error', { nullable: true, description: "The node's message when status is error" }),
    state: t.field({ type: TwapStateRef, resolve: (c) => c.state }),
  }),
});
