// AccountState: a user's perp account rebuilt from stored fills, funding and ledger (service/state.ts says how, and
// what it approximates), valued at the live mids as /users/{user}/account is; and its open positions.
import { builder } from '../builder.ts';
import type { AccountPosition, AccountState } from '../service/state.ts';
import { MarketRef } from './market.ts';

/** The service's naive UTC ISO times ("2026-11-22T07:00:00.123") as epoch ms. */
const epochMs = (naiveIso: string) => Date.parse(`${naiveIso}Z`);

const PositionRef = builder.objectRef<AccountPosition>('Position').implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (p) => ({ coin: p.coin }) }),
    szi: t.expose('szi', { type: 'Decimal', description: 'Signed size' }),
    side: t.exposeString('side', { description: '"long" or "short"' }),
    leverage: t.exposeInt('leverage', {
      nullable: true,
      description: "The user's leverage setting for the coin, as the node reports it; null when it does not",
    }),
    leverageType: t.exposeString('leverage_type', { nullable: true, description: '"cross" or "isolated"' }),
    entryPx: t.expose('entry_px', { type: 'Decimal' }),
    markPx: t.expose('mark_px', { type: 'Decimal' }),
    positionValue: t.expose('position_value', { type: 'Decimal' }),
    unrealizedPnl: t.expose('unrealized_pnl', { type: 'Decimal' }),
    roe: t.expose('roe', {
      type: 'Decimal',
      nullable: true,
      description:
        'Unrealized PnL over the entry margin (entry notional / leverage); null when the leverage is unknown',
    }),
    funding: t.expose('funding', { type: 'Decimal', description: 'Funding since the position opened; + = received' }),
    openedAt: t.field({
      type: 'Timestamp',
      nullable: true,
      description: 'Null when the position opened before the stored history',
      resolve: (p) => (p.opened_at === null ? null : epochMs(p.opened_at)),
    }),
  }),
});

export const AccountStateRef = builder.objectRef<AccountState>('AccountState').implement({
  description: 'The perp account (HIP-3 dexes, spot and outcomes excluded)',
  fields: (t) => ({
    asOf: t.field({ type: 'Timestamp', resolve: (s) => epochMs(s.as_of) }),
    accountValue: t.expose('account_value', { type: 'Decimal' }),
    cash: t.expose('cash', { type: 'Decimal' }),
    positionValue: t.expose('position_value', { type: 'Decimal' }),
    unrealizedPnl: t.expose('unrealized_pnl', { type: 'Decimal' }),
    accountLeverage: t.expose('account_leverage', {
      type: 'Decimal',
      nullable: true,
      description: 'Open notional over account value; null when the account value is not positive',
    }),
    perpAccountEmpty: t.exposeBoolean('perp_account_empty'),
    positions: t.field({ type: [PositionRef], listSize: { assumedSize: 10 }, resolve: (s) => s.positions }),
  }),
});
