// LedgerUpdate: a non-funding ledger event of a user (deposit, withdraw, transfer, vault, liquidation...), its delta
// as the exchange prints it; and its connection (User.ledgerUpdates, a capability's field; the subscription:
// live-capabilities.ts).

import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { LedgerUpdate } from '../service/ledger.ts';

export const LedgerUpdateRef = builder.objectRef<LedgerUpdate>('LedgerUpdate').implement({
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.expose('time', { type: 'Timestamp' }),
    hash: t.exposeString('hash'),
    type: t.string({ description: '"deposit", "withdraw", "send", "vaultDeposit"...', resolve: (u) => u.delta.type }),
    delta: t.expose('delta', { type: 'JSON', description: 'The whole delta, `type` included (wire §2.6)' }),
  }),
});

export const LedgerUpdateConnectionRef = builder.connectionObject(
  { type: LedgerUpdateRef, name: 'LedgerUpdateConnection' },
  { name: 'LedgerUpdateEdge' },
);
