// Funding: one hourly funding payment of a user's position (the exchange's userFundings item), the funding connection
// of a user (the service's history pages); its subscription is live-capabilities.ts'.

import type { InputOf } from '../../../kit/input.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { connectionOf } from '../../../kit/page.ts';
import { builder } from '../builder.ts';
import type { UserFundingEntry, WsFunding } from '../service/funding.ts';
import type { AccountsService } from '../service/index.ts';
import type { FUNDING_PAGE } from '../service/inputs.ts';
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
