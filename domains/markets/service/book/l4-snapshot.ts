// The node's l4Snapshots answer (every resting order of every coin) read into orders, checked as it is read.
import type { OrderDetail, Side } from './coin-book.ts';

export interface L4Order {
  oid: number;
  user: string;
  coin: string;
  side: Side;
  px: string;
  sz: string;
  timestamp?: number;
  /** The record's other fields, when it has them all. */
  detail?: OrderDetail;
}

/**
 * One resting order as order_book_server's l4Book prints it: the node's order record (without origSz and children)
 * with its user inside.
 */
export interface L4WireOrder extends Omit<OrderDetail, 'origSz'> {
  user: string;
  coin: string;
  side: Side;
  limitPx: string;
  sz: string;
  oid: number;
}

const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;

function snapshotError(where: string, what: string): Error {
  return new Error(`l4 snapshot: ${where}: ${what}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function snapshotDecimal(o: Record<string, unknown>, key: string, where: string): string {
  const v = o[key];
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text === 'string' && DECIMAL_TEXT.test(text)) return text;
  throw snapshotError(`${where}.${key}`, `must be a decimal string, got ${JSON.stringify(v)}`);
}

function snapshotSide(v: unknown): Side | null {
  if (v === 'B' || v === 'Bid') return 'B';
  if (v === 'A' || v === 'Ask') return 'A';
  return null;
}

/** One resting order: `[user, order]` (includeUsers) or the order object itself; null for a trigger order. */
function parseSnapshotOrder(item: unknown, coin: string, sideOfList: Side, where: string): L4Order | null {
  let user: string | undefined;
  let body: unknown = item;
  if (Array.isArray(item)) {
    if (item.length !== 2 || typeof item[0] !== 'string') throw snapshotError(where, 'must be [user, order]');
    user = item[0];
    body = item[1];
  }
  if (!isRecord(body)) throw snapshotError(where, 'must be an order object');
  // Trigger orders are listed last and flagged; they are not resting in the book until triggered.
  if (body.isTrigger === true) return null;
  const oid = body.oid;
  if (typeof oid !== 'number' || !Number.isSafeInteger(oid)) throw snapshotError(`${where}.oid`, 'must be an integer');
  const order: L4Order = {
    oid,
    user: user ?? (typeof body.user === 'string' ? body.user : ''),
    coin,
    side: snapshotSide(body.side) ?? sideOfList,
    px: snapshotDecimal(body, 'limitPx', where),
    sz: snapshotDecimal(body, 'sz', where),
  };
  if (typeof body.timestamp === 'number') order.timestamp = body.timestamp;
  const detail = orderDetail(body);
  if (detail) order.detail = detail;
  return order;
}

const optionalText = (v: unknown): v is string | null => v === null || typeof v === 'string';

/** The node record's fields besides book position, when all are there with their types (else null). */
export function orderDetail(body: Record<string, unknown>): OrderDetail | null {
  const { timestamp, triggerCondition, isTrigger, triggerPx, isPositionTpsl, reduceOnly, orderType, origSz } = body;
  const tif = body.tif ?? null;
  const cloid = body.cloid ?? null;
  if (
    typeof timestamp !== 'number' ||
    typeof triggerCondition !== 'string' ||
    typeof isTrigger !== 'boolean' ||
    typeof triggerPx !== 'string' ||
    typeof isPositionTpsl !== 'boolean' ||
    typeof reduceOnly !== 'boolean' ||
    typeof orderType !== 'string' ||
    typeof origSz !== 'string' ||
    !optionalText(tif) ||
    !optionalText(cloid)
  ) {
    return null;
  }
  return {
    timestamp,
    triggerCondition,
    isTrigger,
    triggerPx,
    isPositionTpsl,
    reduceOnly,
    orderType,
    origSz,
    tif,
    cloid,
  };
}

/** Parses the node's l4Snapshots JSON (`[[coin, [bids, asks]], ...]`, optionally wrapped as `[height, ...]`). */
export function parseL4Snapshot(json: unknown): L4Order[] {
  // includeHeightInOutput wraps the books as [height, books].
  const root = Array.isArray(json) && json.length === 2 && typeof json[0] === 'number' ? json[1] : json;
  if (!Array.isArray(root)) throw snapshotError('root', 'must be an array of [coin, [bids, asks]]');
  const out: L4Order[] = [];
  root.forEach((entry: unknown, i) => {
    const where = `[${i}]`;
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1])) {
      throw snapshotError(where, 'must be [coin, [bids, asks]]');
    }
    const coin = entry[0];
    const sides: unknown[] = entry[1];
    (['B', 'A'] as const).forEach((side, s) => {
      const list = sides[s];
      if (!Array.isArray(list)) throw snapshotError(`${where}[${s}]`, 'must be a list of orders');
      list.forEach((item: unknown, k) => {
        const order = parseSnapshotOrder(item, coin, side, `${coin}[${s}][${k}]`);
        if (order) out.push(order);
      });
    });
  });
  return out;
}
