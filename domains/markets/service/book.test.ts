// The order books from raw diffs and snapshots, and every L2 view of them, against hand-computed answers.
import { describe, expect, it } from 'vitest';
import type { BookDiffRow } from '../../../db/rows/markets.ts';
import { addDecimal } from '../../../platform/decimal.ts';
import { BookQueryError, type L2Options } from './book/aggregation.ts';
import type { L2Level } from './book/coin-book.ts';
import type { L4Order } from './book/l4-snapshot.ts';
import { OrderBooks } from './book.ts';

interface DiffInit {
  oid: number;
  side?: 'A' | 'B';
  px?: string;
  sz?: string;
  coin?: string;
  block?: number;
  time?: number;
}

function added({
  oid,
  side = 'B',
  px = '1.0',
  sz = '1.0',
  coin = 'BTC',
  block = 1,
  time = 1_000,
}: DiffInit): BookDiffRow {
  return { block_number: block, time, address: '0xu', oid, coin, side, px, kind: 'new', sz, orig_sz: null };
}

function updated({
  oid,
  side = 'B',
  px = '1.0',
  sz = '1.0',
  coin = 'BTC',
  block = 1,
  time = 1_000,
}: DiffInit): BookDiffRow {
  return { block_number: block, time, address: '0xu', oid, coin, side, px, kind: 'update', sz, orig_sz: '9.0' };
}

function removed({ oid, side = 'B', px = '1.0', coin = 'BTC', block = 1, time = 1_000 }: DiffInit): BookDiffRow {
  return { block_number: block, time, address: '0xu', oid, coin, side, px, kind: 'remove', sz: null, orig_sz: null };
}

/** Books that start empty at height 0, so live diffs apply at once. */
function liveBooks(): OrderBooks {
  const books = new OrderBooks();
  books.loadSnapshot([], 0, 0);
  return books;
}

/** A book of resting orders given as [px, sz] per side (one order each, oids from 1). */
function bookOf(bids: [string, string][], asks: [string, string][], coin = 'BTC'): OrderBooks {
  const books = liveBooks();
  let oid = 1;
  books.applyDiffs([
    ...bids.map(([px, sz]) => added({ oid: oid++, side: 'B', px, sz, coin })),
    ...asks.map(([px, sz]) => added({ oid: oid++, side: 'A', px, sz, coin })),
  ]);
  return books;
}

const lv = (px: string, sz: string, n = 1): L2Level => ({ px, sz, n });

describe('L2 from raw diffs', () => {
  it('aggregates orders per price, best first, and follows update and remove', () => {
    const books = liveBooks();
    const changed = books.applyDiffs([
      added({ oid: 1, side: 'B', px: '90000.0', sz: '0.5' }),
      added({ oid: 2, side: 'B', px: '90000', sz: '1.50' }), // same price, other spelling
      added({ oid: 3, side: 'B', px: '89990.0', sz: '0.1' }),
      added({ oid: 4, side: 'A', px: '90020.0', sz: '1' }),
      added({ oid: 5, side: 'A', px: '90010.0', sz: '0.3', time: 1_500 }),
      added({ oid: 6, side: 'A', px: '3000.0', sz: '2', coin: 'ETH' }),
    ]);
    expect([...changed].sort()).toEqual(['BTC', 'ETH']);
    expect(books.l2('BTC')).toEqual({
      coin: 'BTC',
      time: 1_500,
      levels: [
        [lv('90000.0', '2.0', 2), lv('89990.0', '0.1')],
        [lv('90010.0', '0.3'), lv('90020.0', '1.0')],
      ],
    });

    books.applyDiffs([
      updated({ oid: 2, side: 'B', px: '90000.0', sz: '1.0', time: 2_000 }),
      removed({ oid: 5, side: 'A', px: '90010.0', time: 2_100 }),
    ]);
    expect(books.l2('BTC')?.levels).toEqual([[lv('90000.0', '1.5', 2), lv('89990.0', '0.1')], [lv('90020.0', '1.0')]]);
    expect(books.lastChangeTime('BTC')).toBe(2_100);

    // The last order of a level takes the level with it.
    books.applyDiffs([removed({ oid: 3 })]);
    expect(books.l2('BTC')?.levels[0]).toEqual([lv('90000.0', '1.5', 2)]);
    expect(books.coins()).toEqual(['BTC', 'ETH']);
  });

  it('hands out one answer object per book state and options, a new one after every change', () => {
    const books = bookOf([['90000.0', '1']], [['90010.0', '1']]);
    const first = books.l2('BTC');
    expect(books.l2('BTC')).toBe(first);
    expect(books.l2('BTC', { nSigFigs: 2 })).not.toBe(first);
    expect(books.l2('BTC', { nSigFigs: 2 })).toBe(books.l2('BTC', { nSigFigs: 2 }));
    for (const diff of [
      updated({ oid: 1, side: 'B', px: '90000.0', sz: '2', time: 2_000 }),
      added({ oid: 7, side: 'A', px: '90020.0', sz: '1', time: 3_000 }),
      removed({ oid: 7, side: 'A', px: '90020.0', time: 4_000 }),
    ]) {
      const before = books.l2('BTC');
      books.applyDiffs([diff]);
      const after = books.l2('BTC');
      expect(after).not.toBe(before);
      expect(after?.time).toBe(diff.time);
    }
    expect(books.l2('BTC')?.levels[0]).toEqual([lv('90000.0', '2.0')]);
  });

  it('caps each side at 20 levels by default, or at `levels`', () => {
    const bids = Array.from({ length: 30 }, (_, i): [string, string] => [`${99 - i}.5`, '1']);
    const asks = Array.from({ length: 30 }, (_, i): [string, string] => [`${130 - i}.0`, '1']);
    const books = bookOf(bids, asks);
    const l2 = books.l2('BTC');
    expect(l2?.levels[0]).toHaveLength(20);
    expect(l2?.levels[1]).toHaveLength(20);
    expect(l2?.levels[0][0]?.px).toBe('99.5');
    expect(l2?.levels[0][19]?.px).toBe('80.5');
    expect(l2?.levels[1][0]?.px).toBe('101.0');
    expect(l2?.levels[1][19]?.px).toBe('120.0');
    expect(books.l2('BTC', { levels: 3 })?.levels[1].map((l) => l.px)).toEqual(['101.0', '102.0', '103.0']);
  });

  it('counts an update or remove of an unknown oid and ignores it', () => {
    const books = bookOf([['10.0', '1']], []);
    const changed = books.applyDiffs([
      updated({ oid: 999, sz: '2' }),
      removed({ oid: 998 }),
      removed({ oid: 1, coin: 'ETH' }),
    ]);
    expect(changed.size).toBe(0);
    expect(books.stats.unknownOids).toBe(3);
    expect(books.l2('BTC')?.levels[0]).toEqual([lv('10.0', '1.0')]);
  });

  it('answers null for a coin it has never seen', () => {
    const books = bookOf([['10.0', '1']], [['11.0', '1']]);
    expect(books.l2('DOGE')).toBeNull();
    expect(books.bbo('DOGE')).toBeNull();
    expect(books.mid('DOGE')).toBeNull();
    expect(books.depth('DOGE')).toBeNull();
    expect(books.slippage('DOGE', '100')).toBeNull();
    expect(books.lastChangeTime('DOGE')).toBeNull();
  });
});

describe('nSigFigs and mantissa', () => {
  const books = bookOf(
    [
      ['90123', '1'],
      ['90050', '2'],
      ['89999', '0.5'],
      ['89000', '1'],
    ],
    [
      ['90125', '1'],
      ['90126', '1'],
      ['90900', '2'],
      ['91001', '3'],
    ],
  );
  const levels = (opts: L2Options) => books.l2('BTC', opts)?.levels;

  it('2 figures: bids round down, asks round up', () => {
    expect(levels({ nSigFigs: 2 })).toEqual([
      [lv('90000.0', '3.0', 2), lv('89000.0', '1.5', 2)],
      [lv('91000.0', '4.0', 3), lv('92000.0', '3.0')],
    ]);
  });

  it('3 figures', () => {
    expect(levels({ nSigFigs: 3 })).toEqual([
      [lv('90100.0', '1.0'), lv('90000.0', '2.0'), lv('89900.0', '0.5'), lv('89000.0', '1.0')],
      [lv('90200.0', '2.0', 2), lv('90900.0', '2.0'), lv('91100.0', '3.0')],
    ]);
  });

  it('5 figures leave 5-digit prices alone; mantissa 2 and 5 widen the bucket', () => {
    expect(levels({ nSigFigs: 5 })).toEqual(levels({}));
    expect(levels({ nSigFigs: 5, mantissa: 1 })).toEqual(levels({}));
    expect(levels({ nSigFigs: 5, mantissa: 2 })).toEqual([
      [lv('90122.0', '1.0'), lv('90050.0', '2.0'), lv('89998.0', '0.5'), lv('89000.0', '1.0')],
      [lv('90126.0', '2.0', 2), lv('90900.0', '2.0'), lv('91002.0', '3.0')],
    ]);
    expect(levels({ nSigFigs: 5, mantissa: 5 })).toEqual([
      [lv('90120.0', '1.0'), lv('90050.0', '2.0'), lv('89995.0', '0.5'), lv('89000.0', '1.0')],
      [lv('90125.0', '1.0'), lv('90130.0', '1.0'), lv('90900.0', '2.0'), lv('91005.0', '3.0')],
    ]);
  });

  it('counts levels after aggregation', () => {
    expect(books.l2('BTC', { nSigFigs: 3, levels: 2 })?.levels).toEqual([
      [lv('90100.0', '1.0'), lv('90000.0', '2.0')],
      [lv('90200.0', '2.0', 2), lv('90900.0', '2.0')],
    ]);
  });

  it('fractional prices and a bucket that rounds up into the next magnitude', () => {
    const eth = bookOf([['3456.7', '1']], [['3456.8', '1']], 'ETH');
    expect(eth.l2('ETH', { nSigFigs: 2 })?.levels).toEqual([[lv('3400.0', '1.0')], [lv('3500.0', '1.0')]]);
    expect(eth.l2('ETH', { nSigFigs: 5, mantissa: 5 })?.levels).toEqual([[lv('3456.5', '1.0')], [lv('3457.0', '1.0')]]);
    const small = bookOf([['0.0012345', '100']], [['0.0012351', '100']], 'PEPE');
    expect(small.l2('PEPE', { nSigFigs: 3 })?.levels).toEqual([[lv('0.00123', '100.0')], [lv('0.00124', '100.0')]]);
    expect(small.l2('PEPE', { nSigFigs: 4 })?.levels).toEqual([[lv('0.001234', '100.0')], [lv('0.001236', '100.0')]]);
    const edge = bookOf([], [['99500', '1']], 'X');
    expect(edge.l2('X', { nSigFigs: 2 })?.levels[1]).toEqual([lv('100000.0', '1.0')]);
    // Fewer significant digits than asked for: already on a bucket edge.
    const coarse = bookOf([['0.5', '1']], [['7', '1']], 'Y');
    expect(coarse.l2('Y', { nSigFigs: 5, mantissa: 2 })?.levels).toEqual([[lv('0.5', '1.0')], [lv('7.0', '1.0')]]);
  });
});

describe('bbo and mids', () => {
  it('best level of each side and the exact mid', () => {
    const books = bookOf(
      [
        ['90000.0', '1'],
        ['89999.0', '2'],
      ],
      [['90001.0', '0.25']],
    );
    books.applyDiffs([added({ oid: 9, side: 'B', px: '90000', sz: '0.5', time: 7_000 })]);
    expect(books.bbo('BTC')).toEqual({
      coin: 'BTC',
      time: 7_000,
      bbo: [lv('90000.0', '1.5', 2), lv('90001.0', '0.25')],
    });
    expect(books.mid('BTC')).toBe('90000.5');
    books.applyDiffs([added({ oid: 10, side: 'A', px: '0.0013', sz: '1', coin: 'PEPE' })]);
    books.applyDiffs([added({ oid: 11, side: 'B', px: '0.0012', sz: '1', coin: 'PEPE' })]);
    expect(books.mid('PEPE')).toBe('0.00125');
  });

  it('mids() skips one-sided books', () => {
    const books = liveBooks();
    books.applyDiffs([
      added({ oid: 1, side: 'B', px: '100', coin: 'A1' }),
      added({ oid: 2, side: 'A', px: '102', coin: 'A1' }),
      added({ oid: 3, side: 'B', px: '5', coin: 'BIDS' }),
      added({ oid: 4, side: 'A', px: '5', coin: 'ASKS' }),
    ]);
    expect(books.mids()).toEqual({ A1: '101.0' });
    expect(books.mid('BIDS')).toBeNull();
    expect(books.bbo('BIDS')?.bbo).toEqual([lv('5.0', '1.0'), null]);
  });
});

describe('depth and slippage', () => {
  // mid = (99.95 + 100.05) / 2 = 100
  const books = bookOf(
    [
      ['99.95', '10'], // 999.5
      ['99.8', '5'], // 499
      ['99', '2'], // 198, on the 100 bps edge
      ['97', '1'], // 97
      ['90', '100'], // 9000, outside every band
    ],
    [
      ['100.05', '10'], // 1000.5
      ['100.5', '4'], // 402, on the 50 bps edge
      ['101', '1'], // 101
      ['104', '1'], // 104
      ['110', '1'], // 110, outside every band
    ],
  );

  it('cumulative notional within each band around the mid, edges included', () => {
    expect(books.depth('BTC')).toEqual({
      coin: 'BTC',
      time: 1_000,
      midPx: '100.0',
      depth: {
        '10': { bidDepthUsd: '999.5', askDepthUsd: '1000.5' },
        '25': { bidDepthUsd: '1498.5', askDepthUsd: '1000.5' },
        '50': { bidDepthUsd: '1498.5', askDepthUsd: '1402.5' },
        '100': { bidDepthUsd: '1696.5', askDepthUsd: '1503.5' },
        '200': { bidDepthUsd: '1696.5', askDepthUsd: '1503.5' },
        '500': { bidDepthUsd: '1793.5', askDepthUsd: '1607.5' },
      },
    });
    expect(bookOf([['1', '1']], []).depth('BTC')).toBeNull();
  });

  it('impact of the average fill price in bps of the mid', () => {
    // Buy: exactly the first ask level, avg 100.05. Sell: 999.5 for 10 @ 99.95, then 1 more at 99.8:
    // avg = 1000.5·99.8 / (10·99.8 + 1) = 99.949849…, 5.01501… bps.
    expect(books.slippage('BTC', '1000.5')).toEqual({ buyBps: '5.0', sellBps: '5.015' });
    // 10 @ 100.05 + 2 @ 100.5 = 1201.5 for 12: avg 100.125.
    expect(books.slippage('BTC', '1201.5')?.buyBps).toBe('12.5');
    // 10 @ 99.95 + 5 @ 99.8 = 1498.5 for 15: avg 99.9.
    expect(books.slippage('BTC', '1498.5')?.sellBps).toBe('10.0');
    // Partial last level: 1000.5 + 100 more at 100.5 → avg = 1100.5·100.5 / (10·100.5 + 100) = 100.09072398…
    expect(books.slippage('BTC', '1100.5')?.buyBps).toBe('9.0724');
    // More than the asks hold (1717.5); the sell reaches 90: avg = 2000·90 / (18·90 + 206.5) = 98.549138….
    expect(books.slippage('BTC', '2000')).toEqual({ buyBps: null, sellBps: '145.0862' });
    expect(books.slippage('BTC', '20000')).toEqual({ buyBps: null, sellBps: null });
    expect(bookOf([['1', '1']], []).slippage('BTC', '1')).toEqual({ buyBps: null, sellBps: null });
    for (const bad of ['0', '-5', 'abc', '1e3']) expect(() => books.slippage('BTC', bad)).toThrow(BookQueryError);
  });
});

describe('snapshot and buffered diffs', () => {
  const snapshot: L4Order[] = [
    { oid: 1, user: '0xa', coin: 'BTC', side: 'B', px: '90000.0', sz: '1.0' },
    { oid: 2, user: '0xb', coin: 'BTC', side: 'A', px: '90010.0', sz: '1.0' },
    { oid: 3, user: '0xc', coin: 'ETH', side: 'B', px: '3000.0', sz: '4.0' },
  ];

  it('buffers until the snapshot, then replays only diffs above its height', () => {
    const books = new OrderBooks();
    const changed = books.applyDiffs([
      added({ oid: 7, side: 'B', px: '1.0', block: 99 }),
      removed({ oid: 1, block: 100 }),
      added({ oid: 4, side: 'B', px: '89990.0', sz: '2', block: 101, time: 5_101 }),
      updated({ oid: 2, side: 'A', px: '90010.0', sz: '0.4', block: 101, time: 5_102 }),
    ]);
    expect(changed.size).toBe(0);
    expect(books.l2('BTC')).toBeNull();

    books.loadSnapshot(snapshot, 100, 5_000);
    expect(books.stats.staleDiffs).toBe(2);
    expect(books.l2('BTC')).toEqual({
      coin: 'BTC',
      time: 5_102,
      levels: [[lv('90000.0', '1.0'), lv('89990.0', '2.0')], [lv('90010.0', '0.4')]],
    });
    expect(books.l2('ETH')?.time).toBe(5_000);

    // Live diffs at or below the height are in the snapshot already.
    expect(books.applyDiffs([removed({ oid: 1, block: 100 })]).size).toBe(0);
    expect(books.stats.staleDiffs).toBe(3);
    expect([...books.applyDiffs([removed({ oid: 1, block: 102, time: 6_000 })])]).toEqual(['BTC']);
    expect(books.bbo('BTC')?.bbo[0]).toEqual(lv('89990.0', '2.0'));
  });

  it('a snapshot of some coins leaves the others awaiting theirs', () => {
    const books = new OrderBooks();
    books.applyDiffs([
      added({ oid: 5, coin: 'ETH', side: 'A', px: '3001.0', block: 51 }),
      added({ oid: 6, coin: 'BTC', side: 'B', px: '80000.0', block: 51 }),
    ]);
    books.loadSnapshot(snapshot, 50, 5_000, ['ETH']);
    expect(books.l2('ETH')?.levels).toEqual([[lv('3000.0', '4.0')], [lv('3001.0', '1.0')]]);
    expect(books.l2('BTC')).toBeNull();
    expect(books.applyDiffs([added({ oid: 8, coin: 'BTC', side: 'A', px: '80001.0', block: 52 })]).size).toBe(0);
    // The fallback when no snapshot is to be had: empty books at height 0, everything buffered replays.
    books.loadSnapshot([], 0, 6_000);
    expect(books.l2('BTC')?.levels).toEqual([[lv('80000.0', '1.0')], [lv('80001.0', '1.0')]]);
  });

  it('parses the node l4Snapshots file: [user, order] pairs or bare orders, trigger orders skipped', () => {
    const order = (oid: number, side: string, limitPx: string, sz: string, extra: object = {}) => ({
      coin: 'BTC',
      side,
      limitPx,
      sz,
      oid,
      timestamp: 1_700_000_000_000 + oid,
      triggerCondition: 'N/A',
      isTrigger: false,
      triggerPx: '0.0',
      children: [],
      isPositionTpsl: false,
      reduceOnly: false,
      orderType: 'Limit',
      origSz: sz,
      tif: 'Gtc',
      cloid: null,
      ...extra,
    });
    const file = [
      123_456,
      [
        [
          'BTC',
          [
            [['0xaaa', order(1, 'B', '90000.0', '0.5')], order(2, 'B', '89000.0', '1.0', { user: '0xbbb' })],
            [
              ['0xccc', order(3, 'A', '91000.0', '2.0')],
              ['0xddd', order(4, 'A', '95000.0', '1.0', { isTrigger: true })],
            ],
          ],
        ],
        ['ETH', [[], []]],
      ],
    ];
    // The record's other fields, kept for the L4 book (l4Book, Market.l4Book).
    const detail = (timestamp: number, origSz: string) => ({
      timestamp,
      triggerCondition: 'N/A',
      isTrigger: false,
      triggerPx: '0.0',
      isPositionTpsl: false,
      reduceOnly: false,
      orderType: 'Limit',
      origSz,
      tif: 'Gtc',
      cloid: null,
    });
    const t1 = 1_700_000_000_001;
    expect(OrderBooks.parseL4Snapshot(file)).toEqual([
      {
        oid: 1,
        user: '0xaaa',
        coin: 'BTC',
        side: 'B',
        px: '90000.0',
        sz: '0.5',
        timestamp: t1,
        detail: detail(t1, '0.5'),
      },
      {
        oid: 2,
        user: '0xbbb',
        coin: 'BTC',
        side: 'B',
        px: '89000.0',
        sz: '1.0',
        timestamp: t1 + 1,
        detail: detail(t1 + 1, '1.0'),
      },
      {
        oid: 3,
        user: '0xccc',
        coin: 'BTC',
        side: 'A',
        px: '91000.0',
        sz: '2.0',
        timestamp: t1 + 2,
        detail: detail(t1 + 2, '2.0'),
      },
    ]);
    expect(OrderBooks.parseL4Snapshot(file[1])).toHaveLength(3);
    expect(() => OrderBooks.parseL4Snapshot({})).toThrow(/l4 snapshot/);
    expect(() => OrderBooks.parseL4Snapshot([['BTC', [[{ oid: 1, limitPx: 'x', sz: '1' }], []]]])).toThrow(/limitPx/);
  });
});

describe('many diffs', () => {
  it('100k random diffs leave the same book as a naive model', () => {
    // A seeded generator (mulberry32), so a failure replays.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
    };
    const coins = Array.from({ length: 20 }, (_, i) => `C${i}`);
    const model = new Map<number, { coin: string; side: 'A' | 'B'; px: string; sz: string }>();
    const live: number[] = [];
    const diffs: BookDiffRow[] = [];
    let nextOid = 1;
    for (let i = 0; i < 100_000; i++) {
      const roll = rand(10);
      if (live.length > 0 && roll < 5) {
        const at = rand(live.length);
        const oid = live[at]!;
        const o = model.get(oid)!;
        if (roll < 3) {
          live[at] = live[live.length - 1]!;
          live.pop();
          model.delete(oid);
          diffs.push(removed({ oid, coin: o.coin, side: o.side, px: o.px, block: i + 1, time: i }));
        } else {
          o.sz = `${rand(50) + 1}.${rand(100)}`;
          diffs.push(updated({ oid, coin: o.coin, side: o.side, px: o.px, sz: o.sz, block: i + 1, time: i }));
        }
      } else {
        const side = rand(2) === 0 ? 'B' : 'A';
        const coin = coins[rand(coins.length)]!;
        // Bids 900–999.9, asks 1000–1099.9: a tenth-tick grid so levels hold several orders.
        const px = `${(side === 'B' ? 900 : 1000) + rand(100)}.${rand(10)}`;
        const o = { coin, side, px, sz: `${rand(50) + 1}.${rand(1000)}` } as const;
        model.set(nextOid, { ...o });
        live.push(nextOid);
        diffs.push(added({ oid: nextOid++, ...o, block: i + 1, time: i }));
      }
    }
    const books = liveBooks();
    // Batches as the bus delivers them, with queries in between so the kept sort order is exercised.
    for (let i = 0; i < diffs.length; i += 500) {
      books.applyDiffs(diffs.slice(i, i + 500));
      books.l2(coins[(i / 500) % coins.length]!);
    }
    expect(books.stats.unknownOids).toBe(0);
    for (const coin of coins) {
      const expected: [Map<number, L2Level>, Map<number, L2Level>] = [new Map(), new Map()];
      for (const o of model.values()) {
        if (o.coin !== coin) continue;
        const levels = expected[o.side === 'B' ? 0 : 1];
        const prior = levels.get(Number(o.px));
        levels.set(Number(o.px), {
          px: o.px,
          sz: prior ? addDecimal(prior.sz, o.sz) : o.sz,
          n: (prior?.n ?? 0) + 1,
        });
      }
      const normal = (l: L2Level) => ({ px: Number(l.px), sz: Number(l.sz), n: l.n });
      const bids = [...expected[0].values()].sort((a, b) => Number(b.px) - Number(a.px)).map(normal);
      const asks = [...expected[1].values()].sort((a, b) => Number(a.px) - Number(b.px)).map(normal);
      const got = books.l2(coin, { levels: 10_000 });
      expect(got?.levels[0].map(normal)).toEqual(bids);
      expect(got?.levels[1].map(normal)).toEqual(asks);
    }
  });
});
