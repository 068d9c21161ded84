// The books of the simulator's recent past, so that it answers the node's l4Snapshots at any height of it: at the
// end of each block, every coin whose book changed (Market.bookVersion, bumped by the book's own mutations, not by
// the diffs written beside them) is copied; the snapshot at a height takes each coin's last copy at or below it.
// What the copies hold is the exchange's own state, which is what makes them the truth the service's diffs are
// checked against.
import type { Exchange } from './exchange.ts';
import type { Market, RestingOrder } from './market.ts';

/** One coin's book as it stood from block `height` on: its orders best-first with their sizes then; null: delisted. */
interface BookCopy {
  height: number;
  sides: { orders: RestingOrder[]; sizes: number[] }[] | null;
}

export interface PastOrder {
  order: RestingOrder;
  /** Remaining size in lots at that height (the order object holds today's). */
  sz: number;
}

export type PastBook = [coin: string, bids: PastOrder[], asks: PastOrder[]];

export class BookHistory {
  private readonly copies = new Map<string, BookCopy[]>();
  private readonly versions = new Map<Market, number>();
  private marketsVersion = -1;
  private lastHeight: number | null = null;
  private firstHeight: number | null = null;

  /** Keeps the blocks of the last `depth` heights (and each coin's copy from before them). */
  constructor(readonly depth: number) {}

  /** Records the books as they stand at the end of block `height`. */
  capture(x: Exchange, height: number): void {
    if (x.marketsVersion !== this.marketsVersion) {
      this.marketsVersion = x.marketsVersion;
      const live = new Set(x.markets);
      for (const m of this.versions.keys()) {
        if (live.has(m)) continue;
        this.versions.delete(m);
        this.push(m.coin, { height, sides: null });
      }
    }
    for (const m of x.markets) {
      if (this.versions.get(m) === m.bookVersion) continue;
      this.versions.set(m, m.bookVersion);
      const sides = [m.bids, m.asks].map((side) => ({ orders: side.slice(), sizes: side.map((o) => o.sz) }));
      this.push(m.coin, { height, sides });
    }
    this.firstHeight ??= height;
    this.lastHeight = height;
    if (height % 256 === 0) this.prune(height - this.depth);
  }

  /** The heights answered: [oldest, newest], or null before the first block. */
  range(): [number, number] | null {
    if (this.lastHeight === null || this.firstHeight === null) return null;
    return [Math.max(this.firstHeight, this.lastHeight - this.depth), this.lastHeight];
  }

  /** Every listed coin's book at the end of block `height` (in the order coins were first seen); null outside range(). */
  at(height: number): PastBook[] | null {
    const range = this.range();
    if (!range || height < range[0] || height > range[1]) return null;
    const out: PastBook[] = [];
    for (const [coin, copies] of this.copies) {
      const copy = lastAtOrBelow(copies, height);
      if (!copy?.sides) continue;
      const [bids, asks] = copy.sides.map(({ orders, sizes }) => orders.map((order, i) => ({ order, sz: sizes[i]! })));
      out.push([coin, bids!, asks!]);
    }
    return out;
  }

  private push(coin: string, copy: BookCopy): void {
    const copies = this.copies.get(coin);
    if (!copies) this.copies.set(coin, [copy]);
    else if (copies[copies.length - 1]!.height === copy.height) copies[copies.length - 1] = copy;
    else copies.push(copy);
  }

  /** Drops copies no height from `oldest` on needs: all but the last one below it. */
  private prune(oldest: number): void {
    for (const [coin, copies] of this.copies) {
      let keepFrom = 0;
      while (keepFrom + 1 < copies.length && copies[keepFrom + 1]!.height <= oldest) keepFrom++;
      if (keepFrom > 0) copies.splice(0, keepFrom);
      if (copies.length === 1 && copies[0]!.sides === null && copies[0]!.height <= oldest) this.copies.delete(coin);
    }
  }
}

function lastAtOrBelow(copies: readonly BookCopy[], height: number): BookCopy | null {
  let lo = 0;
  let hi = copies.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (copies[mid]!.height <= height) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : copies[lo - 1]!;
}
