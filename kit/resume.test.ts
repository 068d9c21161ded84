// kit/resume.ts followStored over a bus that delivers one publish's rows in several batches, one per key, as the
// JetStream adapter does (a coin's trades are a message of their own): a coin's trades that come after another
// coin's batch of the same blocks are the subscriber's all the same, live and on resume. The markets domain's real
// trades stream over a real database; the bus is the in-process one, handed the per-coin batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TradeRow } from '../db/rows/markets.ts';
import { MarketStoredStreams } from '../domains/markets/service/stored-streams.ts';
import { InProcessBus } from '../events/bus.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { followStored } from './resume.ts';

const T0 = Date.UTC(2026, 0, 5);

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

/** A trade of `coin` in block `block` (at T0 + block s), seq `seq`, tid block*10 + seq. */
const trade = (coin: string, block: number, seq: number): TradeRow => ({
  block_number: block,
  seq,
  time: T0 + block * 1000,
  coin,
  side: 'B',
  px: '100.0',
  sz: '1.0',
  hash: `0x${block.toString(16).padStart(64, '0')}`,
  tid: block * 10 + seq,
  buyer: null,
  seller: null,
  fees: '0',
});

async function store(rows: TradeRow[]): Promise<void> {
  for (const r of rows) {
    await db.pool.query(
      `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [r.block_number, r.seq, r.time, r.coin, r.side, r.px, r.sz, r.hash, r.tid, r.buyer, r.seller, r.fees],
    );
  }
}

/** Blocks `from..to` as ingest stores and publishes them: ETH's trades (seq 0) and BTC's (seq 1), ETH's batch first. */
async function publishBlocks(bus: InProcessBus, from: number, to: number, commit = true): Promise<void> {
  const eth: TradeRow[] = [];
  const btc: TradeRow[] = [];
  for (let n = from; n <= to; n++) {
    eth.push(trade('ETH', n, 0));
    btc.push(trade('BTC', n, 1));
  }
  if (commit) await store([...eth, ...btc]);
  bus.publish('trades', eth);
  bus.publish('trades', btc);
}

function follow(bus: InProcessBus, after: string | null) {
  const got: { tids: number[]; position: string }[] = [];
  const streams = new MarketStoredStreams(bus, db.pool);
  const done = followStored(streams.trades('BTC'), after, {
    send: (event, position) => got.push({ tids: event.map((t) => t.tid), position }),
    ready: async () => true,
  });
  return { got, done };
}

describe('followStored over per-key batches', () => {
  it('gives a subscriber from now its coin’s trades that come after another coin’s batch of the same blocks', async () => {
    const bus = new InProcessBus();
    await publishBlocks(bus, 1, 2);
    // A first subscriber starts the follower of where the last batch stands; the second starts from there.
    const first = follow(bus, null);
    const stopFirst = await first.done;
    await publishBlocks(bus, 3, 4);
    // Subscribing between ETH's batch and BTC's of blocks 5-6: BTC's batch is the first it is given.
    await store([trade('ETH', 5, 0), trade('ETH', 6, 0), trade('BTC', 5, 1), trade('BTC', 6, 1)]);
    bus.publish('trades', [trade('ETH', 5, 0), trade('ETH', 6, 0)]);
    const second = follow(bus, null);
    const stopSecond = await second.done;
    bus.publish('trades', [trade('BTC', 5, 1), trade('BTC', 6, 1)]);
    await publishBlocks(bus, 7, 7);
    await new Promise((r) => setTimeout(r, 100));
    stopFirst();
    stopSecond();
    // A block at a time, each at its own position, however the bus batched the blocks.
    const byBlock = (from: number, to: number) =>
      Array.from({ length: to - from + 1 }, (_, k) => ({
        tids: [(from + k) * 10 + 1],
        position: `${from + k}-${T0 + (from + k) * 1000}`,
      }));
    expect(first.got).toEqual(byBlock(3, 7));
    // The second stands at block 6 (where ETH's batch left this process) when BTC's of blocks 5-6 comes: a cursor
    // never moves back, so block 5's trade reads 6.
    expect(second.got).toEqual([{ tids: [51], position: `6-${T0 + 6000}` }, ...byBlock(6, 7)]);
  });

  it('resumes from a position: the stored trades, then the live ones, each once, whatever batch comes first', async () => {
    const bus = new InProcessBus();
    await db.pool.query('DELETE FROM markets.trades');
    await publishBlocks(bus, 1, 4);
    // Blocks 5-6 are published before they commit (a bus that stores events, JetStream): read live, not stored.
    const resumed = follow(bus, `2-${T0 + 2000}`);
    const stop = await resumed.done;
    await publishBlocks(bus, 5, 6, false);
    await store([5, 6].flatMap((n) => [trade('ETH', n, 0), trade('BTC', n, 1)]));
    await publishBlocks(bus, 7, 8);
    await new Promise((r) => setTimeout(r, 100));
    stop();
    // Stored or live, a block at a time at its own position: the cursors an instance reading the store gives.
    expect(resumed.got).toEqual(
      [3, 4, 5, 6, 7, 8].map((n) => ({ tids: [n * 10 + 1], position: `${n}-${T0 + n * 1000}` })),
    );
  });
});
