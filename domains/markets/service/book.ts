// The live L4 order book of every coin (node L4 snapshot + the raw book diffs ingest publishes) and the L2 views
// served from it in the exchange's shapes: l2Book (book/aggregation.ts), bbo, mids, depth bands and slippage
// (book/depth.ts). One coin's book is book/coin-book.ts; the snapshot's format, book/l4-snapshot.ts.
import type { OrderStatusRow } from '../../../db/rows/accounts.ts';
import type { BookDiffRow } from '../../../db/rows/markets.ts';
import { formatScaled, scaled } from '../../../platform/decimal.ts';
import { aggregate, BookQueryError, type L2Options, l2Options } from './book/aggregation.ts';
import {
  CoinBook,
  type L2BookAnswer,
  type L2Level,
  type OrderDetail,
  type RestingOrder,
  toWireLevel,
} from './book/coin-book.ts';
import { type DepthAnswer, depthBands, impactBps, type SlippageAnswer } from './book/depth.ts';
import { type L4Order, type L4WireOrder, parseL4Snapshot } from './book/l4-snapshot.ts';

/** A coin's L4 book as order_book_server's l4Book snapshot prints it: every resting order, best first, in time priority. */
export interface L4BookAnswer {
  coin: string;
  time: number;
  /** The block the books stand at: the last one whose diffs were applied (or the node snapshot's). */
  height: number;
  levels: [L4WireOrder[], L4WireOrder[]];
}

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
/** Records of orders not (yet) on a book, kept for their `new` diff (the two streams arrive apart); oldest dropped. */
const MAX_PENDING_DETAILS = 100_000;

/**
 * The order record of a status that puts its order on the book (order_book_server's is_inserted_into_book: an open
 * non-trigger order that is not IOC, or a triggered one); null for any other status.
 */
export function restingDetail(row: OrderStatusRow): OrderDetail | null {
  const rests = (row.status === 'open' && !row.is_trigger && row.tif !== 'Ioc') || row.status === 'triggered';
  if (!rests) return null;
  return {
    timestamp: row.order_time,
    triggerCondition: row.trigger_condition,
    isTrigger: row.is_trigger,
    triggerPx: row.trigger_px,
    isPositionTpsl: row.is_position_tpsl,
    reduceOnly: row.reduce_only,
    orderType: row.order_type,
    origSz: row.orig_sz,
    tif: row.tif,
    cloid: row.cloid,
  };
}

/** What an order without its node record yet shows: a plain limit order placed when its diff came. */
function assumedDetail(order: RestingOrder, time: number): OrderDetail {
  return {
    timestamp: time,
    triggerCondition: 'N/A',
    isTrigger: false,
    triggerPx: '0.0',
    isPositionTpsl: false,
    reduceOnly: false,
    orderType: 'Limit',
    origSz: order.sz,
    tif: null,
    cloid: null,
  };
}

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
  private readonly pendingDetails = new Map<number, OrderDetail>();
  private readonly detailsChanged = new Set<string>();
  /** The block the books stand at: the snapshot's, then the last diff's. */
  height = 0;

  /** Applies a batch of diffs (as published by ingest, in order). Returns the coins whose book changed. */
  applyDiffs(diffs: readonly BookDiffRow[]): Set<string> {
    const changed = new Set<string>();
    for (const diff of diffs) {
      if (this.awaitingSnapshot(diff.coin)) this.buffer(diff);
      else if (this.applyLive(diff)) changed.add(diff.coin);
      if (diff.block_number > this.height) this.height = diff.block_number;
    }
    return changed;
  }

  /**
   * Takes the node's records of orders from their statuses (they carry what a raw diff does not: time, tif, cloid,
   * trigger fields, reduce-only): an order already on its book gets its record, a later one finds it on arrival.
   */
  noteStatuses(rows: readonly OrderStatusRow[]): void {
    for (const row of rows) {
      const detail = restingDetail(row);
      if (!detail) continue;
      const order = this.books.get(row.coin)?.orders.get(row.oid);
      if (order) {
        order.detail = detail;
        this.detailsChanged.add(row.coin);
        continue;
      }
      this.pendingDetails.set(row.oid, detail);
      if (this.pendingDetails.size > MAX_PENDING_DETAILS) {
        const oldest = this.pendingDetails.keys().next().value;
        if (oldest !== undefined) this.pendingDetails.delete(oldest);
      }
    }
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
      book.insert(o.oid, o.user, o.side, o.px, o.sz, o.detail ?? null);
    }
    if (!only || height > this.height) this.height = height;
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

  /** A coin's every resting order with the node's record of it, as order_book_server's l4Book snapshot; null: no book. */
  l4(coin: string): L4BookAnswer | null {
    const book = this.books.get(coin);
    if (!book) return null;
    const side = (levels: readonly { orders: Set<RestingOrder> }[], s: 'B' | 'A'): L4WireOrder[] => {
      const out: L4WireOrder[] = [];
      for (const level of levels) {
        for (const o of level.orders) {
          const d = o.detail ?? assumedDetail(o, book.time);
          // order_book_server's L4Order, its keys in its order.
          out.push({
            user: o.user,
            coin,
            side: s,
            limitPx: o.limitPx,
            sz: o.sz,
            oid: o.oid,
            timestamp: d.timestamp,
            triggerCondition: d.triggerCondition,
            isTrigger: d.isTrigger,
            triggerPx: d.triggerPx,
            isPositionTpsl: d.isPositionTpsl,
            reduceOnly: d.reduceOnly,
            orderType: d.orderType,
            tif: d.tif,
            cloid: d.cloid,
          });
        }
      }
      return out;
    };
    // A status arriving after its diff changes an order's record, not the book: the kept orders are rebuilt then too.
    if (this.detailsChanged.delete(coin)) book.l4Levels = null;
    book.l4Levels ??= [side(book.bids.bestFirst(), 'B'), side(book.asks.bestFirst(), 'A')];
    return { coin, time: book.time, height: this.height, levels: book.l4Levels as L4BookAnswer['levels'] };
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
      const detail = this.pendingDetails.get(diff.oid) ?? null;
      if (detail) this.pendingDetails.delete(diff.oid);
      book.insert(diff.oid, diff.address, diff.side, diff.px, diff.sz, detail);
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
