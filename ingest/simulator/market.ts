// One tradable coin: its fair-price process, its L4 book (resting orders in price-time priority), its pending
// trigger orders and the rolling 24 h statistics behind asset contexts.
import type { Account } from './account.ts';
import { sideProbability } from './hip4.ts';
import type { Rng } from './rng.ts';

export type MarketKind = 'perp' | 'spot' | 'outcome';

export interface BuilderFee {
  b: string;
  /** Tenths of a basis point. */
  f: number;
}

export interface RestingOrder {
  oid: number;
  user: Account;
  market: Market;
  isBuy: boolean;
  /** Price in ticks (px × 10^pxDecimals). */
  px: number;
  /** Remaining size in lots (sz × 10^szDecimals). */
  sz: number;
  origSz: number;
  timestamp: number;
  tif: 'Gtc' | 'Alo';
  orderType: string;
  cloid: string | null;
  builder: BuilderFee | null;
  reduceOnly: boolean;
  /** Quote of a market maker's ladder (requoted automatically). */
  isQuote: boolean;
  /** Position in `user.orders`, for O(1) removal. */
  slot: number;
}

export interface TriggerOrder {
  oid: number;
  user: Account;
  market: Market;
  isBuy: boolean;
  sz: number;
  triggerPx: number;
  /** Fires when the mark is at or below the trigger price (else at or above). */
  below: boolean;
  isTakeProfit: boolean;
  /** Worst execution price once triggered (slippage bound). */
  limitPx: number;
  timestamp: number;
  cloid: string | null;
  isPositionTpsl: boolean;
  slot: number;
}

export interface OutcomeInfo {
  outcomeId: number;
  side: number;
  /** The odds of side 0 (side 1's are one minus them): data, so that a simulator's state can be saved. */
  odds: OutcomeOdds;
}

/**
 * Side 0's probability of winning: a fixed one, or that of the underlying's price ending in bucket `bucket` of
 * `thresholds` at `expiry` (hip4.ts sideProbability).
 */
export type OutcomeOdds =
  | { kind: 'fixed'; p: number }
  | { kind: 'bucket'; expiry: number; thresholds: readonly number[]; bucket: number };

export interface MarketInit {
  coin: string;
  kind: MarketKind;
  dex: string;
  szDecimals: number;
  pxDecimals: number;
  px: number;
  vol: number;
  weight: number;
  maxLeverage?: number;
  marginTableId?: number;
  onlyIsolated?: boolean;
  baseToken?: number;
  quoteToken?: number;
  underlying?: Market | null;
  outcome?: OutcomeInfo;
}

const MS_PER_YEAR = 365 * 24 * 3600 * 1000;
/** Mean reversion towards the listing price (1/3 day), so ticks stay valid for weeks of history. */
const REVERSION_PER_MS = 1 / (3 * 24 * 3600 * 1000);
const MINUTES_PER_DAY = 1440;

export class Market {
  readonly coin: string;
  readonly kind: MarketKind;
  /** '' native perps, HIP-3 dex name, 'spot' or 'outcome'. */
  readonly dex: string;
  readonly szDecimals: number;
  readonly pxDecimals: number;
  readonly pxScale: number;
  readonly szScale: number;
  readonly maxLeverage: number;
  readonly marginTableId: number;
  readonly onlyIsolated: boolean;
  readonly weight: number;
  readonly baseToken: number;
  readonly quoteToken: number;
  readonly underlying: Market | null;
  readonly outcome: OutcomeInfo | null;
  readonly anchor: number;
  readonly annualVol: number;
  private readonly sigmaPerSqrtMs: number;

  fair: number;
  private fairAt = Number.NEGATIVE_INFINITY;
  active = true;

  readonly bids: RestingOrder[] = [];
  readonly asks: RestingOrder[] = [];
  readonly triggers: TriggerOrder[] = [];
  /** Bumped by every change of `bids` or `asks` (an order in, out, or its size): what BookHistory copies by. */
  bookVersion = 0;
  /** Cheap pre-check before scanning triggers: highest "below" and lowest "above" trigger price. */
  triggerBelowMax = Number.NEGATIVE_INFINITY;
  triggerAboveMin = Number.POSITIVE_INFINITY;

  /** Market makers' ladder geometry (fractions of price) and size per level (USD). */
  readonly halfSpread: number;
  readonly levelStep: number;
  readonly levels: number;
  readonly levelNotional: number;

  fundingRate = 0.0000125;
  oraclePx: number;
  /** Sum of long positions in lots (= open interest). */
  longLots = 0;

  private readonly ntlRing = new Float64Array(MINUTES_PER_DAY);
  private readonly baseRing = new Float64Array(MINUTES_PER_DAY);
  private readonly pxRing = new Float64Array(MINUTES_PER_DAY);
  private ringPos = 0;
  private minuteNtl = 0;
  private minuteBase = 0;
  dayNtl = 0;
  dayBase = 0;

  constructor(init: MarketInit) {
    this.coin = init.coin;
    this.kind = init.kind;
    this.dex = init.dex;
    this.szDecimals = init.szDecimals;
    this.pxDecimals = init.pxDecimals;
    this.pxScale = 10 ** init.pxDecimals;
    this.szScale = 10 ** init.szDecimals;
    this.maxLeverage = init.maxLeverage ?? 1;
    this.marginTableId = init.marginTableId ?? 0;
    this.onlyIsolated = init.onlyIsolated ?? false;
    this.weight = init.weight;
    this.baseToken = init.baseToken ?? -1;
    this.quoteToken = init.quoteToken ?? -1;
    this.underlying = init.underlying ?? null;
    this.outcome = init.outcome ?? null;
    this.anchor = init.px;
    this.fair = init.px;
    this.oraclePx = init.px;
    this.annualVol = init.vol;
    this.sigmaPerSqrtMs = init.vol / Math.sqrt(MS_PER_YEAR);
    this.pxRing.fill(init.px);
    const isMajor = init.coin === 'BTC' || init.coin === 'ETH';
    this.halfSpread = init.kind === 'outcome' ? 0.004 : isMajor ? 0.0001 : 0.0003;
    this.levelStep = init.kind === 'outcome' ? 0.01 : isMajor ? 0.0008 : 0.0015;
    this.levels = init.kind === 'outcome' ? 3 : 4;
    this.levelNotional = init.kind === 'outcome' ? 800 : isMajor ? 60_000 : init.kind === 'spot' ? 6_000 : 15_000;
  }

  /** Moves the fair price to `now` (lazily: only markets that are touched or sampled move). */
  advance(now: number, rng: Rng): void {
    if (now <= this.fairAt) return;
    const dt = Number.isFinite(this.fairAt) ? now - this.fairAt : 0;
    this.fairAt = now;
    if (this.outcome && this.underlying) {
      this.underlying.advance(now, rng);
      const p = sideProbability(this.outcome, this.underlying, now);
      this.fair = Math.min(0.999, Math.max(0.001, p));
      return;
    }
    if (this.underlying) {
      this.underlying.advance(now, rng);
      this.fair = Math.min(this.anchor * 1.99, Math.max(this.anchor * 0.5, this.underlying.fair));
      return;
    }
    if (dt === 0) return;
    if (this.outcome) {
      // An event without a price underlying: its probability wanders in log-odds space.
      const logit = Math.log(this.fair / (1 - this.fair)) + this.sigmaPerSqrtMs * Math.sqrt(dt) * rng.normal();
      this.fair = Math.min(0.999, Math.max(0.001, 1 / (1 + Math.exp(-logit))));
      return;
    }
    const drift = -REVERSION_PER_MS * dt * Math.log(this.fair / this.anchor);
    const next = this.fair * Math.exp(this.sigmaPerSqrtMs * Math.sqrt(dt) * rng.normal() + drift);
    this.fair = Math.min(this.anchor * 1.99, Math.max(this.anchor * 0.5, next));
  }

  /** Moves the fair price by `factor` at once (a cascade's fall), within the walk's bounds. */
  shock(factor: number): void {
    this.fair = Math.min(this.anchor * 1.99, Math.max(this.anchor * 0.5, this.fair * factor));
  }

  /** Fair price rounded to the tick, in ticks. */
  markTicks(): number {
    const ticks = Math.round(this.fair * this.pxScale);
    if (this.kind === 'outcome') return Math.min(this.pxScale - 1, Math.max(1, ticks));
    return Math.max(1, ticks);
  }

  markPx(): number {
    return this.markTicks() / this.pxScale;
  }

  midPx(): number | null {
    const bid = this.bids[0];
    const ask = this.asks[0];
    if (!bid || !ask) return null;
    return (bid.px + ask.px) / 2 / this.pxScale;
  }

  /** Inserts behind orders at the same price (time priority). */
  insert(order: RestingOrder): void {
    this.bookVersion++;
    const side = order.isBuy ? this.bids : this.asks;
    let lo = 0;
    let hi = side.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const other = side[mid]!.px;
      const worse = order.isBuy ? other < order.px : other > order.px;
      if (worse) hi = mid;
      else lo = mid + 1;
    }
    if (lo === side.length) side.push(order);
    else side.splice(lo, 0, order);
  }

  removeFromBook(order: RestingOrder): void {
    this.bookVersion++;
    const side = order.isBuy ? this.bids : this.asks;
    const at = side.indexOf(order);
    if (at === 0) side.shift();
    else if (at > 0) side.splice(at, 1);
  }

  refreshTriggerBounds(): void {
    let belowMax = Number.NEGATIVE_INFINITY;
    let aboveMin = Number.POSITIVE_INFINITY;
    for (const t of this.triggers) {
      if (t.below) belowMax = Math.max(belowMax, t.triggerPx);
      else aboveMin = Math.min(aboveMin, t.triggerPx);
    }
    this.triggerBelowMax = belowMax;
    this.triggerAboveMin = aboveMin;
  }

  recordTrade(price: number, qty: number): void {
    this.minuteNtl += price * qty;
    this.minuteBase += qty;
  }

  /** Rolls the 24 h windows at a minute boundary. */
  closeMinute(): void {
    this.ringPos = (this.ringPos + 1) % MINUTES_PER_DAY;
    this.dayNtl = Math.max(0, this.dayNtl + this.minuteNtl - this.ntlRing[this.ringPos]!);
    this.dayBase = Math.max(0, this.dayBase + this.minuteBase - this.baseRing[this.ringPos]!);
    this.ntlRing[this.ringPos] = this.minuteNtl;
    this.baseRing[this.ringPos] = this.minuteBase;
    this.pxRing[this.ringPos] = this.markPx();
    this.minuteNtl = 0;
    this.minuteBase = 0;
  }

  /** Mark price one day ago (the oldest minute in the window). */
  prevDayPx(): number {
    return this.pxRing[(this.ringPos + 1) % MINUTES_PER_DAY]!;
  }
}
