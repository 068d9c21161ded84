import { builder } from '../builder.ts';
import type { L4WireOrder } from '../service/book/l4-snapshot.ts';
import type { L4CoinUpdates, NodeDiffRecord, NodeOrderRecord, NodeStatusRecord } from '../service/book/l4-updates.ts';
import type { L4BookAnswer } from '../service/book.ts';
import { UserRef } from './user.ts';

/** An order as a book or a status carries it; `user` absent on a status's order (the status names it). */
type OrderParent = (L4WireOrder | NodeOrderRecord) & { user: string | null };

const L4OrderRef = builder.objectRef<OrderParent>('L4Order').implement({
  description: "One order as the node records it (the book's resting orders; the order of a status)",
  fields: (t) => ({
    user: t.field({
      type: UserRef,
      nullable: true,
      description: 'Its owner (null on a status: the status names it)',
      resolve: (o) => (o.user ? { address: o.user } : null),
    }),
    oid: t.id({ resolve: (o) => String(o.oid) }),
    cloid: t.exposeString('cloid', { nullable: true }),
    coin: t.exposeString('coin'),
    side: t.exposeString('side', { description: '"B" (bid) or "A" (ask)' }),
    limitPx: t.expose('limitPx', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal', description: 'Size resting (left)' }),
    timestamp: t.expose('timestamp', { type: 'Timestamp', description: 'When it was placed (triggered)' }),
    tif: t.exposeString('tif', { nullable: true, description: 'Gtc, Alo, Ioc; null for a trigger order' }),
    orderType: t.exposeString('orderType'),
    reduceOnly: t.exposeBoolean('reduceOnly'),
    isTrigger: t.exposeBoolean('isTrigger'),
    triggerCondition: t.exposeString('triggerCondition'),
    triggerPx: t.expose('triggerPx', { type: 'Decimal' }),
    isPositionTpsl: t.exposeBoolean('isPositionTpsl'),
  }),
});

export const L4BookRef = builder.objectRef<L4BookAnswer>('L4Book').implement({
  description: 'Every resting order of a coin, best price first, in time priority within a price',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp', description: 'Time of the last change' }),
    height: t.exposeInt('height', { description: 'The block the book stands at' }),
    bids: t.field({ type: [L4OrderRef], listSize: { assumedSize: 200 }, resolve: (b) => b.levels[0] }),
    asks: t.field({ type: [L4OrderRef], listSize: { assumedSize: 200 }, resolve: (b) => b.levels[1] }),
  }),
});

const L4OrderStatusRef = builder.objectRef<NodeStatusRecord>('L4OrderStatus').implement({
  description: 'An order status line of the block, as the node wrote it',
  fields: (t) => ({
    time: t.exposeString('time', { description: "The node's naive UTC ISO time" }),
    user: t.field({ type: UserRef, resolve: (s) => ({ address: s.user }) }),
    status: t.exposeString('status'),
    order: t.field({ type: L4OrderRef, resolve: (s) => s.order }),
  }),
});

const L4BookDiffRef = builder.objectRef<NodeDiffRecord>('L4BookDiff').implement({
  description: 'A raw book diff of the block: an order put on the book (new), resized (update) or taken off (remove)',
  fields: (t) => ({
    user: t.field({ type: UserRef, resolve: (d) => ({ address: d.user }) }),
    oid: t.id({ resolve: (d) => String(d.oid) }),
    coin: t.exposeString('coin'),
    side: t.exposeString('side'),
    px: t.expose('px', { type: 'Decimal' }),
    kind: t.string({
      description: '"new", "update" or "remove"',
      resolve: (d) => (d.raw_book_diff === 'remove' ? 'remove' : 'new' in d.raw_book_diff ? 'new' : 'update'),
    }),
    sz: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'new: its size; update: its new size; remove: null',
      resolve: (d) => {
        const raw = d.raw_book_diff;
        if (raw === 'remove') return null;
        return 'new' in raw ? raw.new.sz : raw.update.newSz;
      },
    }),
    origSz: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'update: its size before',
      resolve: (d) =>
        d.raw_book_diff !== 'remove' && 'update' in d.raw_book_diff ? d.raw_book_diff.update.origSz : null,
    }),
  }),
});

export const L4BookUpdatesRef = builder.objectRef<L4CoinUpdates & { coin: string }>('L4BookUpdates').implement({
  description: "One block's order statuses and raw book diffs of a coin",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    height: t.exposeInt('height'),
    orderStatuses: t.field({
      type: [L4OrderStatusRef],
      listSize: { assumedSize: 20 },
      resolve: (u) => u.order_statuses,
    }),
    bookDiffs: t.field({ type: [L4BookDiffRef], listSize: { assumedSize: 20 }, resolve: (u) => u.book_diffs }),
  }),
});
