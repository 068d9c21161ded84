// One coin's L4 book: its resting orders by oid, grouped into price levels per side in time priority, each side
// kept best-first; and the L2 level a price level prints as.
import {
  addScaled,
  compareDecimal,
  formatScaled,
  SCALED_ZERO,
  type Scaled,
  scaled,
  trimDecimal,
} from '../../../../platform/decimal.ts';

export type Side = 'A' | 'B';

/** One price level as the exchange prints it. */
export interface L2Level {
  px: string;
  sz: string;
  n: number;
}

export interface L2BookAnswer {
  coin: string;
  time: number;
  /** Bids best→worst (descending px), asks best→worst (ascending px). */
  levels: [L2Level[], L2Level[]];
}

/** What the node says of a resting order besides its book position (its order record's other fields). */
export interface OrderDetail {
  timestamp: number;
  triggerCondition: string;
  isTrigger: boolean;
  triggerPx: string;
  isPositionTpsl: boolean;
  reduceOnly: boolean;
  orderType: string;
  origSz: string;
  tif: string | null;
  cloid: string | null;
}

export interface RestingOrder {
  readonly oid: number;
  readonly user: string;
  /** The limit price as the node printed it (the level's key is its trimmed text). */
  readonly limitPx: string;
  sz: string;
  readonly level: PriceLevel;
  /** Null until the node's record of the order is seen (its open status; the snapshot carries it). */
  detail: OrderDetail | null;
}

export interface PriceLevel {
  /** Canonical text: the level key and the wire px. */
  readonly px: string;
  /** For ordering only; equal floats are tie-broken exactly. */
  readonly pxNum: number;
  /** Insertion order is time priority. */
  readonly orders: Set<RestingOrder>;
  /** Sum of the orders' sizes, computed when a query needs it; null once an order changes. */
  size: Scaled | null;
  pxDec: Scaled | null;
}

export function levelSize(level: PriceLevel): Scaled {
  if (level.size) return level.size;
  let sum = SCALED_ZERO;
  for (const o of level.orders) sum = addScaled(sum, scaled(o.sz));
  level.size = sum;
  return sum;
}

export function levelPx(level: PriceLevel): Scaled {
  level.pxDec ??= scaled(level.px);
  return level.pxDec;
}

/** (best bid + best ask) / 2, exact: halving adds at most one decimal (x/2 = 5x/10). */
export function midPrice(bid: Scaled, ask: Scaled): Scaled {
  const sum = addScaled(bid, ask);
  return sum.units % 2n === 0n
    ? { units: sum.units / 2n, scale: sum.scale }
    : { units: sum.units * 5n, scale: sum.scale + 1 };
}

export function toWireLevel(level: PriceLevel): L2Level {
  return { px: level.px, sz: formatScaled(levelSize(level)), n: level.orders.size };
}

/** One side's price levels. The best-first order is built when first queried, then kept by binary insertion. */
class BookSide {
  readonly levels = new Map<string, PriceLevel>();
  private sorted: PriceLevel[] | null = null;

  constructor(private readonly side: Side) {}

  /** Negative when `a` is better than `b`: higher bids, lower asks. */
  private compare(a: PriceLevel, b: PriceLevel): number {
    const byPx = a.pxNum - b.pxNum || compareDecimal(a.px, b.px);
    return this.side === 'B' ? -byPx : byPx;
  }

  /** First index whose level is not better than `level`. */
  private lowerBound(sorted: readonly PriceLevel[], level: PriceLevel): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(sorted[mid]!, level) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  levelFor(px: string): PriceLevel {
    let level = this.levels.get(px);
    if (level) return level;
    level = { px, pxNum: Number(px), orders: new Set(), size: null, pxDec: null };
    this.levels.set(px, level);
    if (this.sorted) this.sorted.splice(this.lowerBound(this.sorted, level), 0, level);
    return level;
  }

  dropIfEmpty(level: PriceLevel): void {
    if (level.orders.size) return;
    this.levels.delete(level.px);
    if (!this.sorted) return;
    const i = this.lowerBound(this.sorted, level);
    if (this.sorted[i] === level) this.sorted.splice(i, 1);
    else this.sorted = null; // cannot happen; rebuild rather than serve a wrong order
  }

  bestFirst(): readonly PriceLevel[] {
    if (!this.sorted) this.sorted = [...this.levels.values()].sort((a, b) => this.compare(a, b));
    return this.sorted;
  }

  best(): PriceLevel | null {
    return this.bestFirst()[0] ?? null;
  }
}

export class CoinBook {
  readonly orders = new Map<number, RestingOrder>();
  readonly bids = new BookSide('B');
  readonly asks = new BookSide('A');
  /** l2 answers by their options, while the book does not change: one object (and one encoding) per change. */
  readonly l2Answers = new Map<string, L2BookAnswer>();
  /** The L4 answer's orders while the book does not change (OrderBooks.l4 builds them). */
  l4Levels: unknown = null;

  constructor(
    readonly coin: string,
    public time: number,
  ) {}

  insert(oid: number, user: string, side: Side, px: string, sz: string, detail: OrderDetail | null = null): void {
    this.changed();
    const prior = this.orders.get(oid);
    if (prior) this.delete(prior);
    const level = (side === 'B' ? this.bids : this.asks).levelFor(trimDecimal(px));
    const order: RestingOrder = { oid, user, limitPx: px, sz, level, detail };
    level.orders.add(order);
    level.size = null;
    this.orders.set(oid, order);
  }

  /** Drops the answers kept for the book as it was. */
  changed(): void {
    this.l2Answers.clear();
    this.l4Levels = null;
  }

  resize(order: RestingOrder, sz: string): void {
    this.changed();
    order.sz = sz;
    order.level.size = null;
  }

  delete(order: RestingOrder): void {
    this.changed();
    this.orders.delete(order.oid);
    const level = order.level;
    level.orders.delete(order);
    level.size = null;
    // The order's side is the side holding its level.
    (this.bids.levels.get(level.px) === level ? this.bids : this.asks).dropIfEmpty(level);
  }

  mid(): Scaled | null {
    const bid = this.bids.best();
    const ask = this.asks.best();
    if (!bid || !ask) return null;
    return midPrice(levelPx(bid), levelPx(ask));
  }
}
