// Liquidation: one stored liquidation fill (liquidated user, liquidator, size, notional, method); LiquidationEvent:
// the exchange's userEvents shape of it (the liquidations subscription: live-capabilities.ts).
import type { LiquidationRow } from '../../../db/rows/accounts.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { WsLiquidation } from '../service/liquidations.ts';
import { MarketRef } from './market.ts';

export const LiquidationRef = builder.objectRef<LiquidationRow>('Liquidation').implement({
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    time: t.expose('time', { type: 'Timestamp' }),
    hash: t.exposeString('hash'),
    tid: t.id({ description: 'Trade id of the liquidation fill', resolve: (l) => String(l.tid) }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (l) => ({ coin: l.coin }) }),
    liquidatedUser: t.exposeString('liquidated_user'),
    liquidator: t.exposeString('liquidator'),
    side: t.exposeString('side', { description: "The liquidator's side" }),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    notional: t.expose('notional', { type: 'Decimal', description: 'px × sz, in dollars' }),
    markPx: t.expose('mark_px', { type: 'Decimal', nullable: true }),
    method: t.exposeString('method', { description: '"market" or "backstop"' }),
    builder: t.exposeString('builder', { nullable: true }),
    liquidatedAccountValue: t.field({
      type: 'Decimal',
      nullable: true,
      description: "The liquidated account's value, from the ledger's liquidation update of the same transaction",
      resolve: (l) => l.account_value ?? null,
    }),
  }),
});

export const LiquidationEventRef = builder.objectRef<WsLiquidation>('LiquidationEvent').implement({
  description:
    'A liquidation as the exchange\'s userEvents print it; the account value is "0.0" when the ledger\'s update is not known',
  fields: (t) => ({
    lid: t.id({ description: 'The trade id of the liquidation fill', resolve: (l) => String(l.lid) }),
    liquidator: t.exposeString('liquidator'),
    liquidatedUser: t.exposeString('liquidated_user'),
    liquidatedNtlPos: t.expose('liquidated_ntl_pos', { type: 'Decimal' }),
    liquidatedAccountValue: t.expose('liquidated_account_value', { type: 'Decimal' }),
  }),
});
