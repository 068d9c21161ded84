// User @key(address), owned by accounts and extended here with the account's derived history: performance, equity,
// PnL calendar, top trades, round trips and leaderboard rank, each a capability's field (../capabilities.ts); and
// BatchPerformance, an entry of Query.batchPerformance.
import { builder } from '../builder.ts';
import type { Performance } from '../service/answers.ts';
import { PerformanceRef } from './performance.ts';

interface UserParent {
  address: string;
}

export const UserRef = builder.objectRef<UserParent>('User').implement({
  fields: (t) => ({ address: t.exposeString('address') }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});

export const BatchEntryRef = builder
  .objectRef<{ address: string; performance: Performance }>('BatchPerformance')
  .implement({
    fields: (t) => ({
      address: t.exposeString('address'),
      user: t.field({ type: UserRef, resolve: (e) => ({ address: e.address }) }),
      performance: t.field({ type: PerformanceRef, resolve: (e) => e.performance }),
    }),
  });
