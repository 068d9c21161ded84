// LedgerUpdate: a non-funding ledger event of a user (deposit, withdraw, transfer, vault, liquidation...), its delta
// as the exchange prints it; and the userNonFundingLedgerUpdates subscription.

import { liveIterator } from '../../live.ts';
import { builder } from '../builder.ts';
import type { LedgerUpdate } from '../service/index.ts';
import { addressArg } from './args.ts';

export const LedgerUpdateRef = builder.objectRef<LedgerUpdate>('LedgerUpdate').implement({
  fields: (t) => ({
    time: t.expose('time', { type: 'Timestamp' }),
    hash: t.exposeString('hash'),
    type: t.string({ description: '"deposit", "withdraw", "send", "vaultDeposit"...', resolve: (u) => u.delta.type }),
    delta: t.expose('delta', { type: 'JSON', description: 'The whole delta, `type` included (wire §2.6)' }),
  }),
});

builder.subscriptionFields((t) => ({
  userNonFundingLedgerUpdates: t.field({
    type: [LedgerUpdateRef],
    description: "The user's non-funding ledger updates as they happen (history: User.ledgerUpdates)",
    args: { user: t.arg.string({ required: true }) },
    listSize: { assumedSize: 10 },
    subscribe: (_root, a, ctx) =>
      liveIterator(ctx.accounts.streams.userNonFundingLedgerUpdates(addressArg(a.user, 'user'))),
    resolve: (batch) => batch,
  }),
}));
