// Candles resumed and replayed on /ws, and books replayed from their recorded samples, over the real stack: trades
// written as node fills and loaded by the real ingest pipeline; book samples written as the sampler writes them. The
// expected frames are worked out by hand from the trades written, and checked against the store with SQL of this
// test's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePartitions } from '../../db/partitions.ts';
import { backfillCandles } from '../../domains/markets/service/candles.ts';
import { InProcessBus } from '../../events/bus.ts';
import type { Stack } from '../../stack.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { graphqlWsClient } from '../../test/graphql.ts';
import { addr, hash, nodeFill, T0, tempDataDir } from '../../test/node-files.ts';
import { startStackWithoutNode } from '../../test/stack.ts';
import { type Frame, frameClient, ingestFillBlocks, subscribe } from '../../test/ws-frames.ts';
import type { FillEvent } from '../../wire/node-lines.ts';

const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);
/** Block n is at T0 + 20 s × n: three blocks per minute (blocks 1-2 in the minute of T0, 3-5 the next, 6-8...). */
const timeOf = (n: number) => T0 + n * 20_000;
const MINUTE = 60_000;

let db: TestDatabase;
let stack: Stack;
let bus: InProcessBus;
let dataDir: string;

/** Block n: `n % 3 + 1` BTC trades at 90000 + n, 0.1 each (ALICE buys from BOB). */
function fillsOfBlock(n: number): FillEvent[] {
  const out: FillEvent[] = [];
  for (let i = 0; i < (n % 3) + 1; i++) {
    const fill = { time: timeOf(n), tid: n * 10 + i, oid: n, hash: hash(n), px: `${90000 + n}.0` };
    out.push([ALICE, nodeFill(fill)], [BOB, nodeFill({ ...fill, side: 'A', dir: 'Open Short' })]);
  }
  return out;
}

const ingestBlocks = (from: number, to: number) =>
  ingestFillBlocks({ dataDir, pool: db.pool, bus }, from, to, timeOf, fillsOfBlock);

/** A /ws client that keeps every frame it got. */
const client = () => frameClient(stack.urls.ws);

/** A BTC 1m candle frame's data as worked out by hand: bucket `m` minutes after T0, prices of blocks `o`..`c`. */
function candle(m: number, o: number, h: number, c: number, n: number, closed: boolean, reconciled = closed) {
  const t = T0 + m * MINUTE;
  return {
    t,
    T: t + MINUTE - 1,
    s: 'BTC',
    i: '1m',
    o: `${90000 + o}.0`,
    c: `${90000 + c}.0`,
    h: `${90000 + h}.0`,
    l: `${90000 + o}.0`,
    v: (n / 10).toFixed(1),
    n,
    closed,
    reconciled,
  };
}

const position = (n: number) => `${n}-${timeOf(n)}`;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = new InProcessBus();
  dataDir = await tempDataDir();
  stack = await startStackWithoutNode(db.pool, { bus });
  await ingestBlocks(1, 8);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

describe('/ws candle resume', () => {
  it('after a position: every update and final frame missed, from the stored trades, then live', async () => {
    // Trades per block: 1 → 2, 2 → 3, 3 → 1, 4 → 2, 5 → 3, 6 → 1, 7 → 2, 8 → 3 (n % 3 + 1).
    const { rows } = await db.pool.query<{
      t: number;
      o: string;
      h: string;
      l: string;
      c: string;
      v: string;
      n: number;
    }>(
      `SELECT (time / 60000) * 60000 AS t, (array_agg(px::text ORDER BY time, block_number, seq))[1] AS o,
         max(px)::text AS h, min(px)::text AS l, (array_agg(px::text ORDER BY time DESC, block_number DESC, seq DESC))[1] AS c,
         sum(sz)::text AS v, count(*)::int AS n
       FROM markets.trades WHERE coin = 'BTC' GROUP BY 1 ORDER BY 1`,
    );
    // The store's minutes, as the final frames must give them.
    expect(rows.map((r) => ({ ...r, t: Number(r.t) }))).toEqual(
      [candle(0, 1, 2, 2, 5, true), candle(1, 3, 5, 5, 6, true), candle(2, 6, 8, 8, 6, true)].map(
        ({ t, o, h, l, c, v, n }) => ({ t, o, h, l, c, v, n }),
      ),
    );
    const a = await client();
    subscribe(a.socket, { type: 'candle', coin: 'BTC', interval: '1m', after: position(2) });
    await a.until((f) => f.channel === 'candle' && (f.data as { n: number }).n === 6 && f.position === position(8));
    const got = () =>
      a.frames.filter((f) => f.channel === 'candle').map((f) => ({ data: f.data, position: f.position }));
    expect(got()).toEqual([
      // Block 3 opens minute 1: minute 0's final frame (blocks 1-2) first, with block 3's position.
      { data: candle(0, 1, 2, 2, 5, true), position: position(3) },
      { data: candle(1, 3, 3, 3, 1, false), position: position(3) },
      { data: candle(1, 3, 4, 4, 3, false), position: position(4) },
      { data: candle(1, 3, 5, 5, 6, false), position: position(5) },
      { data: candle(1, 3, 5, 5, 6, true), position: position(6) },
      { data: candle(2, 6, 6, 6, 1, false), position: position(6) },
      { data: candle(2, 6, 7, 7, 3, false), position: position(7) },
      { data: candle(2, 6, 8, 8, 6, false), position: position(8) },
    ]);
    // Live: block 9 (minute 3) closes minute 2, then its own update. Live finals say reconciled as the aggregator has
    // it (false when it has not closed the bucket yet): the values are checked.
    await ingestBlocks(9, 9);
    await a.until((f) => f.channel === 'candle' && f.position === position(9) && !(f.data as Frame).closed);
    const live = got().slice(8);
    expect(live.map((f) => ({ ...(f.data as Frame), reconciled: null }))).toEqual([
      { ...candle(2, 6, 8, 8, 6, true), reconciled: null },
      { ...candle(3, 9, 9, 9, 1, false), reconciled: null },
    ]);
    expect(live.map((f) => f.position)).toEqual([position(9), position(9)]);
    a.socket.close();

    // From a position inside a minute: that minute's values so far are folded in (block 4 after block 3's 1 trade).
    const b = await client();
    subscribe(b.socket, { type: 'candle', coin: 'BTC', interval: '1m', after: position(3) });
    await b.until((f) => f.channel === 'candle' && f.position === position(4));
    expect(b.frames.find((f) => f.channel === 'candle')).toEqual({
      channel: 'candle',
      data: candle(1, 3, 4, 4, 3, false),
      position: position(4),
    });
    b.socket.close();
  }, 30_000);

  it('a bucket longer than a minute: the stored 1m candles before the minute of the position, then its trades', async () => {
    // Minutes 0-2 closed and stored (what the aggregator and a backfill write).
    await backfillCandles(db.pool, T0, T0 + 3 * MINUTE, ['1m']);
    const { rows } = await db.pool.query<{ n: number }>(
      `SELECT n FROM markets.candles WHERE coin = 'BTC' AND interval = '1m' AND t >= $1 AND t < $2 ORDER BY t`,
      [T0, T0 + 3 * MINUTE],
    );
    expect(rows.map((r) => r.n)).toEqual([5, 6, 6]);
    const a = await client();
    // After block 7: minutes 0 and 1 (11 trades) and blocks 6-7 (3) are had; blocks 8 (3) and 9 (1) follow.
    subscribe(a.socket, { type: 'candle', coin: 'BTC', interval: '5m', after: position(7) });
    await a.until((f) => f.channel === 'candle' && f.position === position(9));
    const fiveMinutes = (c: number, n: number) => ({
      ...candle(0, 1, c, c, n, false),
      T: T0 + 5 * MINUTE - 1,
      i: '5m',
    });
    expect(a.frames.filter((f) => f.channel === 'candle')).toEqual([
      { channel: 'candle', data: fiveMinutes(8, 17), position: position(8) },
      { channel: 'candle', data: fiveMinutes(9, 18), position: position(9) },
    ]);
    a.socket.close();
  }, 20_000);

  it('a bad after names the field; without after the channel is unchanged', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'candle', coin: 'BTC', interval: '1m', after: '3-4~5-6' });
    await a.until((f) => f.channel === 'error');
    expect(a.frames.find((f) => f.channel === 'error')?.data).toContain('after: not a position of this subscription');
    const seen = a.frames.length;
    subscribe(a.socket, { type: 'candle', coin: 'BTC', interval: '1m' });
    await a.until((f) => f.channel === 'subscriptionResponse' && !(f.data as { resume?: string }).resume);
    expect(a.frames.slice(seen).find((f) => f.channel === 'subscriptionResponse')?.data).toEqual({
      method: 'subscribe',
      subscription: { type: 'candle', coin: 'BTC', interval: '1m' },
    });
    a.socket.close();
  }, 20_000);
});

describe('/ws candle replay', () => {
  it('a window from a minute before the first trade: the gap, the updates and finals, replayComplete', async () => {
    const a = await client();
    const start = T0;
    const end = T0 + 130_000;
    subscribe(a.socket, {
      type: 'replay',
      stream: { type: 'candle', coin: 'BTC', interval: '1m' },
      start,
      end,
      speed: 500,
    });
    await a.until((f) => f.channel === 'replayComplete');
    const frames = a.frames.filter((f) => ['candle', 'gap', 'replayComplete'].includes(String(f.channel)));
    expect(frames.map((f) => (f.channel === 'candle' ? { data: f.data, position: f.position } : f))).toEqual([
      // No trade before block 1's (the store's coverage of trades starts there).
      { channel: 'gap', data: { from: start, to: timeOf(1) } },
      { data: candle(0, 1, 1, 1, 2, false), position: position(1) },
      { data: candle(0, 1, 2, 2, 5, false), position: position(2) },
      { data: candle(0, 1, 2, 2, 5, true), position: position(3) },
      { data: candle(1, 3, 3, 3, 1, false), position: position(3) },
      { data: candle(1, 3, 4, 4, 3, false), position: position(4) },
      { data: candle(1, 3, 5, 5, 6, false), position: position(5) },
      { data: candle(1, 3, 5, 5, 6, true), position: position(6) },
      { data: candle(2, 6, 6, 6, 1, false), position: position(6) },
      { channel: 'replayComplete', data: { start, end, frames: 8 } },
    ]);
    a.socket.close();
  }, 20_000);

  it('a window starting inside a minute: its values so far are those of the whole minute', async () => {
    const a = await client();
    const start = timeOf(2) - 1; // after block 1, before block 2
    subscribe(a.socket, {
      type: 'replay',
      stream: { type: 'candle', coin: 'BTC', interval: '1m' },
      start,
      end: timeOf(3) + 1,
      speed: 500,
    });
    await a.until((f) => f.channel === 'replayComplete');
    expect(a.frames.filter((f) => f.channel === 'candle').map((f) => f.data)).toEqual([
      candle(0, 1, 2, 2, 5, false),
      candle(0, 1, 2, 2, 5, true),
      candle(1, 3, 3, 3, 1, false),
    ]);
    a.socket.close();
  }, 20_000);
});

describe('/ws book replay', () => {
  /** A recorded BTC book at T0 + s seconds: bids 100 - i, asks 101 + i (3 levels each), sizes s. */
  const levels = (s: number) => [
    [0, 1, 2].map((i) => ({ px: `${100 - i}`, sz: `${s}`, n: 1 })),
    [0, 1, 2].map((i) => ({ px: `${101 + i}`, sz: `${s}`, n: 1 })),
  ];
  /** Samples at 0, 10, 20, 100 and 110 s (none for 80 s between), and one of ETH at 50 s. */
  const SECONDS = [0, 10, 20, 100, 110];

  beforeAll(async () => {
    await makePartitions(db.pool, new Map([['markets.history_book', { min: T0, max: T0 + 200_000 }]]));
    for (const s of SECONDS) {
      await db.pool.query('INSERT INTO markets.history_book (coin, time, levels) VALUES ($1, $2, $3)', [
        'BTC',
        T0 + s * 1000,
        JSON.stringify(levels(s)),
      ]);
    }
    await db.pool.query('INSERT INTO markets.history_book (coin, time, levels) VALUES ($1, $2, $3)', [
      'ETH',
      T0 + 50_000,
      JSON.stringify(levels(50)),
    ]);
  });

  it('plays the recorded books as l2Book frames, with a gap where a minute or more has none', async () => {
    const a = await client();
    const start = T0;
    const end = T0 + 180_000;
    const began = Date.now();
    subscribe(a.socket, { type: 'replay', stream: { type: 'l2Book', coin: 'BTC' }, start, end, speed: 500 });
    await a.until((f) => f.channel === 'replayComplete');
    const elapsed = Date.now() - began;
    const frames = a.frames.filter((f) => ['l2Book', 'gap', 'replayComplete'].includes(String(f.channel)));
    const book = (s: number) => ({
      channel: 'l2Book',
      data: { coin: 'BTC', time: T0 + s * 1000, levels: levels(s) },
      position: `${T0 + s * 1000}-${T0 + s * 1000}`,
    });
    expect(frames).toEqual([
      book(0),
      book(10),
      book(20),
      // 20 s to 100 s: 80 s without a sample.
      { channel: 'gap', data: { from: T0 + 20_001, to: T0 + 100_000 } },
      book(100),
      book(110),
      // 110 s to the end (180 s): 70 s.
      { channel: 'gap', data: { from: T0 + 110_001, to: end } },
      { channel: 'replayComplete', data: { start, end, frames: 5 } },
    ]);
    // 180 s at 500× is 360 ms at least.
    expect(elapsed).toBeGreaterThanOrEqual(350);
    a.socket.close();
  }, 20_000);

  it('several coins, fewer levels; aggregation refused, naming the field', async () => {
    const a = await client();
    subscribe(a.socket, {
      type: 'replay',
      stream: { type: 'l2Book', coins: ['BTC', 'ETH'], nLevels: 1 },
      start: T0 + 10_000,
      end: T0 + 60_000,
      speed: 500,
    });
    await a.until((f) => f.channel === 'replayComplete');
    const got = a.frames.filter((f) => f.channel === 'l2Book').map((f) => f.data as { coin: string; time: number });
    expect(got).toEqual([
      { coin: 'BTC', time: T0 + 10_000, levels: [[{ px: '100', sz: '10', n: 1 }], [{ px: '101', sz: '10', n: 1 }]] },
      { coin: 'BTC', time: T0 + 20_000, levels: [[{ px: '100', sz: '20', n: 1 }], [{ px: '101', sz: '20', n: 1 }]] },
      { coin: 'ETH', time: T0 + 50_000, levels: [[{ px: '100', sz: '50', n: 1 }], [{ px: '101', sz: '50', n: 1 }]] },
    ]);
    subscribe(a.socket, {
      type: 'replay',
      stream: { type: 'l2Book', coin: 'BTC', nSigFigs: 3 },
      start: T0,
      end: T0 + 60_000,
      speed: 500,
    });
    await a.until((f) => f.channel === 'error');
    expect(a.frames.find((f) => f.channel === 'error')?.data).toContain('stream.nSigFigs: a replay gives the recorded');
    a.socket.close();
  }, 20_000);

  it('a resumed l2Book still starts from a fresh snapshot', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'l2Book', coin: 'BTC', after: `${T0}-${T0}` });
    await a.until((f) => f.channel === 'subscriptionResponse');
    expect((a.frames.find((f) => f.channel === 'subscriptionResponse')?.data as { resume: string }).resume).toBe(
      'snapshot',
    );
    a.socket.close();
  }, 20_000);
});

describe('GraphQL candle resume and replay, book replay', () => {
  type Candle = { t: number; n: number; closed: boolean; c: string; cursor: string | null };
  const SELECTION = 't n c closed cursor';

  /** A graphql-ws subscription's events until `done` says so. */
  async function events<T>(query: string, done: (got: T[]) => boolean): Promise<T[]> {
    const client = graphqlWsClient(stack.urls.router);
    const got: T[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(got)}`)), 10_000);
        client.subscribe<Record<string, T>>(
          { query },
          {
            next: (frame) => {
              if (frame.errors) reject(new Error(JSON.stringify(frame.errors)));
              got.push(Object.values(frame.data ?? {})[0] as T);
              if (done(got)) {
                clearTimeout(timer);
                resolve();
              }
            },
            error: reject,
            complete: () => resolve(),
          },
        );
      });
    } finally {
      await client.dispose();
    }
    return got;
  }

  it('candle(after) gives the frames /ws gives, their cursors the /ws positions', async () => {
    const got = await events<Candle>(
      `subscription { candle(coin: "BTC", interval: _1m, after: "${position(5)}") { ${SELECTION} } }`,
      (g) => g.length >= 3,
    );
    expect(got.slice(0, 3)).toEqual([
      { t: T0 + MINUTE, n: 6, c: '90005.0', closed: true, cursor: position(6) },
      { t: T0 + 2 * MINUTE, n: 1, c: '90006.0', closed: false, cursor: position(6) },
      { t: T0 + 2 * MINUTE, n: 3, c: '90007.0', closed: false, cursor: position(7) },
    ]);
  }, 20_000);

  it('candleReplay: the window with its gap, then complete', async () => {
    type Frame = { position: string | null; data: Candle | null; gap: { from: number } | null; complete: unknown };
    const got = await events<Frame>(
      `subscription { candleReplay(coin: "BTC", interval: _1m, start: ${T0}, end: ${timeOf(3) + 1}, speed: 500) {
        position data { ${SELECTION} } gap { from to } complete { start end frames } } }`,
      (g) => g.some((f) => f.complete),
    );
    expect(got).toEqual([
      { position: null, data: null, gap: { from: T0, to: timeOf(1) }, complete: null },
      {
        position: position(1),
        data: { t: T0, n: 2, c: '90001.0', closed: false, cursor: position(1) },
        gap: null,
        complete: null,
      },
      {
        position: position(2),
        data: { t: T0, n: 5, c: '90002.0', closed: false, cursor: position(2) },
        gap: null,
        complete: null,
      },
      {
        position: position(3),
        data: { t: T0, n: 5, c: '90002.0', closed: true, cursor: position(3) },
        gap: null,
        complete: null,
      },
      {
        position: position(3),
        data: { t: T0 + MINUTE, n: 1, c: '90003.0', closed: false, cursor: position(3) },
        gap: null,
        complete: null,
      },
      { position: null, data: null, gap: null, complete: { start: T0, end: timeOf(3) + 1, frames: 4 } },
    ]);
  }, 20_000);

  it('l2BookReplay: the recorded books, a gap where a minute or more has none; aggregation refused', async () => {
    type Frame = {
      position: string | null;
      data: { coin: string; time: number; bids: { px: string; sz: string }[]; asks: { px: string }[] } | null;
      gap: { from: number; to: number } | null;
      complete: { frames: number } | null;
    };
    const got = await events<Frame>(
      `subscription { l2BookReplay(coin: "BTC", nLevels: 2, start: ${T0 + 10_000}, end: ${T0 + 101_000}, speed: 500) {
        position data { coin time bids { px sz } asks { px } } gap { from to } complete { frames } } }`,
      (g) => g.some((f) => f.complete),
    );
    const book = (s: number) => ({
      position: `${T0 + s * 1000}-${T0 + s * 1000}`,
      data: {
        coin: 'BTC',
        time: T0 + s * 1000,
        bids: [
          { px: '100', sz: `${s}` },
          { px: '99', sz: `${s}` },
        ],
        asks: [{ px: '101' }, { px: '102' }],
      },
      gap: null,
      complete: null,
    });
    expect(got).toEqual([
      book(10),
      book(20),
      { position: null, data: null, gap: { from: T0 + 20_001, to: T0 + 100_000 }, complete: null },
      book(100),
      { position: null, data: null, gap: null, complete: { frames: 3 } },
    ]);
    await expect(
      events(
        `subscription { l2BookReplay(coin: "BTC", nSigFigs: 3, start: ${T0}, end: ${T0 + 1000}, speed: 500) { position } }`,
        () => true,
      ),
    ).rejects.toThrow('nSigFigs: a replay gives the recorded books as recorded');
  }, 20_000);
});
