// The exchange core: markets, accounts and the matching engine. Every state change is emitted as the node would
// write it: order statuses, raw book diffs and paired fills (same tid, one A and one B, the taker `crossed`).
// The random behaviour that drives it lives in behaviour.ts, risk.ts and ledger.ts.
import type { NodeFill, NodeFillLiquidation, NodeOrder } from '../../wire/node-lines.ts';
import { Account, applyPerpFill, applySpotFill } from './account.ts';
import {
  BACKSTOP_ADDRESS,
  FEES,
  HIP3_DEX,
  NATIVE_PERPS,
  type PerpListing,
  SPOT_PAIRS,
  SPOT_TOKENS,
  USDC_TOKEN,
  USDH_TOKEN,
} from './catalog.ts';
import { fmtNum, fmtUnits } from './decimal.ts';
import type { BlockEvents } from './events.ts';
import { type BuilderFee, Market, type MarketInit, type RestingOrder, type TriggerOrder } from './market.ts';
import { Rng, ZERO_HASH } from './rng.ts';

export interface ExchangeOptions {
  seed: number;
  users: number;
  marketMakers: number;
}

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
}

const NO_CHILDREN: NodeOrder[] = [];
/** Address streams of the seed (see Rng `stream`). */
const ADDRESS_STREAM = 1;
const ENGINE_STREAM = 2;
const LEVERAGE_CHOICES = [2, 3, 5, 5, 10, 10, 20];

export class Exchange {
  readonly rng: Rng;
  readonly markets: Market[] = [];
  readonly byCoin = new Map<string, Market>();
  /** Native and HIP-3 perps in meta order. */
  readonly perps: Market[] = [];
  readonly spotMarkets: Market[] = [];
  readonly accounts: Account[] = [];
  readonly byAddress = new Map<string, Account>();
  readonly traders: Account[] = [];
  readonly makers: Account[] = [];
  readonly hlp: Account;
  readonly backstop: Account;
  readonly builders: string[];
  /** HIP-3 deployer and its oracle/fee sub-deployers. */
  readonly hip3Deployer: string;
  readonly hip3SubDeployer: string;
  /** Bumped when markets are listed or delisted, so weighted pickers rebuild. */
  marketsVersion = 0;

  ev!: BlockEvents;
  now = 0;
  private nextOidValue: number;

  constructor(opts: ExchangeOptions) {
    this.rng = new Rng(opts.seed, ENGINE_STREAM);
    const addresses = new Rng(opts.seed, ADDRESS_STREAM);
    this.nextOidValue = 40_000_000_000 + addresses.int(1_000_000) * 1000;

    for (const listing of NATIVE_PERPS) this.listPerp(listing, '');
    for (const listing of HIP3_DEX.perps) this.listPerp(listing, HIP3_DEX.name);
    for (const pair of SPOT_PAIRS) {
      const m = new Market({
        coin: pair.name,
        kind: 'spot',
        dex: 'spot',
        szDecimals: pair.szDecimals,
        pxDecimals: pair.pxDecimals,
        px: pair.px,
        vol: pair.vol,
        weight: pair.weight,
        baseToken: pair.base,
        quoteToken: pair.quote,
        underlying: pair.underlying ? (this.byCoin.get(pair.underlying) ?? null) : null,
      });
      this.addMarket(m);
      this.spotMarkets.push(m);
    }

    for (let i = 0; i < opts.marketMakers; i++) {
      const mm = this.addAccount(new Account(addresses.address(), 'maker', 10, true));
      for (const dex of ['', HIP3_DEX.name]) mm.addUsdc(dex, 50_000_000);
      for (const token of SPOT_TOKENS)
        mm.holding(token.index).total = token.index === USDC_TOKEN ? 50_000_000 : 5e9 / spotPx(token.index);
    }
    for (let i = 0; i < opts.users; i++) {
      const leverage = addresses.pick(LEVERAGE_CHOICES);
      const user = this.addAccount(new Account(addresses.address(), 'user', leverage, addresses.chance(0.7)));
      user.addUsdc('', Math.min(2_000_000, addresses.logNormal(4000, 1.3)));
      if (addresses.chance(0.35)) user.addUsdc(HIP3_DEX.name, Math.min(500_000, addresses.logNormal(2000, 1.2)));
      user.holding(USDC_TOKEN).total = Math.min(1_000_000, addresses.logNormal(1500, 1.3));
      if (addresses.chance(0.4)) user.holding(150).total = addresses.logNormal(60, 1.2);
      if (addresses.chance(0.3)) user.holding(1).total = Math.round(addresses.logNormal(5000, 1.2));
      if (addresses.chance(0.15)) user.holding(197).total = addresses.logNormal(0.02, 1);
      if (addresses.chance(0.5)) user.holding(USDH_TOKEN).total = addresses.logNormal(400, 1);
    }
    this.hlp = this.addAccount(new Account(addresses.address(), 'vault', 5, true));
    this.hlp.addUsdc('', 100_000_000);
    this.backstop = this.addAccount(new Account(BACKSTOP_ADDRESS, 'backstop', 5, true));
    this.backstop.addUsdc(HIP3_DEX.name, 10_000_000);
    this.builders = [addresses.address(), addresses.address(), addresses.address()];
    this.hip3Deployer = addresses.address();
    this.hip3SubDeployer = addresses.address();
  }

  private listPerp(listing: PerpListing, dex: string): void {
    const m = new Market({
      coin: listing.name,
      kind: 'perp',
      dex,
      szDecimals: listing.szDecimals,
      pxDecimals: listing.pxDecimals,
      px: listing.px,
      vol: listing.vol,
      weight: listing.weight,
      maxLeverage: listing.maxLeverage,
      marginTableId: listing.marginTableId,
      onlyIsolated: listing.onlyIsolated ?? false,
    });
    this.addMarket(m);
    this.perps.push(m);
  }

  private addAccount(acct: Account): Account {
    this.accounts.push(acct);
    this.byAddress.set(acct.address, acct);
    if (acct.role === 'user') this.traders.push(acct);
    else if (acct.role === 'maker') this.makers.push(acct);
    return acct;
  }

  addMarket(m: Market): void {
    this.markets.push(m);
    this.byCoin.set(m.coin, m);
    this.marketsVersion++;
  }

  /** Lists an outcome side market (HIP-4). */
  listOutcome(init: Omit<MarketInit, 'kind' | 'dex' | 'szDecimals' | 'pxDecimals' | 'vol'> & { vol?: number }): Market {
    const m = new Market({
      ...init,
      kind: 'outcome',
      dex: 'outcome',
      szDecimals: 0,
      pxDecimals: 3,
      vol: init.vol ?? 2,
    });
    m.advance(this.now, this.rng);
    this.addMarket(m);
    return m;
  }

  /** Takes a market off the exchange: cancels its orders with `status`. */
  delist(m: Market, status: string): void {
    for (const side of [m.bids, m.asks]) {
      while (side.length > 0) this.cancelResting(side[0]!, status, null);
    }
    while (m.triggers.length > 0) this.cancelTrigger(m.triggers[0]!, status, null);
    m.active = false;
    const at = this.markets.indexOf(m);
    if (at >= 0) this.markets.splice(at, 1);
    this.byCoin.delete(m.coin);
    this.marketsVersion++;
  }

  beginBlock(ev: BlockEvents): void {
    this.ev = ev;
    this.now = ev.timeMs;
  }

  newOid(): number {
    return this.nextOidValue++;
  }

  /** Brings a market up to the block: fair price, market makers' ladder, then due trigger orders. */
  touch(m: Market): void {
    m.advance(this.now, this.rng);
    this.requote(m);
    if (m.triggers.length > 0) this.checkTriggers(m);
  }

  // ---- market makers ----

  private requote(m: Market): void {
    if (this.makers.length === 0) return;
    const scale = m.pxScale;
    const fair = m.fair;
    const step = Math.max(1, Math.round(fair * m.levelStep * scale));
    const maxTick = m.kind === 'outcome' ? scale - 1 : Number.MAX_SAFE_INTEGER;
    const topBid = Math.min(maxTick - 1, Math.max(1, Math.floor(fair * (1 - m.halfSpread) * scale)));
    const topAsk = Math.min(maxTick, Math.max(topBid + 1, Math.ceil(fair * (1 + m.halfSpread) * scale)));
    // Quotes may lag the fair price by a half spread before they are pulled: fewer cancels, as real makers do.
    const bidCeiling = fair * (1 + m.halfSpread) * scale;
    const askFloor = fair * (1 - m.halfSpread) * scale;
    let hash: string | null = null;
    let maker: Account | null = null;
    for (const isBuy of [true, false]) {
      const side = isBuy ? m.bids : m.asks;
      const top = isBuy ? topBid : topAsk;
      if (this.quotesHealthy(side, isBuy, top, step, m.levels)) continue;
      let filledLevels = 0;
      for (let i = 0; i < side.length; i++) {
        const o = side[i]!;
        if (!o.isQuote) continue;
        const distance = isBuy ? top - o.px : o.px - top;
        const stale = isBuy ? o.px > bidCeiling : o.px < askFloor;
        if (stale || distance >= (m.levels + 1) * step) {
          this.cancelResting(o, 'canceled', this.rng.txHash());
          i--;
          continue;
        }
        const level = Math.max(0, Math.round(distance / step));
        if (level < m.levels) filledLevels |= 1 << level;
      }
      for (let level = 0; level < m.levels; level++) {
        if (filledLevels & (1 << level)) continue;
        let px = isBuy ? top - level * step : top + level * step;
        // Post-only: never lock or cross the other side.
        const opposite = isBuy ? m.asks[0] : m.bids[0];
        if (opposite && (isBuy ? px >= opposite.px : px <= opposite.px)) px = isBuy ? opposite.px - 1 : opposite.px + 1;
        if (px < 1 || px > maxTick) continue;
        hash ??= this.rng.txHash();
        maker ??= this.rng.pick(this.makers);
        const price = px / scale;
        const lots = Math.max(
          Math.ceil((11 / price) * m.szScale),
          Math.round(((m.levelNotional * this.rng.range(0.5, 1.5)) / price) * m.szScale),
        );
        this.rest(
          maker,
          m,
          isBuy,
          px,
          lots,
          lots,
          'Alo',
          this.rng.chance(0.3) ? this.rng.cloid() : null,
          null,
          hash,
          true,
        );
      }
    }
  }

  /**
   * A side needs no requote while it still has a full ladder whose best quote is within three levels of where it
   * would be placed now: makers tolerate small moves instead of cancelling on every tick.
   */
  private quotesHealthy(side: RestingOrder[], isBuy: boolean, top: number, step: number, levels: number): boolean {
    let quotes = 0;
    let best = -1;
    for (const o of side) {
      if (!o.isQuote) continue;
      if (quotes === 0) best = o.px;
      quotes++;
    }
    if (quotes < levels) return false;
    const lag = isBuy ? top - best : best - top;
    return lag >= -step && lag <= 3 * step;
  }

  // ---- orders ----

  /** Puts an order on the book and emits `open` + raw diff `new`. */
  private rest(
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
    oid = this.newOid(),
  ): RestingOrder {
    const order: RestingOrder = {
      oid,
      user,
      market: m,
      isBuy,
      px,
      sz: lots,
      origSz: origLots,
      timestamp: this.now,
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
    this.emitStatus(user, hash, builder, 'open', this.restingNodeOrder(order, lots));
    this.ev.diffs.push({
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
  placeLimit(
    user: Account,
    m: Market,
    isBuy: boolean,
    px: number,
    lots: number,
    tif: 'Gtc' | 'Alo',
    cloid: string | null,
    builder: BuilderFee | null,
  ): void {
    const oid = this.newOid();
    const hash = this.rng.txHash();
    const opposite = isBuy ? m.asks[0] : m.bids[0];
    const crosses = opposite !== undefined && (isBuy ? opposite.px <= px : opposite.px >= px);
    if (crosses && tif === 'Alo') {
      this.emitStatus(
        user,
        hash,
        builder,
        'badAloPxRejected',
        this.takerNodeOrder(m, isBuy, px, lots, lots, oid, 'Limit', 'Alo', cloid),
      );
      return;
    }
    let remaining = lots;
    if (crosses) {
      const taken = this.executeTaker({
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
      this.emitStatus(
        user,
        hash,
        builder,
        'filled',
        this.takerNodeOrder(m, isBuy, px, 0, lots, oid, 'Limit', tif, cloid),
      );
      return;
    }
    this.rest(user, m, isBuy, px, remaining, lots, tif, cloid, builder, hash, false, oid);
  }

  /** Market (FrontendMarket) or IOC order with a slippage bound around the fair price. */
  placeMarket(
    user: Account,
    m: Market,
    isBuy: boolean,
    lots: number,
    tif: 'FrontendMarket' | 'Ioc',
    cloid: string | null,
    builder: BuilderFee | null,
  ): TakerResult {
    const oid = this.newOid();
    const hash = this.rng.txHash();
    const limitPx = this.slippagePx(m, isBuy, 0.05);
    const result = this.executeTaker({
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
    this.emitStatus(
      user,
      hash,
      builder,
      status,
      this.takerNodeOrder(m, isBuy, limitPx, remaining, lots, oid, orderType, tif, cloid),
    );
    return result;
  }

  /** An order refused before reaching the book (margin, tick, min notional...). */
  reject(user: Account, m: Market, isBuy: boolean, px: number, lots: number, status: string): void {
    this.emitStatus(
      user,
      this.rng.txHash(),
      null,
      status,
      this.takerNodeOrder(m, isBuy, px, lots, lots, this.newOid(), 'Limit', 'Gtc', null),
    );
  }

  slippagePx(m: Market, isBuy: boolean, slippage: number): number {
    const raw = isBuy
      ? Math.ceil(m.fair * (1 + slippage) * m.pxScale)
      : Math.floor(m.fair * (1 - slippage) * m.pxScale);
    return m.kind === 'outcome' ? Math.min(m.pxScale - 1, Math.max(1, raw)) : Math.max(1, raw);
  }

  cancelResting(order: RestingOrder, status: string, hash: string | null): void {
    const m = order.market;
    m.removeFromBook(order);
    order.user.removeOrder(order);
    this.emitStatus(order.user, hash, order.builder, status, this.restingNodeOrder(order, order.sz));
    this.ev.diffs.push({
      user: order.user.address,
      oid: order.oid,
      coin: m.coin,
      side: order.isBuy ? 'B' : 'A',
      px: fmtUnits(order.px, m.pxDecimals),
      raw_book_diff: 'remove',
    });
  }

  // ---- matching ----

  /** Walks the opposite side up to `limitPx`; emits the fills, makers' diffs and makers' final statuses. */
  executeTaker(t: TakerOrder): TakerResult {
    const m = t.market;
    const book = t.isBuy ? m.asks : m.bids;
    let remaining = t.sz;
    let notional = 0;
    while (remaining > 0 && book.length > 0) {
      const maker = book[0]!;
      if (t.isBuy ? maker.px > t.limitPx : maker.px < t.limitPx) break;
      if (maker.user === t.user) {
        // Self-trade prevention expires the resting order.
        this.cancelResting(maker, 'selfTradeCanceled', t.hash === ZERO_HASH ? null : t.hash);
        continue;
      }
      const lots = Math.min(remaining, maker.sz);
      this.fillPair(t, maker.user, maker.oid, maker.cloid, maker.builder, maker.px, lots);
      notional += (maker.px / m.pxScale) * (lots / m.szScale);
      remaining -= lots;
      const before = maker.sz;
      maker.sz -= lots;
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
        this.emitStatus(maker.user, t.hash, maker.builder, 'filled', this.restingNodeOrder(maker, 0));
        this.ev.diffs.push({ ...diffBase, raw_book_diff: 'remove' });
      } else {
        this.ev.diffs.push({
          ...diffBase,
          raw_book_diff: {
            update: { origSz: fmtUnits(before, m.szDecimals), newSz: fmtUnits(maker.sz, m.szDecimals) },
          },
        });
      }
    }
    return { lots: t.sz - remaining, notional };
  }

  /** One trade between the taker and a counterparty at `px`: two fills with the same tid. */
  fillPair(
    t: TakerOrder,
    counterparty: Account,
    counterOid: number,
    counterCloid: string | null,
    counterBuilder: BuilderFee | null,
    px: number,
    lots: number,
  ): void {
    const m = t.market;
    const tid = this.rng.tid();
    const pxText = fmtUnits(px, m.pxDecimals);
    const szText = fmtUnits(lots, m.szDecimals);
    const price = px / m.pxScale;
    const qty = lots / m.szScale;
    m.recordTrade(price, qty);
    const fills = this.ev.fills;
    fills.push([
      t.user.address,
      this.sideFill(
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
      this.sideFill(
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

  private sideFill(
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
      time: this.now,
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

  // ---- trigger orders (stop loss / take profit) ----

  placeTrigger(
    user: Account,
    m: Market,
    isBuy: boolean,
    lots: number,
    triggerPx: number,
    isTakeProfit: boolean,
    isPositionTpsl: boolean,
    cloid: string | null,
  ): void {
    // A buy stop fires on the way up; a buy take-profit on the way down (and the reverse for sells).
    const below = isBuy === isTakeProfit;
    const trigger: TriggerOrder = {
      oid: this.newOid(),
      user,
      market: m,
      isBuy,
      sz: lots,
      triggerPx,
      below,
      isTakeProfit,
      limitPx: isBuy ? Math.ceil(triggerPx * 1.1) : Math.max(1, Math.floor(triggerPx * 0.9)),
      timestamp: this.now,
      cloid,
      isPositionTpsl,
      slot: 0,
    };
    m.triggers.push(trigger);
    user.addTrigger(trigger);
    m.refreshTriggerBounds();
    this.emitStatus(user, this.rng.txHash(), null, 'open', this.triggerNodeOrder(trigger));
  }

  cancelTrigger(trigger: TriggerOrder, status: string, hash: string | null): void {
    const m = trigger.market;
    const at = m.triggers.indexOf(trigger);
    if (at >= 0) m.triggers.splice(at, 1);
    trigger.user.removeTrigger(trigger);
    m.refreshTriggerBounds();
    this.emitStatus(trigger.user, hash, null, status, this.triggerNodeOrder(trigger));
  }

  private checkTriggers(m: Market): void {
    const mark = m.markTicks();
    if (mark > m.triggerBelowMax && mark < m.triggerAboveMin) return;
    const due = m.triggers.filter((t) => (t.below ? mark <= t.triggerPx : mark >= t.triggerPx));
    for (const t of due) this.fireTrigger(t);
  }

  /** `triggered`, then a market execution under the same oid, then `filled` as a plain (no longer trigger) order. */
  private fireTrigger(t: TriggerOrder): void {
    const m = t.market;
    const pos = t.user.positions.get(m);
    const posLots = pos ? pos.szi : 0;
    const reducible = t.isBuy ? Math.max(0, -posLots) : Math.max(0, posLots);
    const lots = Math.min(t.sz, reducible);
    if (lots === 0) {
      this.cancelTrigger(t, 'reduceOnlyCanceled', null);
      return;
    }
    const at = m.triggers.indexOf(t);
    if (at >= 0) m.triggers.splice(at, 1);
    t.user.removeTrigger(t);
    m.refreshTriggerBounds();
    this.emitStatus(t.user, null, null, 'triggered', this.triggerNodeOrder(t));
    const hash = this.rng.txHash();
    const result = this.executeTaker({
      user: t.user,
      market: m,
      isBuy: t.isBuy,
      sz: lots,
      limitPx: t.limitPx,
      oid: t.oid,
      hash,
      cloid: t.cloid,
      builder: null,
      twapId: null,
      liquidation: null,
      liquidatedDir: null,
    });
    const remaining = lots - result.lots;
    const order: NodeOrder = {
      ...this.triggerNodeOrder(t),
      sz: fmtUnits(remaining, m.szDecimals),
      timestamp: this.now,
      triggerCondition: 'Triggered',
      isTrigger: false,
      triggerPx: '0.0',
      tif: 'Gtc',
    };
    this.emitStatus(t.user, hash, null, remaining === 0 ? 'filled' : 'canceled', order);
  }

  // ---- node output helpers ----

  emitStatus(user: Account, hash: string | null, builder: BuilderFee | null, status: string, order: NodeOrder): void {
    this.ev.statuses.push({ time: this.ev.iso, user: user.address, hash, builder, status, order });
  }

  restingNodeOrder(o: RestingOrder, remaining: number): NodeOrder {
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

  takerNodeOrder(
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
      timestamp: this.now,
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

  triggerNodeOrder(t: TriggerOrder): NodeOrder {
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
}

const TOKEN_BY_INDEX = new Map(SPOT_TOKENS.map((t) => [t.index, t]));

export function tokenName(index: number): string {
  return TOKEN_BY_INDEX.get(index)?.name ?? `TKN${index}`;
}

export function tokenWeiDecimals(index: number): number {
  return TOKEN_BY_INDEX.get(index)?.weiDecimals ?? 8;
}

/** Starting USD price of a spot token (for initial balances). */
function spotPx(token: number): number {
  if (token === USDC_TOKEN) return 1;
  const pair = SPOT_PAIRS.find((p) => p.base === token);
  return pair ? pair.px : 1;
}
