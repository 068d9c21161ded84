// Funding: one hourly funding payment of a user's position (the exchange's userFundings item), the funding connection
// of a user (the service's history pages), and the userFundings subscription.

import type { InputOf } from '../../../kit/input.ts';
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
import type { UserFundingEntry, WsFunding } from '../service/funding.ts';
import type { AccountsService } from '../service/index.ts';
import { type FUNDING_PAGE, USER } from '../service/inputs.ts';
import { serviceInput } from './args.ts';
import { MarketRef } from './market.ts';

export const FundingRef = builder.objectRef<WsFunding>('Funding').implement({
  description: 'A funding payment (usdc > 0: received)',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.expose('time', { type: 'Timestamp' }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    usdc: t.expose('usdc', { type: 'Decimal' }),
    szi: t.expose('szi', { type: 'Decimal', description: 'Signed position size' }),
    fundingRate: t.expose('fundingRate', { type: 'Decimal' }),
    nSamples: t.exposeInt('nSamples', { nullable: true }),
  }),
});

export const FundingConnectionRef = builder.connectionObject(
  { type: FundingRef, name: 'FundingConnection' },
  { name: 'FundingEdge' },
);

/** A user's history page as its definition read it (FUNDING_PAGE, LEDGER_PAGE). */
export type HistoryInput = InputOf<typeof FUNDING_PAGE>;

/** A page of the user's payments as userFunding pages them (a window oldest first, else the newest first). */
export async function fundingsConnection(accounts: AccountsService, q: HistoryInput) {
  const page = await serviceInput('after', () => accounts.userFunding(q));
  return connectionOf(page, fundingOfEntry, q.cursor);
}

/** A stored userFunding entry in the channel's shape (its hash is always the zero hash). */
export function fundingOfEntry({ time, delta: { type: _type, ...payment } }: UserFundingEntry): WsFunding {
  return { time, ...payment };
}

/** The live subscription's batch size as pricing assumes it, its replay's too. */
const BATCH = { assumedSize: 20 };

builder.subscriptionFields((t) => ({
  userFundings: t.field({
    type: [FundingRef],
    description: "The user's funding payments as they settle, one batch per block (history: User.fundings)",
    args: { ...USER.args(t), after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }) },
    listSize: BATCH,
    subscribe: (_root, { after, ...a }, ctx) =>
      storedIterator(ctx.accounts.stored.userFundings(USER.parse(a, 'graphql').user), after),
    resolve: withCursor,
  }),
}));

replayFields<AccountsContext>(builder, [
  {
    name: 'userFundingsReplay',
    item: FundingRef,
    list: BATCH,
    description:
      "The user's funding payments of a stored window, replayed as userFundings sends them (userFillsReplay)",
    args: (t) => USER.args(t),
    stream: (a, ctx) => ctx.accounts.stored.userFundings(USER.parse(a, 'graphql').user),
    data: (event, cursor) => withCursor({ event: event as WsFunding[], cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
