// Order (the exchange's FrontendOpenOrder) and OrderStatus (an order at one status, with every status it went
// through); the orders connection (User.orders, a capability's field; the orderUpdates subscription:
// live-capabilities.ts).

import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { columnsFor } from '../../../kit/selection.ts';
import { builder } from '../builder.ts';
import { type FrontendOpenOrder, orderKey, type StatusColumn, type UserOrderStatus } from '../service/orders.ts';
import { MarketRef } from './market.ts';

// Declared before implemented: both types refer to themselves (children, statusHistory).
export const OrderRef = builder.objectRef<FrontendOpenOrder>('Order');
export const OrderStatusRef = builder.objectRef<UserOrderStatus>('OrderStatus');

OrderRef.implement({
  description: 'An order as the exchange prints it (FrontendOpenOrder)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (o) => ({ coin: o.coin }) }),
    side: t.exposeString('side', { description: '"B" (bid, buy) or "A" (ask, sell)' }),
    limitPx: t.expose('limitPx', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal', description: 'Remaining size' }),
    origSz: t.expose('origSz', { type: 'Decimal' }),
    oid: t.id({ description: 'Order id (a u64, as a string)', resolve: (o) => String(o.oid) }),
    timestamp: t.expose('timestamp', { type: 'Timestamp', description: 'Placement time' }),
    triggerCondition: t.exposeString('triggerCondition', { description: '"N/A" when none' }),
    isTrigger: t.exposeBoolean('isTrigger'),
    triggerPx: t.expose('triggerPx', { type: 'Decimal', description: '"0.0" when none' }),
    children: t.field({ type: [OrderRef], listSize: { assumedSize: 2 }, resolve: (o) => o.children }),
    isPositionTpsl: t.exposeBoolean('isPositionTpsl'),
    reduceOnly: t.exposeBoolean('reduceOnly'),
    orderType: t.exposeString('orderType', { description: '"Limit", "Market", "Stop Market", "Take Profit Limit"...' }),
    tif: t.exposeString('tif', { nullable: true, description: '"Gtc", "Ioc", "Alo", "FrontendMarket"...' }),
    cloid: t.exposeString('cloid', { nullable: true }),
  }),
});

OrderStatusRef.implement({
  description: 'An order at one of its statuses ("open", "filled", "canceled", "marginCanceled", "triggered"...)',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    order: t.field({ type: OrderRef, resolve: (s) => s.order }),
    status: t.exposeString('status'),
    statusTimestamp: t.expose('statusTimestamp', { type: 'Timestamp' }),
    statusHistory: t.loadableGroup({
      type: OrderStatusRef,
      description: 'Every stored status of the order, oldest first',
      listSize: { assumedSize: 3 },
      load: (keys: string[], ctx) => ctx.accounts.statusHistories(keys),
      group: orderKey,
      resolve: orderKey,
    }),
  }),
});

export const OrderStatusConnectionRef = builder.connectionObject(
  { type: OrderStatusRef, name: 'OrderStatusConnection' },
  { name: 'OrderStatusEdge' },
);

/**
 * The columns of a status row each OrderStatus and Order field is printed from (through toOrder); the orders'
 * status histories and children are read whole. A test holds this to the schema's fields of both types.
 */
export const ORDER_FIELD_COLUMNS: Readonly<Record<string, readonly StatusColumn[]>> = {
  order: [],
  status: ['status'],
  statusTimestamp: ['time'],
  statusHistory: ['oid'],
  coin: ['coin'],
  market: ['coin'],
  side: ['side'],
  limitPx: ['limit_px'],
  sz: ['sz'],
  origSz: ['orig_sz'],
  oid: ['oid'],
  timestamp: ['order_time'],
  triggerCondition: ['trigger_condition'],
  isTrigger: ['is_trigger'],
  triggerPx: ['trigger_px'],
  children: ['children'],
  isPositionTpsl: ['is_position_tpsl'],
  reduceOnly: ['reduce_only'],
  orderType: ['order_type'],
  tif: ['tif'],
  cloid: ['cloid'],
  // Set on the statuses a subscription sends; none read from storage.
  cursor: [],
};

/** The columns behind the OrderStatus and Order fields among `selected` (names anywhere in the selection). */
export const orderColumnsOf = (selected: Iterable<string>) => columnsFor(selected, ORDER_FIELD_COLUMNS);
