// The L4 book's per-block updates as order_book_server's l4Book sends them: a block's order statuses and raw book
// diffs, per coin, in the node's own records. Ingest follows the two streams apart, so a block's statuses and diffs
// come in separate batches in either order: a block is released once both streams have reached it, or HOLD_MS after
// its first record came (a stream without that block, or a lagging one, must not hold the book's followers back).
import type { OrderStatusRow } from '../../../../db/rows/accounts.ts';
import type { BookDiffRow } from '../../../../db/rows/markets.ts';
import type { Side } from './coin-book.ts';

/** The node's order record inside a status line, as order_book_server prints it (L4Order, user null inside). */
export interface NodeOrderRecord {
  user: null;
  coin: string;
  side: Side;
  limitPx: string;
  sz: string;
  oid: number;
  timestamp: number;
  triggerCondition: string;
  isTrigger: boolean;
  triggerPx: string;
  isPositionTpsl: boolean;
  reduceOnly: boolean;
  orderType: string;
  tif: string | null;
  cloid: string | null;
}

/** One order status line: order_book_server's NodeDataOrderStatus (time: the node's naive UTC ISO text). */
export interface NodeStatusRecord {
  time: string;
  user: string;
  status: string;
  order: NodeOrderRecord;
}

export type RawBookDiff = { new: { sz: string } } | { update: { origSz: string; newSz: string } } | 'remove';

/** One raw book diff: order_book_server's NodeDataOrderDiff, with the node's `side` kept (a `new` needs it). */
export interface NodeDiffRecord {
  user: string;
  oid: number;
  px: string;
  coin: string;
  side: Side;
  raw_book_diff: RawBookDiff;
}

/** One coin's part of a block: the `Updates` payload of an l4Book frame. */
export interface L4CoinUpdates {
  time: number;
  height: number;
  order_statuses: NodeStatusRecord[];
  book_diffs: NodeDiffRecord[];
}

/** A block's updates, by coin (each coin's object shared by all its subscribers). */
export interface L4BlockUpdates {
  height: number;
  time: number;
  byCoin: Map<string, L4CoinUpdates>;
}

/** How long a block waits for the other stream's records before it goes out without them. */
export const HOLD_MS = 250;

export function statusRecord(row: OrderStatusRow): NodeStatusRecord {
  return {
    time: new Date(row.time).toISOString().slice(0, -1),
    user: row.address,
    status: row.status,
    order: {
      user: null,
      coin: row.coin,
      side: row.side,
      limitPx: row.limit_px,
      sz: row.sz,
      oid: row.oid,
      timestamp: row.order_time,
      triggerCondition: row.trigger_condition,
      isTrigger: row.is_trigger,
      triggerPx: row.trigger_px,
      isPositionTpsl: row.is_position_tpsl,
      reduceOnly: row.reduce_only,
      orderType: row.order_type,
      tif: row.tif,
      cloid: row.cloid,
    },
  };
}

export function diffRecord(row: BookDiffRow): NodeDiffRecord {
  let raw: RawBookDiff = 'remove';
  if (row.kind === 'new') raw = { new: { sz: row.sz ?? '0' } };
  else if (row.kind === 'update') raw = { update: { origSz: row.orig_sz ?? '0', newSz: row.sz ?? '0' } };
  return { user: row.address, oid: row.oid, px: row.px, coin: row.coin, side: row.side, raw_book_diff: raw };
}

interface Pending {
  block: L4BlockUpdates;
  since: number;
}

/** Joins the two streams' batches into blocks and hands each block on once, in height order. */
export class L4UpdateAssembler {
  private readonly pending = new Map<number, Pending>();
  private diffsAt = 0;
  private statusesAt = 0;
  private released = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly emit: (block: L4BlockUpdates) => void,
    private readonly now: () => number = Date.now,
  ) {}

  diffs(rows: readonly BookDiffRow[]): void {
    for (const row of rows) {
      this.coinOf(row.block_number, row.time, row.coin)?.book_diffs.push(diffRecord(row));
      if (row.block_number > this.diffsAt) this.diffsAt = row.block_number;
    }
    this.release();
  }

  statuses(rows: readonly OrderStatusRow[]): void {
    for (const row of rows) {
      this.coinOf(row.block_number, row.time, row.coin)?.order_statuses.push(statusRecord(row));
      if (row.block_number > this.statusesAt) this.statusesAt = row.block_number;
    }
    this.release();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The coin's part of a block not yet released; null for a block already out (a late record is dropped). */
  private coinOf(height: number, time: number, coin: string): L4CoinUpdates | null {
    if (height <= this.released) return null;
    let pending = this.pending.get(height);
    if (!pending) {
      pending = { block: { height, time, byCoin: new Map() }, since: this.now() };
      this.pending.set(height, pending);
    }
    let updates = pending.block.byCoin.get(coin);
    if (!updates) {
      updates = { time, height, order_statuses: [], book_diffs: [] };
      pending.block.byCoin.set(coin, updates);
    }
    return updates;
  }

  /** Releases, in order, the blocks both streams reached and those held HOLD_MS; arms the timer for the rest. */
  private release(): void {
    if (this.pending.size === 0) return;
    const both = Math.min(this.diffsAt, this.statusesAt);
    const now = this.now();
    let upTo = 0;
    for (const [height, p] of this.pending) {
      if (height <= both || now - p.since >= HOLD_MS) upTo = Math.max(upTo, height);
    }
    if (upTo > 0) {
      const due = [...this.pending.keys()].filter((h) => h <= upTo).sort((a, b) => a - b);
      for (const height of due) {
        const p = this.pending.get(height)!;
        this.pending.delete(height);
        this.released = height;
        this.emit(p.block);
      }
    }
    if (this.pending.size > 0 && !this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.release();
      }, HOLD_MS);
      this.timer.unref?.();
    }
  }
}
