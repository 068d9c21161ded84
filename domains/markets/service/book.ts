// The live L4 order book of every coin (node L4 snapshot + the raw book diffs ingest publishes) and the L2 views
// served from it in the exchange's shapes: l2Book (book/aggregation.ts), bbo, mids, depth bands and slippage
// (book/depth.ts). One coin's book is book/coin-book.ts; the snapshot's format, book/l4-snapshot.ts.
import type { BookDiffRow } from '../../../db/rows/markets.ts';
import { formatScaled, scaled } from '../../../platform/decimal.ts';
import { aggregate, BookQueryError, type L2Options, l2Options } from './book/aggregation.ts';
import { CoinBook, type L2BookAnswer, type L2Level, toWireLevel } from './book/coin-book.ts';
import { type DepthAnswer, depthBands, impactBps, type SlippageAnswer } from './book/depth.ts';
import { type L4Order, parseL4Snapshot } from './book/l4-snapshot.ts';

export {
  BookQueryError,
  type CheckedL2Options,
  type L2Options,
  l2Options,
} from './book/aggregation.ts';
export type { L2BookAnswer, L2Level } from './book/coin-book.ts';
export { DEPTH_BANDS_BPS, type DepthAnswer, type DepthBand, type SlippageAnswer } from './book/depth.ts';
export type { L4Order } from './book/l4-snapshot.ts';

export interface BboAnswer {
  coin: string;
  time: number;
  bbo: [L2Level | null, L2Level | null];
}

export interface OrderBookStats {
  /** update/remove diffs for an oid not resting in the coin's book: ignored. */
  unknownOids: number;
  /** new diffs for an oid already resting: the old order is replaced. */
  replacedOids: number;
  /** Diffs at or below the coin's snapshot height: already contained in the snapshot, ignored. */
  staleDiffs: number;
  /** Diffs without the size their kind needs: ignored. */
  malformedDiffs: number;
  /** Diffs dropped (oldest first) from the pre-snapshot buffer when it overflowed. */
  droppedBuffered: number;
}

/** A missing snapshot must not grow memory without bound; the oldest diffs are the ones a snapshot will cover. */
const MAX_BUFFERED_DIFFS = 2_000_000;

const POSITIVE_DECIMAL = /^\d+(?:\.\d+)?$/;

export class OrderBooks {
  readonly stats: OrderBookStats = {
    unknownOids: 0,
    replacedOids: 0,
    staleDiffs: 0,
    malformedDiffs: 0,
    droppedBuffered: 0,
  };
  private readonly books = new Map<string, CoinBook>();
  /** Until a full snapshot is loaded every coin awaits one, except coins loaded by a partial snapshot. */
  private fullSnapshotLoaded = false;
  private snapshotHeight = 0;
  private readonly coinSnapshotHeights = new Map<string, number>();
  private buffered: BookDiffRow[] = [];

  /** Applies a batch of diffs (as published by ingest, in order). Returns the coins whose book changed. */
  applyDiffs(diffs: readonly BookDiffRow[]): Set<string> {
    const changed = new Set<string>();
    for (const diff of diffs) {
      if (this.awaitingSnapshot(diff.coin)) this.buffer(diff);
      else if (this.applyLive(diff)) changed.add(diff.coin);
    }
    return changed;
  }

  /**
   * Replaces books from an L4 snapshot taken at block `height` and `time`: all books, or only those of `coins`
   * (the snapshot's orders of other coins are then ignored). Buffered diffs of the replaced coins with
   * block_number > height are replayed; later diffs at or below `height` are ignored for them.
   */
  loadSnapshot(orders: readonly L4Order[], height: number, time: number, coins?: readonly string[]): void {
    const only = coins ? new Set(coins) : null;
    if (only) {
      for (const coin of only) {
        this.books.set(coin, new CoinBook(coin, time));
        this.coinSnapshotHeights.set(coin, height);
      }
    } else {
      this.books.clear();
      this.coinSnapshotHeights.clear();
      this.fullSnapshotLoaded = true;
      this.snapshotHeight = height;
    }
    for (const o of orders) {
      if (only && !only.has(o.coin)) continue;
      let book = this.books.get(o.coin);
      if (!book) {
        book = new CoinBook(o.coin, time);
        this.books.set(o.coin, book);
      }
      if (book.orders.has(o.oid)) this.stats.replacedOids++;
      book.insert(o.oid, o.user, o.side, o.px, o.sz);
    }
    const pending = this.buffered;
    this.buffered = [];
    for (const diff of pending) {
      if (this.awaitingSnapshot(diff.coin)) this.buffered.push(diff);
      else this.applyLive(diff);
    }
  }

  /** Parses the node's l4Snapshots JSON (`[[coin, [bids, asks]], ...]`, optionally wrapped as `[height, ...]`). */
  static parseL4Snapshot(json: unknown): L4Order[] {
    return parseL4Snapshot(json);
  }

  /** The aggregated book; the same object until the book changes (callers must not modify it). */
  l2(coin: string, opts: L2Options = {}): L2BookAnswer | null {
    const checked = l2Options(opts);
    const book = this.books.get(coin);
    if (!book) return null;
    // mantissa 1 is no aggregation beyond nSigFigs: the same answer as none.
    const key = `${checked.nSigFigs} ${checked.mantissa ?? 1} ${checked.levels}`;
    let answer = book.l2Answers.get(key);
    if (!answer) {
      answer = {
        coin,
        time: book.time,
        levels: [aggregate(book.bids.bestFirst(), 'B', checked), aggregate(book.asks.bestFirst(), 'A', checked)],
      };
      book.l2Answers.set(key, answer);
    }
    return answer;
  }

  bbo(coin: string): BboAnswer | null {
    const book = this.books.get(coin);
    if (!book) return null;
    const bid = book.bids.best();
    const ask = book.asks.best();
    return { coin, time: book.time, bbo: [bid && toWireLevel(bid), ask && toWireLevel(ask)] };
  }

  /** (best bid + best ask) / 2, exact; null when one side is empty or the coin is unknown. */
  mid(coin: string): string | null {
    const mid = this.books.get(coin)?.mid();
    return mid ? formatScaled(mid) : null;
  }

  /** Every coin with both sides: coin → mid. */
  mids(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [coin, book] of this.books) {
      const mid = book.mid();
      if (mid) out[coin] = formatScaled(mid);
    }
    return out;
  }

  /**
   * Cumulative notional of the levels within ±band bps of the mid (edges inclusive), per band.
   * Null for an unknown coin or a book without both sides (no mid to measure from).
   */
  depth(coin: string): DepthAnswer | null {
    const book = this.books.get(coin);
    const mid = book?.mid();
    if (!book || !mid) return null;
    const depth = depthBands(book.bids.bestFirst(), book.asks.bestFirst(), mid);
    return { coin, time: book.time, midPx: formatScaled(mid), depth };
  }

  /**
   * Price impact in bps from the mid of a market buy and sell of `notionalUsd` (quote units), measured at the
   * average fill price and rounded to 4 decimals; a side without enough liquidity (or no mid) gives null.
   * Null for an unknown coin.
   */
  slippage(coin: string, notionalUsd: string): SlippageAnswer | null {
    if (!POSITIVE_DECIMAL.test(notionalUsd) || scaled(notionalUsd).units === 0n) {
      throw new BookQueryError(`notionalUsd must be a positive decimal string, got ${JSON.stringify(notionalUsd)}`);
    }
    const book = this.books.get(coin);
    if (!book) return null;
    const mid = book.mid();
    if (!mid) return { buyBps: null, sellBps: null };
    const notional = scaled(notionalUsd);
    return {
      buyBps: impactBps(book.asks.bestFirst(), notional, mid, 'buy'),
      sellBps: impactBps(book.bids.bestFirst(), notional, mid, 'sell'),
    };
  }

  /** Coins with a book, sorted. */
  coins(): string[] {
    return [...this.books.keys()].sort();
  }

  /** Time (ms) of the last change of a coin's book (the snapshot's time until a diff lands); null if unknown. */
  lastChangeTime(coin: string): number | null {
    return this.books.get(coin)?.time ?? null;
  }

  private awaitingSnapshot(coin: string): boolean {
    return !this.fullSnapshotLoaded && !this.coinSnapshotHeights.has(coin);
  }

  private buffer(diff: BookDiffRow): void {
    this.buffered.push(diff);
    if (this.buffered.length > MAX_BUFFERED_DIFFS) {
      // Drop a quarter at once so the copy is amortised over many pushes.
      const drop = MAX_BUFFERED_DIFFS >> 2;
      this.buffered.splice(0, drop);
      this.stats.droppedBuffered += drop;
    }
  }

  /** Applies one diff to a coin that has its snapshot; true when the book changed. */
  private applyLive(diff: BookDiffRow): boolean {
    if (diff.block_number <= (this.coinSnapshotHeights.get(diff.coin) ?? this.snapshotHeight)) {
      this.stats.staleDiffs++;
      return false;
    }
    let book = this.books.get(diff.coin);
    if (diff.kind === 'new') {
      if (diff.sz === null) {
        this.stats.malformedDiffs++;
        return false;
      }
      if (!book) {
        book = new CoinBook(diff.coin, diff.time);
        this.books.set(diff.coin, book);
      }
      if (book.orders.has(diff.oid)) this.stats.replacedOids++;
      book.insert(diff.oid, diff.address, diff.side, diff.px, diff.sz);
    } else {
      const order = book?.orders.get(diff.oid);
      if (!book || !order) {
        this.stats.unknownOids++;
        return false;
      }
      if (diff.kind === 'update') {
        if (diff.sz === null) {
          this.stats.malformedDiffs++;
          return false;
        }
        book.resize(order, diff.sz);
      } else {
        book.delete(order);
      }
    }
    book.time = diff.time;
    return true;
  }
}
