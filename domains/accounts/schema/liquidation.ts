// Liquidation: one stored liquidation fill (liquidated user, liquidator, size, notional, method); LiquidationEvent:
// the exchange's userEvents shape of it; and the liquidations subscription with the channel's combined filters.
import type { LiquidationRow } from '../../../db/rows/accounts.ts';
import {
  CURSOR_DESCRIPTION,
  cursorOf,
  STORED_AFTER_DESCRIPTION,
  storedIterator,
  withCursor,
} from '../../../kit/live.ts';
import { replayFields } from '../../../kit/replay-fields.ts';
import { holesFrom } from '../../../kit/resume.ts';
import { type AccountsContext, builder } from '../builder.ts';
import { LIQUIDATION_STREAM } from '../service/inputs.ts';
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

/** The live subscription's batch size as pricing assumes it, its replay's too. */
const BATCH = { assumedSize: 10 };

builder.subscriptionFields((t) => ({
  liquidations: t.field({
    type: [LiquidationRef],
    description:
      'Liquidations as they happen; every given filter applies (users: at most 50, each matching either side)',
    args: {
      ...LIQUIDATION_STREAM.args(t, { types: { amountDollars: 'Decimal' } }),
      after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }),
    },
    listSize: BATCH,
    subscribe: (_root, { after, ...a }, ctx) =>
      storedIterator(ctx.accounts.stored.liquidations(LIQUIDATION_STREAM.parse(a, 'graphql')), after),
    resolve: withCursor,
  }),
}));

replayFields<AccountsContext>(builder, [
  {
    name: 'liquidationsReplay',
    item: LiquidationRef,
    list: BATCH,
    description: 'Liquidations of a stored window, filtered and replayed as liquidations sends them (userFillsReplay)',
    args: (t) => LIQUIDATION_STREAM.args(t, { types: { amountDollars: 'Decimal' } }),
    stream: (a, ctx) => ctx.accounts.stored.liquidations(LIQUIDATION_STREAM.parse(a, 'graphql')),
    data: (event, cursor) => withCursor({ event: event as LiquidationRow[], cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
