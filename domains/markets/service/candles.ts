// The candle aggregator: open candles of every coin and interval kept in memory from the trade stream, one update
// frame per touched bucket per batch, and one final frame about 2 s after each bucket closes, recomputed from
// stored trades (`reconciled: true`). When storage is unavailable the final frame carries the live values with
// `reconciled: false` and a later closed frame for the same `t` supersedes it. 5s and 30s buckets are final at
// their closed frame with `reconciled: false`.
import type pg from 'pg';
import type { TradeRow } from '../../../db/rows/markets.ts';
import { addDecimal, compareDecimal } from '../../../platform/decimal.ts';
import {
  bucketClose,
  bucketSql,
  bucketStart,
  CANDLE_INTERVALS,
  type CandleInterval,
  LIVE_ONLY_INTERVALS,
} from './intervals.ts';

export interface CandleValues {
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
  n: number;
}

/** The exchange's candle (`t, T, s, i, o, c, h, l, v, n`) plus the service's `closed` and `reconciled`. */
export interface CandleFrame extends CandleValues {
  t: number;
  T: number;
  s: string;
  i: CandleInterval;
  closed: boolean;
  reconciled: boolean;
}

export interface CandleStore {
  /** Values recomputed from stored trades of the bucket; null when none is stored. Throws when storage fails. */
  recompute(coin: string, interval: CandleInterval, t: number): Promise<CandleValues | null>;
  save(frame: CandleFrame): Promise<void>;
}

/** An open bucket's values so far, rolled up from stored closed minutes. */
export interface SeedCandle extends CandleValues {
  coin: string;
  interval: CandleInterval;
  t: number;
  firstTime: number;
  lastTime: number;
}

/** Execution order of a trade: time, then block, then position in the block. */
type OrderKey = readonly [number, number, number];

function before(a: OrderKey, b: OrderKey): boolean {
  return a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
}

/** Open, high, low, close, volume and count of some trades, with the order keys of the first and the last. */
interface Ohlc {
  first: OrderKey;
  o: string;
  last: OrderKey;
  c: string;
  h: string;
  l: string;
  v: string;
  n: number;
}

/** Folds `more` (trades of the same bucket) into `into`. */
function mergeOhlc(into: Ohlc, more: Ohlc): void {
  if (before(more.first, into.first)) {
    into.first = more.first;
    into.o = more.o;
  }
  if (!before(more.last, into.last)) {
    into.last = more.last;
    into.c = more.c;
  }
  if (compareDecimal(more.h, into.h) > 0) into.h = more.h;
  if (compareDecimal(more.l, into.l) < 0) into.l = more.l;
  into.v = addDecimal(into.v, more.v);
  into.n += more.n;
}

/** The trades of one coin at one time, summed up: they fall in the same bucket of every interval. */
interface TradeRun extends Ohlc {
  coin: string;
  time: number;
}

/** A batch's trades grouped by coin and time, so each group updates each interval's candle once, not per trade. */
function tradeRuns(trades: readonly TradeRow[]): Iterable<TradeRun> {
  const runs = new Map<string, TradeRun>();
  for (const trade of trades) {
    const key: OrderKey = [trade.time, trade.block_number, trade.seq];
    const px = trade.px;
    const one = { first: key, o: px, last: key, c: px, h: px, l: px, v: trade.sz, n: 1 };
    const id = `${trade.coin}|${trade.time}`;
    const run = runs.get(id);
    if (run) mergeOhlc(run, one);
    else runs.set(id, { coin: trade.coin, time: trade.time, ...one });
  }
  return runs.values();
}

interface LiveCandle extends CandleFrame {
  first: OrderKey;
  last: OrderKey;
  /** When the bucket's final frame is due (close + delay), or the next retry after a failed recompute. */
  dueAt: number;
  /** Set once a closed frame went out: later changes re-close it. */
  final: boolean;
  closing: boolean;
  /** A closed frame with `reconciled: false` went out and storage still fails: wait quietly for it. */
  unreconciledSent: boolean;
  /**
   * Made after its bucket had left memory, by late trades: its values are those trades only. It is closed from
   * storage (any interval) and never saved as it is, which would overwrite the stored bucket.
   */
  partial: boolean;
  /** A trade arrived while the close was reading storage: that close is stale, the bucket closes again. */
  changedWhileClosing: boolean;
}

export interface CandleAggregatorOptions {
  store: CandleStore;
  emit: (frames: CandleFrame[]) => void;
  now?: () => number;
  intervals?: readonly CandleInterval[];
  /** Delay after a bucket's close before its final frame. */
  closeDelayMs?: number;
  /** Delay before recomputing again after storage failed. */
  retryMs?: number;
  /** How long a final candle is kept for late trades before it is dropped from memory. */
  retainMs?: number;
}

function frameOf(c: LiveCandle): CandleFrame {
  return {
    t: c.t,
    T: c.T,
    s: c.s,
    i: c.i,
    o: c.o,
    c: c.c,
    h: c.h,
    l: c.l,
    v: c.v,
    n: c.n,
    closed: c.closed,
    reconciled: c.reconciled,
  };
}

export class CandleAggregator {
  private readonly candles = new Map<string, LiveCandle>();
  private readonly now: () => number;
  private readonly intervals: readonly CandleInterval[];
  private readonly closeDelayMs: number;
  private readonly retryMs: number;
  private readonly retainMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: CandleAggregatorOptions) {
    this.now = opts.now ?? Date.now;
    this.intervals = opts.intervals ?? CANDLE_INTERVALS;
    this.closeDelayMs = opts.closeDelayMs ?? 2000;
    this.retryMs = opts.retryMs ?? 5000;
    this.retainMs = opts.retainMs ?? 10 * 60_000;
  }

  /** Applies a batch of trades; emits one update frame per bucket it touched (a late trade re-closes its bucket). */
  onTrades(trades: readonly TradeRow[]): void {
    const frames = this.apply(trades);
    if (frames.length) this.opts.emit(frames);
  }

  /**
   * Rebuilds open buckets after a restart, without emitting: `rollups` carry what stored closed minutes hold, then
   * `trades` (those of the current minute) are applied on top.
   */
  seed(rollups: readonly SeedCandle[], trades: readonly TradeRow[]): void {
    for (const r of rollups) {
      if (!this.intervals.includes(r.interval)) continue;
      const T = bucketClose(r.interval, r.t);
      this.candles.set(`${r.coin}|${r.interval}|${r.t}`, {
        t: r.t,
        T,
        s: r.coin,
        i: r.interval,
        o: r.o,
        h: r.h,
        l: r.l,
        c: r.c,
        v: r.v,
        n: r.n,
        closed: false,
        reconciled: false,
        first: [r.firstTime, -1, -1],
        last: [r.lastTime, Number.MAX_SAFE_INTEGER, 0],
        dueAt: T + 1 + this.closeDelayMs,
        final: false,
        closing: false,
        unreconciledSent: false,
        partial: false,
        changedWhileClosing: false,
      });
    }
    this.apply(trades);
  }

  private apply(trades: readonly TradeRow[]): CandleFrame[] {
    const touched = new Set<LiveCandle>();
    // Buckets already reported final (or long gone from memory) are not reopened on the wire: they are
    // recomputed and reported final again.
    const late = new Set<LiveCandle>();
    const now = this.now();
    for (const run of tradeRuns(trades)) {
      for (const interval of this.intervals) {
        const t = bucketStart(interval, run.time);
        const id = `${run.coin}|${interval}|${t}`;
        let c = this.candles.get(id);
        if (!c) {
          const T = bucketClose(interval, t);
          c = {
            t,
            T,
            s: run.coin,
            i: interval,
            o: run.o,
            h: run.h,
            l: run.l,
            c: run.c,
            v: '0',
            n: 0,
            closed: false,
            reconciled: false,
            first: run.first,
            last: run.last,
            dueAt: T + 1 + this.closeDelayMs,
            final: false,
            closing: false,
            unreconciledSent: false,
            partial: now > T + 1 + this.closeDelayMs,
            changedWhileClosing: false,
          };
          this.candles.set(id, c);
          if (c.partial) late.add(c);
        }
        if (c.closing) {
          // Its close is under way: no update on the wire, the close that follows reports it.
          c.changedWhileClosing = true;
          late.add(c);
        }
        mergeOhlc(c, run);
        if (c.final) {
          // Reopened: readers of the live candles see it as not closed (as during a close) until it is final again.
          c.final = false;
          c.closed = false;
          c.reconciled = false;
          c.dueAt = now + this.closeDelayMs;
          late.add(c);
        }
        touched.add(c);
      }
    }
    return [...touched].filter((c) => !late.has(c)).map(frameOf);
  }

  /** The open candle of a coin and interval, if it has traded in the current bucket. */
  current(coin: string, interval: CandleInterval): CandleFrame | undefined {
    const c = this.candles.get(`${coin}|${interval}|${bucketStart(interval, this.now())}`);
    return c ? frameOf(c) : undefined;
  }

  /** Candles held in memory for a coin and interval (the open one and recent final ones), oldest first. */
  recent(coin: string, interval: CandleInterval): CandleFrame[] {
    return [...this.candles.values()]
      .filter((c) => c.s === coin && c.i === interval)
      .sort((a, b) => a.t - b.t)
      .map(frameOf);
  }

  /** Sends the final frames that are due; resolves when they went out. Called by the timer, or by tests. */
  async tick(): Promise<void> {
    const now = this.now();
    const due: LiveCandle[] = [];
    for (const [id, c] of this.candles) {
      if (c.final && now > c.T + this.retainMs) this.candles.delete(id);
      else if (!c.final && !c.closing && now >= c.dueAt) due.push(c);
    }
    await Promise.all(due.map((c) => this.close(c)));
  }

  start(intervalMs = 250): void {
    this.timer ??= setInterval(() => {
      this.tick().catch((err) => console.error(`candles: ${err instanceof Error ? err.message : String(err)}`));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async close(c: LiveCandle): Promise<void> {
    c.closing = true;
    c.changedWhileClosing = false;
    // `closed` is set with the outcome: while storage is read, readers of the live candles (candleSnapshot's
    // overlay) see the bucket as not yet closed rather than closed and unreconciled.
    try {
      const liveOnly = LIVE_ONLY_INTERVALS.has(c.i);
      if (liveOnly && !c.partial) {
        // 5s and 30s: final at their closed frame, from live state (spec §6).
        c.closed = true;
        c.reconciled = false;
        c.final = true;
        return this.report(c, true);
      }
      let stored: CandleValues | null;
      try {
        stored = await this.opts.store.recompute(c.s, c.i, c.t);
      } catch {
        // Storage unavailable: report the live values once, recompute later and report again. A partial bucket
        // is reported but not saved: its live values are only its late trades.
        c.closed = true;
        c.reconciled = false;
        c.dueAt = this.now() + this.retryMs;
        const send = !c.unreconciledSent;
        c.unreconciledSent = true;
        return this.report(c, !c.partial, send);
      }
      if (c.changedWhileClosing) {
        // A trade came in during the recompute: the values read may miss it. Close again once it is stored.
        c.dueAt = this.now() + this.closeDelayMs;
        return;
      }
      if (stored) Object.assign(c, stored);
      c.closed = true;
      c.reconciled = !liveOnly;
      c.final = true;
      c.partial = false;
      c.unreconciledSent = false;
      return this.report(c, true);
    } finally {
      c.closing = false;
    }
  }

  /** Emits the candle's frame (unless told not to) and saves it (when `save`). */
  private async report(c: LiveCandle, save: boolean, send = true): Promise<void> {
    const frame = frameOf(c);
    if (send) this.opts.emit([frame]);
    if (!save) return;
    await this.opts.store.save(frame).catch(() => {
      // Saved on the next successful close of this bucket; the live frame already went out.
    });
  }
}

/** Candle values of trades grouped by bucket, in execution order for open and close. */
function candleSelect(interval: CandleInterval): string {
  const bucket = bucketSql(interval, 'time');
  return `SELECT coin, ${bucket} AS t,
      (array_agg(px ORDER BY time, block_number, seq))[1]::text AS o,
      max(px)::text AS h, min(px)::text AS l,
      (array_agg(px ORDER BY time DESC, block_number DESC, seq DESC))[1]::text AS c,
      sum(sz)::text AS v, count(*)::int AS n
    FROM markets.trades`;
}

/** The markets schema as a candle store: recompute from `markets.trades`, save into `markets.candles`. */
export function pgCandleStore(pool: pg.Pool): CandleStore {
  return {
    async recompute(coin, interval, t) {
      const { rows } = await pool.query<CandleValues>(
        `${candleSelect(interval)} WHERE coin = $1 AND time >= $2 AND time <= $3 GROUP BY coin, t`,
        [coin, t, bucketClose(interval, t)],
      );
      const row = rows[0];
      return row ? { o: row.o, h: row.h, l: row.l, c: row.c, v: row.v, n: row.n } : null;
    },
    async save(f) {
      await pool.query(
        `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n, closed, reconciled)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (coin, interval, t) DO UPDATE SET close_time = EXCLUDED.close_time, o = EXCLUDED.o,
           h = EXCLUDED.h, l = EXCLUDED.l, c = EXCLUDED.c, v = EXCLUDED.v, n = EXCLUDED.n,
           closed = EXCLUDED.closed, reconciled = EXCLUDED.reconciled`,
        [f.s, f.i, f.t, f.T, f.o, f.h, f.l, f.c, f.v, f.n, f.closed, f.reconciled],
      );
    },
  };
}

/**
 * Builds the closed candles of every interval from stored trades since `from` (after a bulk load, or at start-up
 * for history the live aggregator never saw). Buckets still open at `now` are left to the aggregator.
 */
export async function backfillCandles(
  pool: pg.Pool | pg.PoolClient,
  from: number,
  now: number,
  intervals: readonly CandleInterval[] = CANDLE_INTERVALS,
  opts: { until?: number; timeoutMs?: number } = {},
): Promise<number> {
  let written = 0;
  for (const interval of intervals) {
    const start = bucketStart(interval, from);
    // Only the buckets up to the one holding `until` (a gap's last trade) when given; never the open one.
    const open = Math.min(
      bucketStart(interval, now),
      opts.until === undefined
        ? Number.POSITIVE_INFINITY
        : bucketClose(interval, bucketStart(interval, opts.until)) + 1,
    );
    const closeExpr =
      interval === '1M'
        ? `(extract(epoch FROM (to_timestamp(t / 1000.0) AT TIME ZONE 'UTC' + interval '1 month')) * 1000)::bigint - 1`
        : `t + ${bucketClose(interval, 0)}`;
    if (open <= start) continue;
    const { rowCount } = await pool.query({
      ...(opts.timeoutMs ? { query_timeout: opts.timeoutMs } : {}),
      text: `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n, closed, reconciled)
       SELECT coin, $1, t, ${closeExpr}, o::numeric, h::numeric, l::numeric, c::numeric, v::numeric, n, true, $4
       FROM (${candleSelect(interval)} WHERE time >= $2 AND time < $3 GROUP BY coin, t) b
       ON CONFLICT (coin, interval, t) DO UPDATE SET o = EXCLUDED.o, h = EXCLUDED.h, l = EXCLUDED.l, c = EXCLUDED.c,
         v = EXCLUDED.v, n = EXCLUDED.n, closed = true, reconciled = EXCLUDED.reconciled`,
      values: [interval, start, open, !LIVE_ONLY_INTERVALS.has(interval)],
    } as pg.QueryConfig);
    written += rowCount ?? 0;
  }
  return written;
}

/**
 * What a restarted aggregator needs: for every interval of a minute or more, the open bucket's values rolled up
 * from stored closed 1m candles; and the trades of the current minute (which also make the 5s and 30s buckets).
 */
export async function openCandleSeeds(
  pool: pg.Pool,
  now: number,
  intervals: readonly CandleInterval[] = CANDLE_INTERVALS,
): Promise<{ rollups: SeedCandle[]; trades: TradeRow[] }> {
  const minute = bucketStart('1m', now);
  const rollups: SeedCandle[] = [];
  for (const interval of intervals) {
    if (LIVE_ONLY_INTERVALS.has(interval) || interval === '1m') continue;
    const t = bucketStart(interval, now);
    if (t === minute) continue;
    const { rows } = await pool.query<SeedCandle>(
      `SELECT coin, (array_agg(o ORDER BY t))[1]::text AS o, max(h)::text AS h, min(l)::text AS l,
         (array_agg(c ORDER BY t DESC))[1]::text AS c, sum(v)::text AS v, sum(n)::int AS n,
         min(t) AS "firstTime", max(t) AS "lastTime"
       FROM markets.candles WHERE interval = '1m' AND t >= $1 AND t < $2 GROUP BY coin`,
      [t, minute],
    );
    for (const r of rows) rollups.push({ ...r, interval, t });
  }
  const { rows: trades } = await pool.query<TradeRow>(
    `SELECT block_number, seq, time, coin, side, px::text AS px, sz::text AS sz, hash, tid, buyer, seller, fees::text AS fees
     FROM markets.trades WHERE time >= $1 ORDER BY time, block_number, seq`,
    [minute],
  );
  return { rollups, trades };
}
