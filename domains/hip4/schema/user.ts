// User is owned by the accounts subgraph (key `address`); hip4 adds an account's HIP-4 fills and positions to it (its
// capabilities' fields: capabilities.ts).
import { isAddress } from '../../../platform/fields.ts';
import { builder } from '../builder.ts';
import { MarketRef, OutcomeRef, PositionRef, UserRef } from './refs.ts';

PositionRef.implement({
  description: 'An outcome side held: the net of the account’s fills on it (settlement fills close it)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (p) => ({ coin: p.coin }) }),
    outcomeId: t.exposeInt('outcome_id'),
    sideIndex: t.exposeInt('side_index'),
    outcome: t.field({ type: OutcomeRef, nullable: true, resolve: (p, _a, ctx) => ctx.hip4.outcome(p.outcome_id) }),
    size: t.expose('size', { type: 'Decimal', description: 'Net size bought (negative: sold)' }),
    cost: t.expose('cost', { type: 'Decimal', description: 'Cash paid for the net size, fees excluded' }),
    fills: t.exposeInt('fills'),
    lastFill: t.expose('last_fill', { type: 'Timestamp' }),
  }),
});

UserRef.implement({
  fields: (t) => ({
    address: t.exposeString('address'),
  }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  // The accounts subgraph owns User and lowercases addresses; an address that is none has no HIP-4 activity.
  resolveReference: (ref) => (isAddress(ref.address) ? { address: ref.address.toLowerCase() } : null),
});
