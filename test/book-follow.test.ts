// Issue 41's follower test: over an hour of a busy simulated market, a client that takes a snapshot and then applies
// every diff ends with the book a fresh snapshot gives: BTC's L2 book every block (l2BookDiff, 100 levels and at 3
// significant figures) and the L4 book of every coin (l4Book's Snapshot and Updates). The service is the real one,
// fed through its bus with the rows ingest parses from the simulated node's files; the clients are written here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatusRow } from '../db/rows/accounts.ts';
import type { BookDiffRow } from '../db/rows/markets.ts';
import { OrderBooks } from '../domains/markets/service/book.ts';
import { MarketsService } from '../domains/markets/service/index.ts';
import type { L2BookDiffFrame, L4BookFrame } from '../domains/markets/service/streams.ts';
import { InProcessBus } from '../events/bus.ts';
import { parseBookDiff } from '../ingest/formats/book.ts';
import { parseOrderStatus } from '../ingest/formats/orders.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { Upstream } from '../platform/upstream.ts';
import { readNodeBlocks } from './book-files.ts';

const T0 = Date.UTC(2026, 2, 3, 14, 0, 0);
const WARM_MS = 2 * 60_000;
const HOUR_MS = 3_600_000;

let root: string;
let pool: pg.Pool;
let sim: Simulator;
let markets: MarketsService;
let bus: InProcessBus;
let h1: number;
let h2: number;
let diffs: Map<number, BookDiffRow[]>;
let statuses: Map<number, OrderStatusRow[]>;

/** A client's L2 book: px → [sz, n] per side, from a snapshot and diffs (sz "0" removes). */
class L2Client {
  readonly sides = [new Map<string, [string, number]>(), new Map<string, [string, number]>()];
  height: number | null = null;
  frames = 0;
  apply(frame: L2BookDiffFrame): void {
    this.frames++;
    expect(frame.prevHeight).toBe(this.height);
    if ('snapshot' in frame) {
      frame.levels.forEach((levels, s) => {
        for (const l of levels) this.sides[s]!.set(l.px, [l.sz, l.n]);
      });
    } else {
      [frame.bids, frame.asks].forEach((levels, s) => {
        for (const l of levels) {
          if (l.sz === '0') this.sides[s]!.delete(l.px);
          else this.sides[s]!.set(l.px, [l.sz, l.n]);
        }
      });
    }
    this.height = frame.height;
  }
  /** Best first, as the book prints them. */
  levels(): { px: string; sz: string; n: number }[][] {
    return this.sides.map((side, s) =>
      [...side]
        .map(([px, [sz, n]]) => ({ px, sz, n }))
        .sort((a, b) => (s === 0 ? Number(b.px) - Number(a.px) : Number(a.px) - Number(b.px))),
    );
  }
}

/** A client's L4 book of one coin: oid → order, from the Snapshot and the raw diffs of Updates (in book order). */
class L4Client {
  readonly orders = new Map<number, { oid: number; user: string; side: string; px: string; sz: string }>();
  height = 0;
  updates = 0;
  apply(frame: L4BookFrame): void {
    if ('Snapshot' in frame) {
      for (const o of frame.Snapshot.levels.flat()) {
        this.orders.set(o.oid, { oid: o.oid, user: o.user, side: o.side, px: o.limitPx, sz: o.sz });
      }
      this.height = frame.Snapshot.height;
      return;
    }
    this.updates++;
    expect(frame.Updates.height).toBeGreaterThan(this.height);
    for (const d of frame.Updates.book_diffs) {
      const raw = d.raw_book_diff;
      if (raw === 'remove') this.orders.delete(d.oid);
      else if ('new' in raw)
        this.orders.set(d.oid, { oid: d.oid, user: d.user, side: d.side, px: d.px, sz: raw.new.sz });
      else this.orders.get(d.oid)!.sz = raw.update.newSz;
    }
    this.height = frame.Updates.height;
  }
}

const trim = (t: string) => (t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t);
const byOid = (orders: Iterable<{ oid: number; user: string; side: string; px: string; sz: string }>) =>
  [...orders].map((o) => [o.oid, o.user, o.side, trim(o.px), trim(o.sz)]).sort((a, b) => Number(a[0]) - Number(b[0]));

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'book-follow-'));
  sim = new Simulator({ dataDir: root, seed: 43, fillsPerSecond: 40, bookHistoryBlocks: 10 });
  await sim.writeHistory(T0, T0 + WARM_MS);
  const [start, books] = sim.l4SnapshotAt(null)!;
  h1 = start;
  await sim.writeHistory(T0 + WARM_MS, T0 + WARM_MS + HOUR_MS);
  await sim.stop();
  h2 = sim.stats.lastBlock!;
  diffs = readNodeBlocks(root, 'node_raw_book_diffs_by_block', parseBookDiff);
  statuses = readNodeBlocks(root, 'node_order_statuses_by_block', (e, n) => parseOrderStatus(e, n));
  bus = new InProcessBus();
  // The books need neither storage nor the node here (their snapshot is loaded below): a pool never connected.
  pool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:9/none' });
  markets = new MarketsService({ pool, upstream: new Upstream('http://127.0.0.1:9/info'), bus });
  markets.books.loadSnapshot(OrderBooks.parseL4Snapshot(books), h1, T0);
}, 600_000);

afterAll(async () => {
  await markets?.stop();
  await pool?.end();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a follower of the diffs ends the hour with the book a fresh snapshot gives', () => {
  it('BTC L2 (100 levels; 3 significant figures) and every coin L4', async () => {
    const l2Full = new L2Client();
    const l2Coarse = new L2Client();
    const l4 = new Map<string, L4Client>();
    const stops: (() => void)[] = [];
    const follow = <F>(
      stream: { snapshot(): F | null; subscribe(on: (f: F) => void): () => void },
      on: (f: F) => void,
    ) => {
      const snap = stream.snapshot();
      if (snap) on(snap);
      stops.push(stream.subscribe(on));
    };
    follow(markets.streams.l2BookDiff('BTC', { levels: 100 }), (f) => l2Full.apply(f));
    follow(markets.streams.l2BookDiff('BTC', { nSigFigs: 3, levels: 100 }), (f) => l2Coarse.apply(f));
    for (const coin of markets.books.coins()) {
      const client = new L4Client();
      l4.set(coin, client);
      follow(markets.streams.l4Book(coin), (f) => client.apply(f));
    }
    // Ingest's publications, block by block: the statuses, then the diffs.
    for (let h = h1 + 1; h <= h2; h++) {
      const s = statuses.get(h);
      if (s?.length) await bus.publish('orderStatuses', s);
      const d = diffs.get(h);
      if (d?.length) await bus.publish('bookDiffs', d);
    }
    for (const stop of stops) stop();

    // Busy: BTC's book changed in thousands of blocks.
    expect(l2Full.frames).toBeGreaterThan(5000);
    expect(l2Coarse.frames).toBeGreaterThan(100);
    const fresh = markets.books.l2('BTC', { levels: 100 })!;
    expect(l2Full.levels()).toEqual(fresh.levels);
    expect(l2Coarse.levels()).toEqual(markets.books.l2('BTC', { nSigFigs: 3, levels: 100 })!.levels);
    // And the service's book is the node's own at the last block.
    const node = OrderBooks.parseL4Snapshot(sim.l4SnapshotAt(null)![1]);
    for (const [coin, client] of l4) {
      const snapshot = markets.books.l4(coin)!;
      expect(byOid(client.orders.values()), coin).toEqual(
        byOid(snapshot.levels.flat().map((o) => ({ ...o, px: o.limitPx }))),
      );
      expect(byOid(client.orders.values()), `${coin} as the node`).toEqual(byOid(node.filter((o) => o.coin === coin)));
    }
    expect(l4.get('BTC')!.updates).toBeGreaterThan(5000);
  });
});
