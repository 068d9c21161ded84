// A gap in the events (a backfill the JetStream bus was not given): the markets service writes the closed candles of
// the trades it never saw, from storage, as it does at start.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../../events/bus.ts';
import { Upstream } from '../../../platform/upstream.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { MarketsService } from './index.ts';

let db: TestDatabase;
let markets: MarketsService | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await markets?.stop();
  await db?.drop();
});

/** The service over the test's database, with no node: the books start empty (the snapshot's failure is logged). */
const serviceOn = (bus: InProcessBus) =>
  new MarketsService({ pool: db.pool, upstream: new Upstream('http://127.0.0.1:9/info', { timeoutMs: 200 }), bus });

describe('a gap in the events', () => {
  it('has the closed candles of the trades loaded during it written from storage', async () => {
    const bus = new InProcessBus();
    markets = serviceOn(bus);
    await markets.start();
    // Loaded by ingest without being published (two hours old), after the service had started.
    const t = Math.floor((Date.now() - 2 * 3_600_000) / 60_000) * 60_000;
    await db.pool.query(
      `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES (1, 0, $1, 'BTC', 'B', '90000.0', '0.5', '0xabc', 7, '0xb', '0xs', '0'),
              (1, 1, $2, 'BTC', 'A', '89000.0', '0.25', '0xabc', 8, '0xb', '0xs', '0')`,
      [t + 1000, t + 2000],
    );
    const candle = () =>
      db.pool.query(
        `SELECT o::text, c::text, v::text, n FROM markets.candles WHERE coin = 'BTC' AND interval = '1m' AND t = $1`,
        [t],
      );
    expect((await candle()).rows).toEqual([]);
    bus.publish('gaps', [
      { stream: 'node_fills_by_block', topics: ['fills', 'trades'], from: t + 1000, until: t + 2000 },
    ]);
    for (let i = 0; i < 100 && !(await candle()).rows.length; i++) await sleep(50);
    expect((await candle()).rows).toEqual([{ o: '90000.0', c: '89000.0', v: '0.75', n: 2 }]);
    // Written, its record goes with the same transaction.
    for (let i = 0; i < 100 && (await pending()).length; i++) await sleep(50);
    expect(await pending()).toEqual([]);
  });

  it('finishes at the next start a refill a stop cut short', async () => {
    await markets?.stop();
    const bus = new InProcessBus();
    markets = serviceOn(bus);
    // A backfill's trades of three hours ago, behind the newest candle (the start's own backfill begins after it),
    // and the record of their gap, as a refill stopped before its commit leaves them.
    const t = Math.floor((Date.now() - 3 * 3_600_000) / 60_000) * 60_000;
    await db.pool.query(
      `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES (2, 0, $1, 'ETH', 'B', '3000.5', '2', '0xdef', 9, '0xb', '0xs', '0'),
              (2, 1, $2, 'ETH', 'A', '3001.5', '1', '0xdef', 10, '0xb', '0xs', '0')`,
      [t + 1000, t + 61_000],
    );
    await db.pool.query('INSERT INTO markets.candle_refills (from_ms, until_ms) VALUES ($1, $2)', [
      t + 1000,
      t + 61_000,
    ]);
    await markets.start();
    const { rows } = await db.pool.query(
      `SELECT t, o::text, c::text, v::text, n FROM markets.candles WHERE coin = 'ETH' AND interval = '1m' ORDER BY t`,
    );
    expect(rows).toEqual([
      { t, o: '3000.5', c: '3000.5', v: '2', n: 1 },
      { t: t + 60_000, o: '3001.5', c: '3001.5', v: '1', n: 1 },
    ]);
    expect(await pending()).toEqual([]);
  });
});

const pending = async () => (await db.pool.query('SELECT from_ms, until_ms FROM markets.candle_refills')).rows;
