// A coin's candle of one interval as a stored stream (kit/resume.ts): its frames derived from the coin's trades, the
// stored rows the candles are made of, so that a subscriber resumes from any position the store holds and a window
// replays. A frame's position is that of the coin's last trade it holds (a trades position: `block-time`).
//
// What a subscriber with positions gets: per block with the coin's trades one update frame per bucket it touched
// (`closed` false, the bucket's values so far); and each bucket's final frame (`closed` true, `reconciled` true but
// for 5s and 30s, as the live stream's) just before the first update of a later bucket, with that update's position.
// So the final frame of the bucket a position stands in comes after the position: a client resumed from any frame's
// position gets every update and every final frame it missed, none twice. The live stream sends the final frame
// about 2 s after the close instead; a stream with positions ties it to the next bucket's first trade, since a final
// frame that comes on a timer has no stored row to stand at.
import type pg from 'pg';
import type { TradeRow } from '../../../db/rows/markets.ts';
import type { EventSource, TopicMap } from '../../../events/bus.ts';
import { blockOrderedReader, type RowPosition, type StoredStream, storedPart } from '../../../kit/resume.ts';
import { addDecimal, compareDecimal } from '../../../platform/decimal.ts';
import type { CandleFrame, CandleValues } from './candles.ts';
import { bucketClose, bucketStart, type CandleInterval, LIVE_ONLY_INTERVALS } from './intervals.ts';

/** What a candle stream reads of a trade. */
type CandleTrade = Pick<TradeRow, 'block_number' | 'seq' | 'time' | 'coin' | 'px' | 'sz'>;

/** The live aggregator's candles of a coin and interval (the open one and recent final ones). */
export type LiveCandles = (coin: string, interval: CandleInterval) => readonly CandleFrame[];

/** How many buckets a subscription keeps the values of (a late trade of an older one is read from the aggregator). */
const KEPT_BUCKETS = 4;

/** The values of some trades, or of some stored candles rolled up, as one row (n 0: none). */
const ROLLUP = `(array_agg(o ORDER BY k))[1] AS o, max(h)::text AS h, min(l)::text AS l,
  (array_agg(c ORDER BY k DESC))[1] AS c, sum(v)::text AS v, coalesce(sum(n), 0)::int AS n`;

/**
 * The values of a bucket up to a position (the bucket holding it), from the store: null when it holds none. A
 * bucket longer than a minute rolls up its stored closed 1m candles before the position's minute (as the aggregator's
 * restart does, openCandleSeeds), then the trades of that minute: a busy coin's day of trades (370 000) took 1.5 s to
 * fold in one statement, a week 4.5 s.
 */
async function valuesUpTo(
  pool: pg.Pool,
  coin: string,
  interval: CandleInterval,
  t: number,
  at: RowPosition,
): Promise<CandleValues | null> {
  const minute = interval === '5s' || interval === '30s' || interval === '1m' ? t : bucketStart('1m', at.time);
  const { rows } = await pool.query<CandleValues & { part: string }>(
    `SELECT 'candles' AS part, ${ROLLUP} FROM (
       SELECT t AS k, o::text AS o, h, l, c::text AS c, v, n FROM markets.candles
       WHERE coin = $1 AND interval = '1m' AND t >= $2 AND t < $3) m
     UNION ALL
     SELECT 'trades', ${ROLLUP} FROM (
       SELECT ARRAY[time, block_number, seq] AS k, px::text AS o, px AS h, px AS l, px::text AS c, sz AS v, 1 AS n
       FROM markets.trades WHERE coin = $1 AND time >= $3 AND (time, block_number) <= ($4, $5)) x`,
    [coin, t, minute, at.time, Math.min(at.block, Number.MAX_SAFE_INTEGER)],
  );
  let values: CandleValues | null = null;
  // The minutes before, then the trades of the position's minute.
  for (const part of ['candles', 'trades']) {
    const row = rows.find((r) => r.part === part);
    if (!row || row.n === 0) continue;
    values = values
      ? {
          o: values.o,
          h: compareDecimal(row.h, values.h) > 0 ? row.h : values.h,
          l: compareDecimal(row.l, values.l) < 0 ? row.l : values.l,
          c: row.c,
          v: addDecimal(values.v, row.v),
          n: values.n + row.n,
        }
      : { o: row.o, h: row.h, l: row.l, c: row.c, v: row.v, n: row.n };
  }
  return values;
}

/** `values` with a trade folded in (trades come in execution order). */
function fold(values: CandleValues | null, trade: CandleTrade): CandleValues {
  if (!values) return { o: trade.px, h: trade.px, l: trade.px, c: trade.px, v: trade.sz, n: 1 };
  return {
    o: values.o,
    h: compareDecimal(trade.px, values.h) > 0 ? trade.px : values.h,
    l: compareDecimal(trade.px, values.l) < 0 ? trade.px : values.l,
    c: trade.px,
    v: addDecimal(values.v, trade.sz),
    n: values.n + 1,
  };
}

/**
 * The candle stream of `coin` and `interval`: its update and final frames (CandleFrame, the live frame's shape) from
 * the coin's trades, stored or live. Each call is one subscriber's: it keeps the values of the buckets it sent.
 */
export function storedCandles(
  source: EventSource<TopicMap>,
  pool: pg.Pool,
  coin: string,
  interval: CandleInterval,
  live: LiveCandles,
): StoredStream<CandleFrame> {
  const reader = blockOrderedReader<CandleTrade>(pool, {
    from: 'markets.trades',
    columns: 'block_number, seq, time, coin, px, sz',
    where: 'coin = $1',
    params: [coin],
    order: 'seq',
  });
  /** Values per bucket open time, as sent. */
  const buckets = new Map<number, CandleValues>();
  /** The newest bucket sent an update of, whose final frame is still to come. */
  let open: number | null = null;
  /** Rows read from the store (the rest are live). */
  const stored = new WeakSet<object>();
  let seeded = false;
  const frame = (t: number, v: CandleValues, closed: boolean, reconciled: boolean): CandleFrame => ({
    t,
    T: bucketClose(interval, t),
    s: coin,
    i: interval,
    o: v.o,
    c: v.c,
    h: v.h,
    l: v.l,
    v: v.v,
    n: v.n,
    closed,
    reconciled,
  });
  /** The final frame of the open bucket: from the store, or the aggregator's when live. */
  const finalOf = (t: number, fromStore: boolean): CandleFrame | null => {
    const values = buckets.get(t);
    if (!fromStore) {
      const done = live(coin, interval).find((c) => c.t === t && c.closed);
      if (done) return done;
      return values ? frame(t, values, true, false) : null;
    }
    return values ? frame(t, values, true, !LIVE_ONLY_INTERVALS.has(interval)) : null;
  };
  return {
    parts: [
      storedPart<CandleFrame, CandleTrade>({
        source,
        topic: 'trades',
        dataset: 'trades',
        select(rows) {
          const mine = rows.filter((r) => r.coin === coin);
          if (!mine.length) return [];
          const fromStore = stored.has(mine[0] as object);
          const out: CandleFrame[] = [];
          // The touched buckets in order, each with its trades.
          const touched = new Map<number, CandleTrade[]>();
          for (const r of mine) {
            const t = bucketStart(interval, r.time);
            const list = touched.get(t);
            if (list) list.push(r);
            else touched.set(t, [r]);
          }
          for (const [t, trades] of [...touched.entries()].sort((a, b) => a[0] - b[0])) {
            if (open !== null && t > open) {
              const done = finalOf(open, fromStore);
              if (done) out.push(done);
              open = null;
            }
            let values: CandleValues | null;
            const kept = buckets.get(t) ?? null;
            const current = fromStore || kept ? undefined : live(coin, interval).find((c) => c.t === t);
            if (current) {
              // Live, a bucket this subscriber holds nothing of: the aggregator's, which has the batch already.
              values = { o: current.o, h: current.h, l: current.l, c: current.c, v: current.v, n: current.n };
            } else {
              values = kept;
              for (const trade of trades) values = fold(values, trade);
            }
            if (!values) continue;
            buckets.set(t, values);
            if (buckets.size > KEPT_BUCKETS) buckets.delete(Math.min(...buckets.keys()));
            out.push(frame(t, values, false, false));
            if (open === null || t > open) open = t;
          }
          return out;
        },
        async read(after, limit, bounds) {
          if (!seeded) {
            seeded = true;
            // The bucket the position stands in: its values so far, and its final frame still to send. A replay
            // (from just before its start) seeds the bucket it starts inside, not one that ended before it.
            const t = bucketStart(interval, after.time);
            const replay = after.block === Number.MAX_SAFE_INTEGER;
            if (after.time > 0 && (!replay || bucketStart(interval, after.time + 1) === t)) {
              const values = await valuesUpTo(pool, coin, interval, t, after);
              if (values) {
                buckets.set(t, values);
                open = t;
              }
            }
          }
          const rows = await reader.read(after, limit, bounds);
          for (const r of rows) stored.add(r);
          return rows;
        },
        head: reader.head,
      }),
    ],
  };
}
