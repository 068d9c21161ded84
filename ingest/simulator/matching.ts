// The matching engine: a taker walks the opposite side of the book in price-time priority; every trade is a
// pair of fills with the same tid (the taker `crossed`), fees by market kind, and the makers' diffs and statuses.
import type { NodeFill, NodeFillLiquidation } from '../../wire/node-lines.ts';
import { ZERO_HASH } from '../../wire/node-lines.ts';
import { type Account, applyPerpFill, applySpotFill } from './account.ts';
import { FEES, tokenName, tokenWeiDecimals } from './catalog.ts';
import { fmtNum, fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { BuilderFee, Market } from './market.ts';
import { cancelResting, emitStatus, restingNodeOrder } from './statuses.ts';

/** An order that takes liquidity: market, IOC, the crossing part of a limit, a TWAP slice, a liquidation. */
export interface TakerOrder {
  user: Account;
  market: Market;
  isBuy: boolean;
  sz: number;
  limitPx: number;
  oid: number;
  hash: string;
  cloid: string | null;
  builder: BuilderFee | null;
  twapId: number | null;
  liquidation: NodeFillLiquidation | null;
  /** The victim's dir ("Liquidated Cross Long"...) instead of the position-derived one. */
  liquidatedDir: string | null;
}

export interface TakerResult {
  lots: number;
  notional: number;
  /** Trades made (each a pair of fills). */
  fills: number;
}

/** Walks the opposite side up to `limitPx`; emits the fills, makers' diffs and makers' final statuses. */
export function executeTaker(x: Exchange, t: TakerOrder): TakerResult {
  const m = t.market;
  const book = t.isBuy ? m.asks : m.bids;
  let remaining = t.sz;
  let notional = 0;
  let fills = 0;
  while (remaining > 0 && book.length > 0) {
    const maker = book[0]!;
    if (t.isBuy ? maker.px > t.limitPx : maker.px < t.limitPx) break;
    if (maker.user === t.user) {
      // Self-trade prevention expires the resting order.
      cancelResting(x, maker, 'selfTradeCanceled', t.hash === ZERO_HASH ? null : t.hash);
      continue;
    }
    const lots = Math.min(remaining, maker.sz);
    fillPair(x, t, maker.user, maker.oid, maker.cloid, maker.builder, maker.px, lots);
    fills++;
    notional += (maker.px / m.pxScale) * (lots / m.szScale);
    remaining -= lots;
    const before = maker.sz;
    maker.sz -= lots;
    m.bookVersion++;
    const diffBase = {
      user: maker.user.address,
      oid: maker.oid,
      coin: m.coin,
      side: maker.isBuy ? 'B' : 'A',
      px: fmtUnits(maker.px, m.pxDecimals),
    } as const;
    if (maker.sz === 0) {
      book.shift();
      maker.user.removeOrder(maker);
      emitStatus(x, maker.user, t.hash, maker.builder, 'filled', restingNodeOrder(maker, 0));
      x.ev.diffs.push({ ...diffBase, raw_book_diff: 'remove' });
    } else {
      x.ev.diffs.push({
        ...diffBase,
        raw_book_diff: {
          update: { origSz: fmtUnits(before, m.szDecimals), newSz: fmtUnits(maker.sz, m.szDecimals) },
        },
      });
    }
  }
  return { lots: t.sz - remaining, notional, fills };
}

/** One trade between the taker and a counterparty at `px`: two fills with the same tid. */
export function fillPair(
  x: Exchange,
  t: TakerOrder,
  counterparty: Account,
  counterOid: number,
  counterCloid: string | null,
  counterBuilder: BuilderFee | null,
  px: number,
  lots: number,
): void {
  const m = t.market;
  const tid = x.rng.tid();
  const pxText = fmtUnits(px, m.pxDecimals);
  const szText = fmtUnits(lots, m.szDecimals);
  const price = px / m.pxScale;
  const qty = lots / m.szScale;
  m.recordTrade(price, qty);
  const fills = x.ev.fills;
  fills.push([
    t.user.address,
    sideFill(
      x.now,
      t.user,
      m,
      t.isBuy,
      true,
      price,
      lots,
      pxText,
      szText,
      tid,
      t.hash,
      t.oid,
      t.cloid,
      t.builder,
      t.twapId,
      t.liquidation,
      t.liquidatedDir,
    ),
  ]);
  fills.push([
    counterparty.address,
    sideFill(
      x.now,
      counterparty,
      m,
      !t.isBuy,
      false,
      price,
      lots,
      pxText,
      szText,
      tid,
      t.hash,
      counterOid,
      counterCloid,
      counterBuilder,
      null,
      t.liquidation,
      null,
    ),
  ]);
}

function sideFill(
  now: number,
  acct: Account,
  m: Market,
  isBuy: boolean,
  crossed: boolean,
  price: number,
  lots: number,
  pxText: string,
  szText: string,
  tid: number,
  hash: string,
  oid: number,
  cloid: string | null,
  builder: BuilderFee | null,
  twapId: number | null,
  liquidation: NodeFillLiquidation | null,
  liquidatedDir: string | null,
): NodeFill {
  const qty = lots / m.szScale;
  const ntl = price * qty;
  const isMaker = acct.role === 'maker';
  let startPosition: string;
  let dir: string;
  let closedPnl: number;
  let feeText: string;
  let feeToken = 'USDC';
  let builderFee = 0;
  let deployerFee = -1;
  if (m.kind === 'perp') {
    const base = crossed ? FEES.perpTaker : isMaker ? FEES.makerRebate : FEES.perpMaker;
    let fee = ntl * base;
    if (m.dex !== '') {
      deployerFee = base > 0 ? fee * (FEES.hip3Multiplier - 1) : 0;
      fee += deployerFee;
    }
    if (builder) builderFee = (ntl * builder.f) / 100_000;
    fee += builderFee;
    const r = applyPerpFill(acct, m, isBuy, price, lots, fee);
    startPosition = fmtUnits(r.startLots, m.szDecimals);
    dir = liquidatedDir ?? r.dir;
    closedPnl = r.closedPnl;
    feeText = fmtNum(fee, 6);
  } else {
    const isOutcome = m.kind === 'outcome';
    const rate = crossed
      ? isOutcome
        ? FEES.outcomeTaker
        : FEES.spotTaker
      : isMaker
        ? FEES.makerRebate
        : isOutcome
          ? FEES.outcomeMaker
          : FEES.spotMaker;
    // Spot buyers pay the fee in the token they receive; sellers and outcome traders in the quote token.
    const feeInBase = isBuy && !isOutcome;
    const fee = feeInBase ? qty * rate : ntl * rate;
    const r = applySpotFill(acct, m, isBuy, price, lots, fee, feeInBase);
    if (isOutcome) {
      feeToken = 'USDH';
      feeText = fmtNum(fee, 6);
      startPosition = fmtNum(r.start, 2);
    } else {
      const baseDecimals = Math.min(8, tokenWeiDecimals(m.baseToken));
      feeToken = feeInBase ? tokenName(m.baseToken) : 'USDC';
      feeText = fmtNum(fee, feeInBase ? baseDecimals : 6);
      startPosition = fmtNum(r.start, baseDecimals);
    }
    dir = isBuy ? 'Buy' : 'Sell';
    closedPnl = r.closedPnl;
  }
  const fill: NodeFill = {
    coin: m.coin,
    px: pxText,
    sz: szText,
    side: isBuy ? 'B' : 'A',
    time: now,
    startPosition,
    dir,
    closedPnl: fmtNum(closedPnl, 6),
    hash,
    oid,
    crossed,
    fee: feeText,
    tid,
    cloid,
    feeToken,
    twapId,
  };
  if (builder) {
    fill.builderFee = fmtNum(builderFee, 6);
    fill.builder = builder.b;
  }
  if (deployerFee >= 0) fill.deployerFee = fmtNum(deployerFee, 6);
  if (liquidation) fill.liquidation = liquidation;
  return fill;
}
