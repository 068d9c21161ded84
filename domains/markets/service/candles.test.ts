// The candle rules of spec §3 and §6, each one, with a controlled clock; and the SQL store on real Postgres.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TradeRow } from '../../../db/rows/markets.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import {
  backfillCandles,
  CandleAggregator,
  type CandleFrame,
  type CandleStore,
  type CandleValues,
  pgCandleStore,
} from './candles.ts';
import { bucketClose, bucketStart } from './intervals.ts';

const T = Date.UTC(2026, 10, 22, 7, 0, 0); // a minute boundary

function trade(time: number, px: string, sz = '1', block = time, seq = 0): TradeRow {
  return {
    block_number: block,
    seq,
    time,
    coin: 'BTC',
    side: 'B',
    px,
    sz,
    hash: '0x1',
    tid: time,
    buyer: null,
    seller: null,
    fees: '0',
  };
}

function setup(
  store: Partial<CandleStore> = {},
  intervals: CandleAggregator['current'] extends never ? never : ('1m' | '5s' | '1h')[] = ['1m'],
) {
  let now = T;
  const frames: CandleFrame[] = [];
  const calls: number[] = [];
  const agg = new CandleAggregator({
    store: {
      recompute: async (_coin, _i, t) => {
        calls.push(t);
        return null;
      },
      save: async () => {},
      ...store,
    },
    emit: (f) => frames.push(...f),
    now: () => now,
    intervals,
  });
  const setNow = (ms: number) => {
    now = ms;
  };
  return { agg, frames, calls, setNow };
}

describe('candle aggregator', () => {
  it('emits one update per bucket a batch touches, both buckets when it spans two', () => {
    const { agg, frames, setNow } = setup();
    setNow(T + 60_100);
    agg.onTrades([trade(T + 59_900, '100'), trade(T + 59_950, '101'), trade(T + 60_050, '102')]);
    expect(frames.map((f) => [f.t, f.o, f.c, f.n, f.closed])).toEqual([
      [T, '100', '101', 2, false],
      [T + 60_000, '102', '102', 1, false],
    ]);
    expect(frames[0]).toMatchObject({
      T: T + 59_999,
      s: 'BTC',
      i: '1m',
      v: '2',
      h: '101',
      l: '100',
      reconciled: false,
    });
  });

  it('puts late and out-of-order trades in their own bucket, in execution order', () => {
    const { agg, frames, setNow } = setup();
    setNow(T + 30_000);
    agg.onTrades([trade(T + 20_000, '100')]);
    agg.onTrades([trade(T + 10_000, '90')]); // earlier trade arriving later: becomes the open
    setNow(T + 61_000);
    agg.onTrades([trade(T + 70_000, '110'), trade(T + 25_000, '95')]); // a late trade for the previous bucket
    const last = frames.filter((f) => f.t === T).at(-1);
    expect(last).toMatchObject({ o: '90', c: '95', h: '100', l: '90', n: 3, closed: false });
    expect(frames.filter((f) => f.t === T + 60_000)).toEqual([expect.objectContaining({ o: '110', n: 1 })]);
  });

  it('sends one final frame about 2 s after the close, recomputed from stored trades', async () => {
    const stored: CandleValues = { o: '99', h: '120', l: '98', c: '111', v: '7.5', n: 9 };
    const { agg, frames, calls, setNow } = setup({ recompute: async () => stored });
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100')]);
    setNow(T + 60_000 + 1500);
    await agg.tick();
    expect(frames.filter((f) => f.closed)).toEqual([]);
    setNow(T + 60_000 + 2000);
    await agg.tick();
    await agg.tick();
    expect(frames.filter((f) => f.closed)).toEqual([
      { t: T, T: T + 59_999, s: 'BTC', i: '1m', ...stored, closed: true, reconciled: true },
    ]);
    expect(calls).toEqual([]); // the custom recompute replaced the counting one
  });

  it('reports reconciled false when storage is down, then a closed frame that supersedes it', async () => {
    let down = true;
    const { agg, frames, setNow } = setup({
      recompute: async () => {
        if (down) throw new Error('connection refused');
        return { o: '100', h: '101', l: '99', c: '100.5', v: '3', n: 3 };
      },
    });
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100'), trade(T + 2000, '101')]);
    setNow(T + 62_000);
    await agg.tick();
    setNow(T + 67_000);
    await agg.tick(); // still down: no second unreconciled frame
    const closed = () => frames.filter((f) => f.closed);
    expect(closed()).toEqual([expect.objectContaining({ t: T, o: '100', c: '101', n: 2, reconciled: false })]);
    down = false;
    setNow(T + 72_000);
    await agg.tick();
    expect(closed().at(-1)).toEqual(
      expect.objectContaining({ t: T, c: '100.5', n: 3, closed: true, reconciled: true }),
    );
    expect(closed()).toHaveLength(2);
  });

  it('reports 5s buckets final at their closed frame without recomputing', async () => {
    const { agg, frames, calls, setNow } = setup({}, ['5s']);
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100')]);
    setNow(T + 5000 + 2000);
    await agg.tick();
    expect(frames.filter((f) => f.closed)).toEqual([
      expect.objectContaining({ i: '5s', closed: true, reconciled: false }),
    ]);
    expect(calls).toEqual([]);
  });

  it('recomputes and re-reports a bucket that gets a trade after its final frame', async () => {
    const { agg, frames, calls, setNow } = setup();
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100')]);
    setNow(T + 62_000);
    await agg.tick();
    setNow(T + 90_000);
    agg.onTrades([trade(T + 30_000, '105')]);
    expect(frames.filter((f) => f.t === T && !f.closed)).toHaveLength(1); // no reopened update on the wire
    // Until it is final again, readers of the live candles don't see it closed with unreconciled values.
    expect(agg.recent('BTC', '1m').find((f) => f.t === T)).toMatchObject({ c: '105', closed: false });
    setNow(T + 92_000);
    await agg.tick();
    expect(calls).toEqual([T, T]);
    expect(frames.filter((f) => f.t === T && f.closed)).toHaveLength(2);
  });

  it('closes a 5s bucket that a late trade finds gone from memory from storage, never saving that trade alone', async () => {
    const stored: CandleValues = { o: '100', h: '104', l: '99', c: '103', v: '5', n: 4 };
    const saved: CandleFrame[] = [];
    let down = false;
    const { agg, frames, setNow } = setup(
      {
        recompute: async () => {
          if (down) throw new Error('connection refused');
          return stored;
        },
        save: async (f) => {
          saved.push(f);
        },
      },
      ['5s'],
    );
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100')]);
    setNow(T + 7000);
    await agg.tick(); // final from live state, saved
    setNow(T + 11 * 60_000);
    await agg.tick(); // dropped from memory
    expect(saved).toEqual([expect.objectContaining({ t: T, n: 1, closed: true, reconciled: false })]);

    down = true;
    agg.onTrades([trade(T + 2000, '104')]); // late by 11 minutes
    setNow(T + 11 * 60_000 + 2000);
    await agg.tick();
    // Reported from live state, unreconciled, but not saved over the stored bucket.
    expect(frames.filter((f) => f.closed).at(-1)).toMatchObject({ t: T, n: 1, c: '104', reconciled: false });
    expect(saved).toHaveLength(1);

    down = false;
    setNow(T + 11 * 60_000 + 8000);
    await agg.tick();
    expect(frames.filter((f) => f.closed).at(-1)).toEqual({
      t: T,
      T: T + 4999,
      s: 'BTC',
      i: '5s',
      ...stored,
      closed: true,
      reconciled: false,
    });
    expect(saved.at(-1)).toMatchObject({ ...stored, closed: true, reconciled: false });
  });

  it('closes again when a trade arrives while the close is reading storage', async () => {
    let release: (v: CandleValues) => void = () => {};
    const reads: number[] = [];
    const { agg, frames, setNow } = setup({
      recompute: (_c, _i, t) => {
        reads.push(t);
        return new Promise<CandleValues>((resolve) => {
          release = resolve;
        });
      },
    });
    setNow(T + 1000);
    agg.onTrades([trade(T + 1000, '100')]);
    setNow(T + 62_000);
    const closing = agg.tick();
    agg.onTrades([trade(T + 59_000, '107')]); // stored after the close's read began
    release({ o: '100', h: '100', l: '100', c: '100', v: '1', n: 1 });
    await closing;
    expect(frames.filter((f) => f.closed)).toEqual([]); // that read may miss the trade: nothing final from it
    setNow(T + 64_500);
    const again = agg.tick();
    release({ o: '100', h: '107', l: '100', c: '107', v: '2', n: 2 });
    await again;
    expect(reads).toEqual([T, T]);
    expect(frames.filter((f) => f.closed)).toEqual([
      expect.objectContaining({ t: T, c: '107', n: 2, closed: true, reconciled: true }),
    ]);
  });
});

describe('candle store on Postgres', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('recomputes in execution order and backfills every interval', async () => {
    const rows = [
      trade(T + 1000, '100', '1', 10, 1),
      trade(T + 1000, '99', '2', 10, 0), // same ms and block: seq 0 executed first
      trade(T + 59_999, '105', '0.5', 11, 0),
      trade(T + 60_000, '106', '1', 12, 0),
    ];
    for (const r of rows) {
      await db.pool.query(
        'INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, fees) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,0)',
        [r.block_number, r.seq, r.time, r.coin, r.side, r.px, r.sz, r.hash, r.tid],
      );
    }
    const store = pgCandleStore(db.pool);
    expect(await store.recompute('BTC', '1m', T)).toEqual({ o: '99', h: '105', l: '99', c: '105', v: '3.5', n: 3 });
    expect(await store.recompute('ETH', '1m', T)).toBeNull();

    expect(await backfillCandles(db.pool, T, T + 3 * 86_400_000, ['1w', '1M'])).toBe(0); // still open: left to the aggregator
    await backfillCandles(db.pool, T, Date.UTC(2027, 0, 1));
    const { rows: candles } = await db.pool.query(
      `SELECT interval, t, close_time, o::text, c::text, n, closed, reconciled FROM markets.candles WHERE interval IN ('1m','5s','1w','1M') ORDER BY interval, t`,
    );
    expect(candles).toEqual([
      {
        interval: '1M',
        t: Date.UTC(2026, 10, 1),
        close_time: Date.UTC(2026, 11, 1) - 1,
        o: '99',
        c: '106',
        n: 4,
        closed: true,
        reconciled: true,
      },
      { interval: '1m', t: T, close_time: T + 59_999, o: '99', c: '105', n: 3, closed: true, reconciled: true },
      {
        interval: '1m',
        t: T + 60_000,
        close_time: T + 119_999,
        o: '106',
        c: '106',
        n: 1,
        closed: true,
        reconciled: true,
      },
      {
        interval: '1w',
        t: bucketStart('1w', T),
        close_time: bucketClose('1w', bucketStart('1w', T)),
        o: '99',
        c: '106',
        n: 4,
        closed: true,
        reconciled: true,
      },
      { interval: '5s', t: T, close_time: T + 4999, o: '99', c: '100', n: 2, closed: true, reconciled: false },
      {
        interval: '5s',
        t: T + 55_000,
        close_time: T + 59_999,
        o: '105',
        c: '105',
        n: 1,
        closed: true,
        reconciled: false,
      },
      {
        interval: '5s',
        t: T + 60_000,
        close_time: T + 64_999,
        o: '106',
        c: '106',
        n: 1,
        closed: true,
        reconciled: false,
      },
    ]);
    // Weeks open on Thursday 00:00 UTC, as the exchange's do.
    expect(new Date(bucketStart('1w', T)).getUTCDay()).toBe(4);
  });
});
