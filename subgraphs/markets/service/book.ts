// The live L4 order book of every coin (node L4 snapshot + the raw book diffs ingest publishes) and the L2 views
// served from it in the exchange's shapes: l2Book (nSigFigs/mantissa buckets), bbo, mids, depth bands, slippage.
import type { BookDiffRow } from '../../../db/rows/markets.ts';
import { compareDecimal } from '../../../platform/decimal.ts';
import { FieldError } from '../../../platform/fields.ts';

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

export interface BboAnswer {
  coin: string;
  time: number;
  bbo: [L2Level | null, L2Level | null];
}

export const DEPTH_BANDS_BPS = ['10', '25', '50', '100', '200', '500'] as const;
export type DepthBand = (typeof DEPTH_BANDS_BPS)[number];

export interface DepthAnswer {
  coin: string;
  time: number;
  midPx: string;
  depth: Record<DepthBand, { bidDepthUsd: string; askDepthUsd: string }>;
}

export interface L4Order {
  oid: number;
  user: string;
  coin: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  timestamp?: number;
}

export interface L2Options {
  nSigFigs?: 2 | 3 | 4 | 5 | null;
  /** Only with nSigFigs 5. */
  mantissa?: 1 | 2 | 5 | null;
  /** Levels per side, counted after aggregation; default 20. */
  levels?: number;
}

export interface SlippageAnswer {
  /** bps above the mid of the average price of a market buy; null when the asks cannot absorb the notional. */
  buyBps: string | null;
  /** bps below the mid of the average price of a market sell; null when the bids cannot absorb the notional. */
  sellBps: string | null;
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

/** A query the exchange would reject (bad nSigFigs/mantissa/levels, bad notional): bad input, as every FieldError. */
export class BookQueryError extends FieldError {
  override name = 'BookQueryError';
}

const DEFAULT_LEVELS = 20;
/** Slippage answers are rounded (half away from zero) to this many decimals of a basis point. */
const BPS_DECIMALS = 4;
/** A missing snapshot must not grow memory without bound; the oldest diffs are the ones a snapshot will cover. */
const MAX_BUFFERED_DIFFS = 2_000_000;

// ---- exact decimals ----
// Every px/sz/notional this module prints is the exact value, trailing zeros stripped, with at least one
// fractional digit ("2.0", "0.01", "90000.0"): how the exchange and the node print decimals.

/** value = units × 10^-scale */
interface Dec {
  units: bigint;
  scale: number;
}

const POW10: bigint[] = [1n];
function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push(POW10[i - 1]! * 10n);
  return POW10[n]!;
}

function toDec(text: string): Dec {
  const dot = text.indexOf('.');
  return dot < 0
    ? { units: BigInt(text), scale: 0 }
    : { units: BigInt(text.slice(0, dot) + text.slice(dot + 1)), scale: text.length - dot - 1 };
}

function atScale(d: Dec, scale: number): bigint {
  return scale === d.scale ? d.units : d.units * pow10(scale - d.scale);
}

function addDec(a: Dec, b: Dec): Dec {
  const scale = Math.max(a.scale, b.scale);
  return { units: atScale(a, scale) + atScale(b, scale), scale };
}

function subDec(a: Dec, b: Dec): Dec {
  const scale = Math.max(a.scale, b.scale);
  return { units: atScale(a, scale) - atScale(b, scale), scale };
}

function mulDec(a: Dec, b: Dec): Dec {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

function cmpDec(a: Dec, b: Dec): number {
  const scale = Math.max(a.scale, b.scale);
  const x = atScale(a, scale);
  const y = atScale(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

const ZERO: Dec = { units: 0n, scale: 0 };

/** The module's print rule: exact, trailing zeros stripped, at least one fractional digit. */
function formatDec(d: Dec): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const cut = digits.length - d.scale;
  let end = digits.length;
  while (end > cut && digits.charCodeAt(end - 1) === 48) end--;
  const text = `${digits.slice(0, cut)}.${end > cut ? digits.slice(cut, end) : '0'}`;
  return negative ? `-${text}` : text;
}

/** The print rule applied to wire text without a bigint round trip (hot path: every diff's px). */
function canonicalText(text: string): string {
  const dot = text.indexOf('.');
  if (dot < 0) return `${text}.0`;
  let end = text.length;
  while (end > dot + 2 && text.charCodeAt(end - 1) === 48) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** x / y × 10^places rounded half away from zero, printed with the module's rule. */
function divideRounded(x: Dec, y: Dec, places: number): string {
  let num = x.units;
  let den = y.units;
  const shift = y.scale - x.scale + places;
  if (shift >= 0) num *= pow10(shift);
  else den *= pow10(-shift);
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const negative = num < 0n;
  const abs = negative ? -num : num;
  let q = abs / den;
  if ((abs % den) * 2n >= den) q += 1n;
  return formatDec({ units: negative ? -q : q, scale: places });
}

const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;

// ---- one coin's book ----

type Side = 'A' | 'B';

interface RestingOrder {
  readonly oid: number;
  readonly user: string;
  sz: string;
  readonly level: PriceLevel;
}

interface PriceLevel {
  /** Canonical text: the level key and the wire px. */
  readonly px: string;
  /** For ordering only; equal floats are tie-broken exactly. */
  readonly pxNum: number;
  /** Insertion order is time priority. */
  readonly orders: Set<RestingOrder>;
  /** Sum of the orders' sizes, computed when a query needs it; null once an order changes. */
  size: Dec | null;
  pxDec: Dec | null;
}

function levelSize(level: PriceLevel): Dec {
  if (level.size) return level.size;
  let sum = ZERO;
  for (const o of level.orders) sum = addDec(sum, toDec(o.sz));
  level.size = sum;
  return sum;
}

function levelPx(level: PriceLevel): Dec {
  level.pxDec ??= toDec(level.px);
  return level.pxDec;
}

function toWireLevel(level: PriceLevel): L2Level {
  return { px: level.px, sz: formatDec(levelSize(level)), n: level.orders.size };
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

class CoinBook {
  readonly orders = new Map<number, RestingOrder>();
  readonly bids = new BookSide('B');
  readonly asks = new BookSide('A');
  /** l2 answers by their options, while the book does not change: one object (and one encoding) per change. */
  readonly l2Answers = new Map<string, L2BookAnswer>();

  constructor(
    readonly coin: string,
    public time: number,
  ) {}

  insert(oid: number, user: string, side: Side, px: string, sz: string): void {
    this.l2Answers.clear();
    const prior = this.orders.get(oid);
    if (prior) this.delete(prior);
    const level = (side === 'B' ? this.bids : this.asks).levelFor(canonicalText(px));
    const order: RestingOrder = { oid, user, sz, level };
    level.orders.add(order);
    level.size = null;
    this.orders.set(oid, order);
  }

  resize(order: RestingOrder, sz: string): void {
    this.l2Answers.clear();
    order.sz = sz;
    order.level.size = null;
  }

  delete(order: RestingOrder): void {
    this.l2Answers.clear();
    this.orders.delete(order.oid);
    const level = order.level;
    level.orders.delete(order);
    level.size = null;
    // The order's side is the side holding its level.
    (this.bids.levels.get(level.px) === level ? this.bids : this.asks).dropIfEmpty(level);
  }

  mid(): Dec | null {
    const bid = this.bids.best();
    const ask = this.asks.best();
    if (!bid || !ask) return null;
    const sum = addDec(levelPx(bid), levelPx(ask));
    // Halving adds at most one decimal: x/2 = 5x/10.
    return sum.units % 2n === 0n
      ? { units: sum.units / 2n, scale: sum.scale }
      : { units: sum.units * 5n, scale: sum.scale + 1 };
  }
}

// ---- nSigFigs / mantissa buckets ----

/**
 * The bucket a price falls in when the book is shown to `nSigFigs` significant figures: bucket width is
 * mantissa × 10^(magnitude of the nSigFigs-th significant digit); bids round down and asks round up, so a bucket
 * never shows a better price than the orders in it (90123 at 2 figures: bid 90000, ask 91000).
 */
function bucketPx(px: string, side: Side, nSigFigs: number, mantissa: number): string {
  const d = toDec(px);
  if (d.units === 0n) return px;
  // Width exponent in units of 10^-scale: significant digits of the units minus the figures to keep.
  const exponent = d.units.toString().length - nSigFigs;
  // A price with fewer significant digits than asked for already sits on a bucket edge (m divides 10).
  if (exponent < 0) return px;
  const width = BigInt(mantissa) * pow10(exponent);
  const floor = (d.units / width) * width;
  const units = side === 'B' || floor === d.units ? floor : floor + width;
  return formatDec({ units, scale: d.scale });
}

function aggregate(
  levels: readonly PriceLevel[],
  side: Side,
  max: number,
  nSigFigs: number | null,
  mantissa: number,
): L2Level[] {
  const out: L2Level[] = [];
  if (nSigFigs === null) {
    for (let i = 0; i < levels.length && i < max; i++) out.push(toWireLevel(levels[i]!));
    return out;
  }
  let px = '';
  let size = ZERO;
  let n = 0;
  for (const level of levels) {
    const bucket = bucketPx(level.px, side, nSigFigs, mantissa);
    if (bucket !== px) {
      if (n) out.push({ px, sz: formatDec(size), n });
      if (out.length === max) return out;
      px = bucket;
      size = ZERO;
      n = 0;
    }
    size = addDec(size, levelSize(level));
    n += level.orders.size;
  }
  if (n) out.push({ px, sz: formatDec(size), n });
  return out;
}

function validateL2Options(opts: L2Options): { nSigFigs: number | null; mantissa: number; levels: number } {
  const nSigFigs = opts.nSigFigs ?? null;
  const mantissa = opts.mantissa ?? null;
  const levels = opts.levels ?? DEFAULT_LEVELS;
  if (nSigFigs !== null && !(Number.isInteger(nSigFigs) && nSigFigs >= 2 && nSigFigs <= 5)) {
    throw new BookQueryError(`nSigFigs must be 2, 3, 4, 5 or null, got ${String(nSigFigs)}`);
  }
  if (mantissa !== null) {
    if (nSigFigs !== 5) throw new BookQueryError('mantissa is only allowed with nSigFigs 5');
    if (mantissa !== 1 && mantissa !== 2 && mantissa !== 5) {
      throw new BookQueryError(`mantissa must be 1, 2 or 5, got ${String(mantissa)}`);
    }
  }
  if (!Number.isInteger(levels) || levels < 1) throw new BookQueryError(`levels must be a positive integer`);
  return { nSigFigs, mantissa: mantissa ?? 1, levels };
}

// ---- depth and slippage ----

/** Cumulative notional (px × sz) of the levels at or inside each band's edge; `edges` ascending by band width. */
function bandNotionals(levels: readonly PriceLevel[], edges: readonly Dec[], inside: (cmp: number) => boolean): Dec[] {
  const sums = edges.map(() => ZERO);
  const widest = edges[edges.length - 1];
  for (const level of levels) {
    const px = levelPx(level);
    if (!widest || !inside(cmpDec(px, widest))) break;
    const notional = mulDec(px, levelSize(level));
    for (let i = 0; i < edges.length; i++) {
      if (inside(cmpDec(px, edges[i]!))) sums[i] = addDec(sums[i]!, notional);
    }
  }
  return sums;
}

/**
 * Price impact of a market order of `notional` quote units against `levels` (best first), in bps of `mid`:
 * the average fill price's distance from the mid, positive when worse than the mid. Null when the side is too thin.
 */
function impactBps(levels: readonly PriceLevel[], notional: Dec, mid: Dec, side: 'buy' | 'sell'): string | null {
  let remaining = notional;
  let qty = ZERO;
  for (const level of levels) {
    const px = levelPx(level);
    const size = levelSize(level);
    const levelNotional = mulDec(px, size);
    if (cmpDec(levelNotional, remaining) < 0) {
      remaining = subDec(remaining, levelNotional);
      qty = addDec(qty, size);
      continue;
    }
    // The last level fills remaining/px: avg = N / (qty + R/px) = N·px / (qty·px + R).
    const fillDen = addDec(mulDec(qty, px), remaining);
    const avgNum = mulDec(notional, px);
    const midTimesDen = mulDec(mid, fillDen);
    const diff = side === 'buy' ? subDec(avgNum, midTimesDen) : subDec(midTimesDen, avgNum);
    return divideRounded(mulDec(diff, { units: 10_000n, scale: 0 }), midTimesDen, BPS_DECIMALS);
  }
  return null;
}

// ---- snapshot parsing ----

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
  return order;
}

// ---- all books ----

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

  /** The aggregated book; the same object until the book changes (callers must not modify it). */
  l2(coin: string, opts: L2Options = {}): L2BookAnswer | null {
    const { nSigFigs, mantissa, levels } = validateL2Options(opts);
    const book = this.books.get(coin);
    if (!book) return null;
    const key = `${nSigFigs} ${mantissa} ${levels}`;
    let answer = book.l2Answers.get(key);
    if (!answer) {
      answer = {
        coin,
        time: book.time,
        levels: [
          aggregate(book.bids.bestFirst(), 'B', levels, nSigFigs, mantissa),
          aggregate(book.asks.bestFirst(), 'A', levels, nSigFigs, mantissa),
        ],
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
    return mid ? formatDec(mid) : null;
  }

  /** Every coin with both sides: coin → mid. */
  mids(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [coin, book] of this.books) {
      const mid = book.mid();
      if (mid) out[coin] = formatDec(mid);
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
    const bps = DEPTH_BANDS_BPS.map((b) => BigInt(b));
    // mid × (10000 ∓ bps) / 10000, exact.
    const lower = bps.map((b) => ({ units: mid.units * (10_000n - b), scale: mid.scale + 4 }));
    const upper = bps.map((b) => ({ units: mid.units * (10_000n + b), scale: mid.scale + 4 }));
    const bidSums = bandNotionals(book.bids.bestFirst(), lower, (c) => c >= 0);
    const askSums = bandNotionals(book.asks.bestFirst(), upper, (c) => c <= 0);
    const depth = {} as DepthAnswer['depth'];
    DEPTH_BANDS_BPS.forEach((band, i) => {
      depth[band] = { bidDepthUsd: formatDec(bidSums[i]!), askDepthUsd: formatDec(askSums[i]!) };
    });
    return { coin, time: book.time, midPx: formatDec(mid), depth };
  }

  /**
   * Price impact in bps from the mid of a market buy and sell of `notionalUsd` (quote units), measured at the
   * average fill price and rounded to 4 decimals; a side without enough liquidity (or no mid) gives null.
   * Null for an unknown coin.
   */
  slippage(coin: string, notionalUsd: string): SlippageAnswer | null {
    if (!DECIMAL_TEXT.test(notionalUsd) || toDec(notionalUsd).units === 0n) {
      throw new BookQueryError(`notionalUsd must be a positive decimal string, got ${JSON.stringify(notionalUsd)}`);
    }
    const book = this.books.get(coin);
    if (!book) return null;
    const mid = book.mid();
    if (!mid) return { buyBps: null, sellBps: null };
    const notional = toDec(notionalUsd);
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
