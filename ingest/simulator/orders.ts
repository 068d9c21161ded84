// Order entry: limit orders (rest, cross, or Alo rejection), market and IOC orders, rejections before the book,
// and cancels. Each emits its order status and raw book diff as the node writes them.
import type { Account } from './account.ts';
import { fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { BuilderFee, Market, RestingOrder } from './market.ts';
import { executeTaker, type TakerResult } from './matching.ts';
import { emitStatus, restingNodeOrder, takerNodeOrder } from './statuses.ts';

/** Puts an order on the book and emits `open` + raw diff `new`. */
export function rest(
  x: Exchange,
  user: Account,
  m: Market,
  isBuy: boolean,
  px: number,
  lots: number,
  origLots: number,
  tif: 'Gtc' | 'Alo',
  cloid: string | null,
  builder: BuilderFee | null,
  hash: string,
  isQuote: boolean,
  oid = x.newOid(),
): RestingOrder {
  const order: RestingOrder = {
    oid,
    user,
    market: m,
    isBuy,
    px,
    sz: lots,
    origSz: origLots,
    timestamp: x.now,
    tif,
    orderType: 'Limit',
    cloid,
    builder,
    reduceOnly: false,
    isQuote,
    slot: 0,
  };
  m.insert(order);
  user.addOrder(order);
  emitStatus(x, user, hash, builder, 'open', restingNodeOrder(order, lots));
  x.ev.diffs.push({
    user: user.address,
    oid,
    coin: m.coin,
    side: isBuy ? 'B' : 'A',
    px: fmtUnits(px, m.pxDecimals),
    raw_book_diff: { new: { sz: fmtUnits(lots, m.szDecimals) } },
  });
  return order;
}

/** A limit order: crosses what it can, rests the rest (Gtc) or is rejected (Alo that would cross). */
export function placeLimit(
  x: Exchange,
  user: Account,
  m: Market,
  isBuy: boolean,
  px: number,
  lots: number,
  tif: 'Gtc' | 'Alo',
  cloid: string | null,
  builder: BuilderFee | null,
): void {
  const oid = x.newOid();
  const hash = x.rng.txHash();
  const opposite = isBuy ? m.asks[0] : m.bids[0];
  const crosses = opposite !== undefined && (isBuy ? opposite.px <= px : opposite.px >= px);
  if (crosses && tif === 'Alo') {
    emitStatus(
      x,
      user,
      hash,
      builder,
      'badAloPxRejected',
      takerNodeOrder(x.now, m, isBuy, px, lots, lots, oid, 'Limit', 'Alo', cloid),
    );
    return;
  }
  let remaining = lots;
  if (crosses) {
    const taken = executeTaker(x, {
      user,
      market: m,
      isBuy,
      sz: lots,
      limitPx: px,
      oid,
      hash,
      cloid,
      builder,
      twapId: null,
      liquidation: null,
      liquidatedDir: null,
    });
    remaining -= taken.lots;
  }
  if (remaining === 0) {
    emitStatus(
      x,
      user,
      hash,
      builder,
      'filled',
      takerNodeOrder(x.now, m, isBuy, px, 0, lots, oid, 'Limit', tif, cloid),
    );
    return;
  }
  rest(x, user, m, isBuy, px, remaining, lots, tif, cloid, builder, hash, false, oid);
}

/** Market (FrontendMarket) or IOC order with a slippage bound around the fair price. */
export function placeMarket(
  x: Exchange,
  user: Account,
  m: Market,
  isBuy: boolean,
  lots: number,
  tif: 'FrontendMarket' | 'Ioc',
  cloid: string | null,
  builder: BuilderFee | null,
): TakerResult {
  const oid = x.newOid();
  const hash = x.rng.txHash();
  const limitPx = slippagePx(m, isBuy, 0.05);
  const result = executeTaker(x, {
    user,
    market: m,
    isBuy,
    sz: lots,
    limitPx,
    oid,
    hash,
    cloid,
    builder,
    twapId: null,
    liquidation: null,
    liquidatedDir: null,
  });
  const orderType = tif === 'FrontendMarket' ? 'Market' : 'Limit';
  const remaining = lots - result.lots;
  const status =
    result.lots === 0
      ? tif === 'Ioc'
        ? 'iocCancelRejected'
        : 'marketOrderNoLiquidityRejected'
      : remaining > 0
        ? 'canceled'
        : 'filled';
  emitStatus(
    x,
    user,
    hash,
    builder,
    status,
    takerNodeOrder(x.now, m, isBuy, limitPx, remaining, lots, oid, orderType, tif, cloid),
  );
  return result;
}

/** An order refused before reaching the book (margin, tick, min notional...). */
export function reject(
  x: Exchange,
  user: Account,
  m: Market,
  isBuy: boolean,
  px: number,
  lots: number,
  status: string,
): void {
  emitStatus(
    x,
    user,
    x.rng.txHash(),
    null,
    status,
    takerNodeOrder(x.now, m, isBuy, px, lots, lots, x.newOid(), 'Limit', 'Gtc', null),
  );
}

export function slippagePx(m: Market, isBuy: boolean, slippage: number): number {
  const raw = isBuy ? Math.ceil(m.fair * (1 + slippage) * m.pxScale) : Math.floor(m.fair * (1 - slippage) * m.pxScale);
  return m.kind === 'outcome' ? Math.min(m.pxScale - 1, Math.max(1, raw)) : Math.max(1, raw);
}
