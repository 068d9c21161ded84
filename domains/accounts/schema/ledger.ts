// LedgerUpdate: a non-funding ledger event of a user (deposit, withdraw, transfer, vault, liquidation...), its delta
// as the exchange prints it; the ledger connection of a user; and the userNonFundingLedgerUpdates subscription.

import {
  CURSOR_DESCRIPTION,
  cursorOf,
  STORED_AFTER_DESCRIPTION,
  storedIterator,
  withCursor,
} from '../../../kit/live.ts';
import { connectionOf } from '../../../kit/page.ts';
import { replayFields } from '../../../kit/replay-fields.ts';
import { holesFrom } from '../../../kit/resume.ts';
import { type AccountsContext, builder } from '../builder.ts';
import type { AccountsService } from '../service/index.ts';
import { USER } from '../service/inputs.ts';
import type { LedgerUpdate } from '../service/ledger.ts';
import { serviceInput } from './args.ts';
import type { HistoryInput } from './funding.ts';

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

/** A page of the user's ledger updates, paged as User.fundings. */
export async function ledgerConnection(accounts: AccountsService, q: HistoryInput) {
  const page = await serviceInput('after', () => accounts.ledgerUpdates(q));
  return connectionOf(page, (u) => u, q.cursor);
}

/** The live subscription's batch size as pricing assumes it, its replay's too. */
const BATCH = { assumedSize: 10 };

builder.subscriptionFields((t) => ({
  userNonFundingLedgerUpdates: t.field({
    type: [LedgerUpdateRef],
    description: "The user's non-funding ledger updates as they happen (history: User.ledgerUpdates)",
    args: { ...USER.args(t), after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }) },
    listSize: BATCH,
    subscribe: (_root, { after, ...a }, ctx) =>
      storedIterator(ctx.accounts.stored.userNonFundingLedgerUpdates(USER.parse(a, 'graphql').user), after),
    resolve: withCursor,
  }),
}));

replayFields<AccountsContext>(builder, [
  {
    name: 'userNonFundingLedgerUpdatesReplay',
    item: LedgerUpdateRef,
    list: BATCH,
    description:
      "The user's non-funding ledger updates of a stored window, replayed as userNonFundingLedgerUpdates sends them " +
      '(userFillsReplay)',
    args: (t) => USER.args(t),
    stream: (a, ctx) => ctx.accounts.stored.userNonFundingLedgerUpdates(USER.parse(a, 'graphql').user),
    data: (event, cursor) => withCursor({ event: event as LedgerUpdate[], cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
