// What a user holds now (and the accounts of a liquidation's two sides, the builders of fills and liquidations): resting orders and spot balances (the node's, which alone knows the live book and the spot
// ledger; the same relays as the openOrders/spotClearinghouseState /info types and their MCP tools) and borrow/lend
// positions (indexed, priced at the reserves' latest), each the accounts service's one method.

import { builder } from '../builder.ts';
import type { BorrowLendSide, BorrowLendUserState } from '../service/borrow-lend.ts';
import type { AccountFill } from '../service/fill-fields.ts';
import type { SpotBalance } from '../service/index.ts';
import { FillRef } from './fill.ts';
import { LiquidationRef } from './liquidation.ts';
import { OrderRef } from './order.ts';
import { UserRef } from './user.ts';

const SpotBalanceRef = builder.objectRef<SpotBalance>('SpotBalance').implement({
  description: 'A spot token balance',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    token: t.exposeInt('token'),
    total: t.expose('total', { type: 'Decimal' }),
    hold: t.expose('hold', { type: 'Decimal', description: 'On hold for open orders' }),
    entryNtl: t.expose('entryNtl', { type: 'Decimal', description: 'Entry notional' }),
  }),
});

const BorrowLendSideRef = builder.objectRef<BorrowLendSide>('BorrowLendSide').implement({
  fields: (t) => ({
    basis: t.expose('basis', { type: 'Decimal' }),
    value: t.expose('value', { type: 'Decimal' }),
  }),
});

const BorrowLendPositionRef = builder
  .objectRef<BorrowLendUserState['tokenToState'][number]>('BorrowLendPosition')
  .implement({
    description: 'What the user supplies and borrows of one token',
    fields: (t) => ({
      token: t.int({ resolve: ([token]) => token }),
      supply: t.field({ type: BorrowLendSideRef, resolve: ([, s]) => s.supply }),
      borrow: t.field({ type: BorrowLendSideRef, resolve: ([, s]) => s.borrow }),
    }),
  });

const BorrowLendStateRef = builder.objectRef<BorrowLendUserState>('BorrowLendState').implement({
  description: "The user's borrow/lend positions and their health at the reserves' latest prices",
  fields: (t) => ({
    positions: t.field({ type: [BorrowLendPositionRef], resolve: (s) => s.tokenToState }),
    health: t.exposeString('health', {
      description: '"healthy", "atRisk", "marketLiquidatable" or "backstopLiquidatable"',
    }),
    healthFactor: t.expose('healthFactor', { type: 'Decimal', nullable: true }),
  }),
});

builder.objectFields(UserRef, (t) => ({
  openOrders: t.field({
    type: [OrderRef],
    description: "The user's resting orders now, from the node (history: orders)",
    listSize: { assumedSize: 100 },
    resolve: (u, _a, ctx) => ctx.accounts.openOrders(u.address),
  }),
  spotBalances: t.field({
    type: [SpotBalanceRef],
    description: "The user's spot balances now, from the node",
    listSize: { assumedSize: 20 },
    resolve: (u, _a, ctx) => ctx.accounts.spotBalances(u.address),
  }),
  borrowLendState: t.field({
    type: BorrowLendStateRef,
    resolve: (u, _a, ctx) => ctx.accounts.borrowLendUserState(u.address),
  }),
}));

builder.objectFields(LiquidationRef, (t) => ({
  liquidatedAccount: t.field({
    type: UserRef,
    description: 'The liquidated user as an account',
    resolve: (l) => ({ address: l.liquidated_user }),
  }),
  liquidatorAccount: t.field({
    type: UserRef,
    description: 'The liquidator as an account (the backstop vault on a backstop liquidation)',
    resolve: (l) => ({ address: l.liquidator }),
  }),
}));

builder.objectFields(FillRef, (t) => ({
  user: t.field({
    type: UserRef,
    nullable: true,
    description: 'The account that traded (on stored fills; a subscription knows it from its argument)',
    resolve: (f: AccountFill) => (f.address ? { address: f.address } : null),
  }),
}));

/**
 * Builder @key(address), the analytics subgraph's: here it gains the fills routed through it and what it earned (its
 * capabilities' fields).
 */
export const BuilderRef = builder.objectRef<{ address: string }>('Builder');

export const BuilderRevenueRef = builder
  .objectRef<{ fills: number; volume: string; builderFees: string }>('BuilderRevenue')
  .implement({
    description: 'The fills a builder routed in a window, their notional, and the builder fees they paid it',
    fields: (t) => ({
      fills: t.exposeInt('fills'),
      volume: t.expose('volume', { type: 'Decimal', description: 'Σ px × sz, in dollars' }),
      builderFees: t.expose('builderFees', { type: 'Decimal' }),
    }),
  });

BuilderRef.implement({
  fields: (t) => ({
    address: t.exposeString('address'),
  }),
});

builder.asEntity(BuilderRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});

/** The builder of a stored fill or liquidation; none when it was not routed through one. */
const builderOf = (address: string | null | undefined) => (address ? { address: address.toLowerCase() } : null);

builder.objectFields(FillRef, (t) => ({
  builder: t.field({
    type: BuilderRef,
    nullable: true,
    description: 'The builder the fill was routed through (on stored fills; null when none)',
    resolve: (f: AccountFill) => builderOf(f.builder),
  }),
}));

builder.objectFields(LiquidationRef, (t) => ({
  routedBy: t.field({
    type: BuilderRef,
    nullable: true,
    description: 'The builder the liquidation fill was routed through, as the Builder entity (null when none)',
    resolve: (l) => builderOf(l.builder),
  }),
}));
