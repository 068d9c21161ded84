// Issue 41's truth test: the L4 book the markets service holds, built from the node's snapshot at one height and the
// raw book diffs the node wrote after it, equals the node's own snapshot at every later height checked, for every
// coin. The node is the simulator, whose snapshot at a past height is a copy of its exchange's books (BookHistory),
// not a replay of the diffs it wrote; the diffs are read from its files as ingest reads them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookDiffRow } from '../db/rows/markets.ts';
import { OrderBooks } from '../domains/markets/service/book.ts';
import { parseBookDiff } from '../ingest/formats/book.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { readNodeBlocks } from './book-files.ts';

const T0 = Date.UTC(2026, 2, 3, 14, 0, 0);

type Row = [oid: number, user: string, px: string, sz: string];

/** The node's snapshot at `height` as coin → [bids, asks] of orders in the node's order (best first, time priority). */
function nodeBooks(sim: Simulator, height: number): Map<string, [Row[], Row[]]> {
  const answer = sim.l4SnapshotAt(height);
  if (!answer) throw new Error(`no snapshot at ${height}`);
  const out = new Map<string, [Row[], Row[]]>();
  for (const o of OrderBooks.parseL4Snapshot(answer[1])) {
    const sides = out.get(o.coin) ?? [[], []];
    out.set(o.coin, sides);
    sides[o.side === 'B' ? 0 : 1].push([o.oid, o.user, trim(o.px), trim(o.sz)]);
  }
  return out;
}

/** The service's book of every coin, in the same shape. */
function serviceBooks(books: OrderBooks): Map<string, [Row[], Row[]]> {
  const out = new Map<string, [Row[], Row[]]>();
  for (const coin of books.coins()) {
    const l4 = books.l4(coin);
    if (!l4) continue;
    const rows = l4.levels.map((side) => side.map((o): Row => [o.oid, o.user, trim(o.limitPx), trim(o.sz)]));
    // An empty book is no book: the node lists a delisted coin nowhere.
    if (rows[0]!.length + rows[1]!.length > 0) out.set(coin, rows as [Row[], Row[]]);
  }
  return out;
}

/** Decimal text without trailing zeros, so "1.50" and "1.5" compare equal (the node prints both ways). */
function trim(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

describe.each([
  // A busy market (the live rate): BTC's book changes in most blocks.
  { profile: 'default' as const, minutes: 6, opts: { fillsPerSecond: 40 } },
  // Mainnet's shape: every perp, spot pair and HIP-3 dex, order churn, a cascade minute's liquidations.
  { profile: 'mainnet' as const, minutes: 2, opts: { cascades: [T0 + 45_000], orderStatusesPerSecond: 300 } },
])(
  'the L4 book from the snapshot and the diffs equals the node snapshot ($profile profile)',
  ({ profile, minutes, opts }) => {
    let root: string;
    let sim: Simulator;
    let diffsByBlock: Map<number, BookDiffRow[]>;

    beforeAll(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'l4-exact-'));
      sim = new Simulator({ dataDir: root, seed: 41, profile, bookHistoryBlocks: 10_000, ...opts });
      await sim.writeHistory(T0, T0 + minutes * 60_000);
      await sim.stop();
      diffsByBlock = readNodeBlocks(root, 'node_raw_book_diffs_by_block', parseBookDiff);
    }, 300_000);

    afterAll(() => {
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('from a height a minute in, at every 10th height after it and at the last, for every coin', () => {
      const range = sim.bookHistoryRange;
      expect(range).not.toBeNull();
      const [first, h2] = range!;
      // Start where the books are full, not at the genesis block's empty ones.
      const h1 = first + Math.round((h2 - first) / (2 * minutes));
      const books = new OrderBooks();
      const start = sim.l4SnapshotAt(h1)!;
      const startOrders = OrderBooks.parseL4Snapshot(start[1]);
      expect(startOrders.length).toBeGreaterThan(100);
      books.loadSnapshot(startOrders, h1, T0);
      let checked = 0;
      let changed = 0;
      for (let h = h1 + 1; h <= h2; h++) {
        const diffs = diffsByBlock.get(h) ?? [];
        if (diffs.length) changed++;
        books.applyDiffs(diffs);
        if ((h - h1) % 10 !== 0 && h !== h2) continue;
        const want = nodeBooks(sim, h);
        const have = serviceBooks(books);
        expect([...have.keys()].sort(), `coins at ${h}`).toEqual([...want.keys()].sort());
        for (const [coin, sides] of want) expect(have.get(coin), `${coin} at ${h}`).toEqual(sides);
        checked++;
      }
      expect(checked).toBeGreaterThan(50);
      // The stretch is busy: most blocks change some book.
      expect(changed).toBeGreaterThan((h2 - h1) / 2);
      expect(books.stats).toMatchObject({ unknownOids: 0, replacedOids: 0, malformedDiffs: 0 });
      // The height the service's books stand at is the last block that changed one.
      expect(books.height).toBe(Math.max(...[...diffsByBlock.keys()].filter((h) => h <= h2)));
    });

    it('a height outside the kept past is refused, as a node refuses a body', () => {
      const [h1, h2] = sim.bookHistoryRange!;
      expect(sim.l4SnapshotAt(h1 - 1)).toBeNull();
      expect(sim.l4SnapshotAt(h2 + 1)).toBeNull();
      expect(() =>
        sim.info({
          type: 'fileSnapshot',
          request: { type: 'l4Snapshots', height: h1 - 1 },
          outPath: path.join(root, 'x.json'),
        }),
      ).toThrow(/no books at height/);
      const at = h1 + 100;
      sim.info({
        type: 'fileSnapshot',
        request: { type: 'l4Snapshots', includeUsers: true, height: at },
        outPath: path.join(root, 'at.json'),
        includeHeightInOutput: true,
      });
      const [height, books] = JSON.parse(fs.readFileSync(path.join(root, 'at.json'), 'utf8')) as [number, unknown];
      expect(height).toBe(at);
      expect(OrderBooks.parseL4Snapshot(books).length).toBeGreaterThan(50);
    });
  },
);
