// User @key(address), owned by accounts: here it gains its ledger events (by type, with the dexes of agent sends)
// and its core-ledger transfers (capabilities.ts adds those fields). Market @key(coin) is the markets subgraph's, referenced by absorbed fills.

import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { LEDGER_EVENT_TYPES, type LedgerEvent } from '../../accounts/port.ts';
import { builder } from '../builder.ts';
import { pageType } from './args.ts';

export const UserRef = builder.objectRef<{ address: string }>('User');

export const MarketRef = builder
  .externalRef('Market', builder.keyDirective(builder.selection<{ coin: string }>('coin'), false))
  .implement({ fields: (t) => ({ coin: t.exposeString('coin') }) });

export const LedgerEventTypeRef = builder.enumType('LedgerEventType', {
  description: 'What a ledger event did to the account',
  values: LEDGER_EVENT_TYPES,
});

export const LedgerEventRef = builder.objectRef<LedgerEvent>('LedgerEvent').implement({
  description: 'A non-funding ledger event of one account, classified by type',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.field({ type: 'Timestamp', resolve: (e) => e.time_ms }),
    hash: t.exposeString('hash'),
    eventType: t.field({ type: LedgerEventTypeRef, resolve: (e) => e.event_type }),
    deltaType: t.exposeString('delta_type', { description: "The node's delta type (`send`, `deposit`...)" }),
    sourceDex: t.exposeString('source_dex', { nullable: true, description: "On agent_send: '' = native perp dex" }),
    destinationDex: t.exposeString('destination_dex', { nullable: true }),
    delta: t.field({ type: 'JSON', resolve: (e) => e.delta }),
  }),
});

export const LedgerEventPageRef = pageType('LedgerEventPage', LedgerEventRef, 'ledger events, newest first');

UserRef.implement({
  description: 'An account, by its lowercase 0x address',
  fields: (t) => ({
    address: t.exposeString('address'),
  }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});
