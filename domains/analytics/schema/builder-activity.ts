// Builder @key(address): a builder's view of which of a list of wallets also trade through other builders, as
// POST /builders/{builder}/external-activity answers it. Query.builder returns it, Builder.externalActivity the
// ExternalActivity; both are capabilities (../capabilities.ts).
import { builder } from '../builder.ts';
import type { BuilderActivity, ExternalActivity, WalletActivity } from '../service/answers.ts';
import { UserRef } from './user.ts';

type Activity = Omit<BuilderActivity, 'builder'> & { builder?: string };

const ActivityRef = builder.objectRef<Activity>('BuilderActivity').implement({
  fields: (t) => ({
    builder: t.exposeString('builder', { nullable: true, description: 'The builder (absent on own/noBuilder)' }),
    fills: t.exposeInt('fills'),
    notional: t.expose('notional', { type: 'Decimal' }),
    coins: t.exposeStringList('coins'),
    firstFill: t.expose('first_fill', { type: 'Timestamp' }),
    lastFill: t.expose('last_fill', { type: 'Timestamp' }),
  }),
});

const WalletRef = builder.objectRef<WalletActivity>('WalletActivity').implement({
  fields: (t) => ({
    address: t.exposeString('address'),
    user: t.field({ type: UserRef, resolve: (w) => ({ address: w.address }) }),
    flagged: t.exposeBoolean('flagged', { description: 'Traded through other builders in the timeframe' }),
    externalVolume: t.expose('external_volume', { type: 'Decimal' }),
    externalBuilders: t.field({ type: [ActivityRef], resolve: (w) => w.externalBuilders }),
    noBuilder: t.field({ type: ActivityRef, nullable: true, resolve: (w) => w.noBuilder }),
    own: t.field({ type: ActivityRef, nullable: true, resolve: (w) => w.own }),
  }),
});

const SummaryRef = builder.objectRef<ExternalActivity['summary']>('ExternalActivitySummary').implement({
  fields: (t) => ({
    wallets: t.exposeInt('wallets'),
    flagged: t.exposeInt('flagged'),
    ownOnly: t.exposeInt('own_only'),
    noBuilderOnly: t.exposeInt('no_builder_only'),
    inactive: t.exposeInt('inactive'),
  }),
});

export const ExternalActivityRef = builder.objectRef<ExternalActivity>('ExternalActivity').implement({
  fields: (t) => ({
    timeframe: t.exposeString('timeframe'),
    wallets: t.field({ type: [WalletRef], resolve: (a) => a.data }),
    summary: t.field({ type: SummaryRef, resolve: (a) => a.summary }),
  }),
});

export const BuilderRef = builder.objectRef<{ address: string }>('Builder').implement({
  description: 'A builder (order router), by its lowercase 0x address',
  fields: (t) => ({ address: t.exposeString('address') }),
});

builder.asEntity(BuilderRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});
