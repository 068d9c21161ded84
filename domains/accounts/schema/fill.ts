// Fill: one execution as the exchange prints it (wire Fill) with the type of its order and its market; the fills
// connection (keyset pages of stored fills: the capabilities' fields); TWAP slice fills (the userFills subscription:
// live-capabilities.ts).
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { columnsFor } from '../../../kit/selection.ts';
import { builder } from '../builder.ts';
import { type AccountFill, FILL_COLUMNS_BY_FIELD, type FillColumn, type WireFill } from '../service/fill-fields.ts';
import { MAX_COUNTED_FILLS } from '../service/fill-pages.ts';
import type { WireFillPage } from '../service/index.ts';
import type { TwapSliceFill } from '../service/twaps.ts';
import { MarketRef } from './market.ts';

const FillLiquidationRef = builder.objectRef<NonNullable<WireFill['liquidation']>>('FillLiquidation').implement({
  fields: (t) => ({
    liquidatedUser: t.exposeString('liquidatedUser'),
    markPx: t.expose('markPx', { type: 'Decimal' }),
    method: t.exposeString('method', { description: '"market" or "backstop"' }),
  }),
});

export const FillRef = builder.objectRef<AccountFill>('Fill').implement({
  description: "One of the user's executions, as the exchange prints it",
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    side: t.exposeString('side', { description: '"B" (bid, buy) or "A" (ask, sell)' }),
    time: t.expose('time', { type: 'Timestamp' }),
    startPosition: t.expose('startPosition', { type: 'Decimal', description: 'Position size before the fill' }),
    dir: t.exposeString('dir', { description: '"Open Long", "Close Short", "Buy", "Long > Short"...' }),
    closedPnl: t.expose('closedPnl', { type: 'Decimal' }),
    hash: t.exposeString('hash'),
    oid: t.id({ description: 'Order id (a u64, as a string)', resolve: (f) => String(f.oid) }),
    crossed: t.exposeBoolean('crossed', { description: 'Taker' }),
    fee: t.expose('fee', { type: 'Decimal', description: 'Total fee including the builder fee; negative: rebate' }),
    tid: t.id({ description: 'Trade id (a 50-bit number, as a string)', resolve: (f) => String(f.tid) }),
    feeToken: t.exposeString('feeToken'),
    builderFee: t.expose('builderFee', { type: 'Decimal', nullable: true }),
    twapId: t.id({ nullable: true, resolve: (f) => (f.twapId === null ? null : String(f.twapId)) }),
    cloid: t.exposeString('cloid', { nullable: true }),
    liquidation: t.field({ type: FillLiquidationRef, nullable: true, resolve: (f) => f.liquidation ?? null }),
    orderType: t.string({
      nullable: true,
      description: '"Limit", "Market", "Stop Market"...: on stored fills whose order statuses are indexed',
      resolve: (f) => f.orderType ?? null,
    }),
  }),
});

/**
 * The columns each Fill field is printed from: a stored fill's fields' (fill-fields.ts), and GraphQL's own, `market`
 * (its coin) and `cursor` (set on the fills a subscription sends; none read from storage). A test holds this to the
 * schema's Fill fields.
 */
export const FILL_FIELD_COLUMNS: Readonly<Record<string, readonly FillColumn[]>> = {
  ...FILL_COLUMNS_BY_FIELD,
  market: ['coin'],
  cursor: [],
};

/** The columns behind the Fill fields among `selected` (field names anywhere in the selection). */
export const fillColumnsOf = (selected: Iterable<string>) => columnsFor(selected, FILL_FIELD_COLUMNS);

export const FillConnectionRef = builder.connectionObject(
  {
    type: FillRef,
    name: 'FillConnection',
    fields: (t) => ({
      totalCount: t.int({
        nullable: true,
        description: `Fills matching the filters (not the cursor); null with aggregateByTime, or past ${MAX_COUNTED_FILLS}`,
        // Counting a large history costs more than the page: only when asked for.
        resolve: (c) => (c as { page?: WireFillPage }).page?.count() ?? null,
      }),
    }),
  },
  { name: 'FillEdge' },
);

export const TwapSliceFillRef = builder.objectRef<TwapSliceFill>('TwapSliceFill').implement({
  fields: (t) => ({
    fill: t.field({ type: FillRef, resolve: (s) => s.fill }),
    twapId: t.id({ resolve: (s) => String(s.twapId) }),
  }),
});
