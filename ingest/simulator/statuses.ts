// Order statuses as the node writes them: the status line and the order record of a resting order, a taker
// order and a trigger order.
import type { NodeOrder } from '../../wire/node-lines.ts';
import type { Account } from './account.ts';
import { fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { BuilderFee, Market, RestingOrder, TriggerOrder } from './market.ts';

const NO_CHILDREN: NodeOrder[] = [];

export function emitStatus(
  x: Exchange,
  user: Account,
  hash: string | null,
  builder: BuilderFee | null,
  status: string,
  order: NodeOrder,
): void {
  x.ev.statuses.push({ time: x.ev.iso, user: user.address, hash, builder, status, order });
}

export function restingNodeOrder(o: RestingOrder, remaining: number): NodeOrder {
  const m = o.market;
  return {
    coin: m.coin,
    side: o.isBuy ? 'B' : 'A',
    limitPx: fmtUnits(o.px, m.pxDecimals),
    sz: fmtUnits(remaining, m.szDecimals),
    oid: o.oid,
    timestamp: o.timestamp,
    triggerCondition: 'N/A',
    isTrigger: false,
    triggerPx: '0.0',
    children: NO_CHILDREN,
    isPositionTpsl: false,
    reduceOnly: o.reduceOnly,
    orderType: o.orderType,
    origSz: fmtUnits(o.origSz, m.szDecimals),
    tif: o.tif,
    cloid: o.cloid,
  };
}

export function takerNodeOrder(
  now: number,
  m: Market,
  isBuy: boolean,
  px: number,
  remaining: number,
  lots: number,
  oid: number,
  orderType: string,
  tif: string,
  cloid: string | null,
  reduceOnly = false,
): NodeOrder {
  return {
    coin: m.coin,
    side: isBuy ? 'B' : 'A',
    limitPx: fmtUnits(px, m.pxDecimals),
    sz: fmtUnits(remaining, m.szDecimals),
    oid,
    timestamp: now,
    triggerCondition: 'N/A',
    isTrigger: false,
    triggerPx: '0.0',
    children: NO_CHILDREN,
    isPositionTpsl: false,
    reduceOnly,
    orderType,
    origSz: fmtUnits(lots, m.szDecimals),
    tif,
    cloid,
  };
}

export function triggerNodeOrder(t: TriggerOrder): NodeOrder {
  const m = t.market;
  const triggerText = fmtUnits(t.triggerPx, m.pxDecimals);
  return {
    coin: m.coin,
    side: t.isBuy ? 'B' : 'A',
    limitPx: fmtUnits(t.limitPx, m.pxDecimals),
    sz: fmtUnits(t.sz, m.szDecimals),
    oid: t.oid,
    timestamp: t.timestamp,
    triggerCondition: `Price ${t.below ? 'below' : 'above'} ${triggerText.endsWith('.0') ? triggerText.slice(0, -2) : triggerText}`,
    isTrigger: true,
    triggerPx: triggerText,
    children: NO_CHILDREN,
    isPositionTpsl: t.isPositionTpsl,
    reduceOnly: true,
    orderType: t.isTakeProfit ? 'Take Profit Market' : 'Stop Market',
    origSz: fmtUnits(t.sz, m.szDecimals),
    tif: null,
    cloid: t.cloid,
  };
}

/** Takes a resting order off its book: its status and the raw diff `remove` (a cancel, or a self-trade's maker). */
export function cancelResting(x: Exchange, order: RestingOrder, status: string, hash: string | null): void {
  const m = order.market;
  m.removeFromBook(order);
  order.user.removeOrder(order);
  emitStatus(x, order.user, hash, order.builder, status, restingNodeOrder(order, order.sz));
  x.ev.diffs.push({
    user: order.user.address,
    oid: order.oid,
    coin: m.coin,
    side: order.isBuy ? 'B' : 'A',
    px: fmtUnits(order.px, m.pxDecimals),
    raw_book_diff: 'remove',
  });
}
