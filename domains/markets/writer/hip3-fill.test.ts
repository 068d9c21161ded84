// The fill of the HIP-3 rollup from trades stored before it (migration 0024): on the simulated history of the compat
// tests, /hip3/snapshots and /hip3/top-movers answer the same from the rollup ingest kept, from the trades while the
// fill is pending, and from the filled rollup; and ingest adding trades while the fill runs counts each of them once.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ingest } from '../../../ingest/pipeline.ts';
import type { WriterDeps } from '../../../kit/domain.ts';
import { type Answer, startCompatApp, type TestCompatApp } from '../../../test/compat-app.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { byCoin, expectRollupOfTrades, matchBlock, scannedSums, writeFillBlocks } from '../../../test/hip3-trades.ts';
import { addr, hash, T0, tempDataDir } from '../../../test/node-files.ts';
import { Hip3Rollup, hip3TradeTotals } from '../service/hip3.ts';
import { fillStep } from './hip3-fill.ts';
import { startWriter } from './index.ts';

const HOUR = 3_600_000;

/** The state of a database migrated with these trades already stored: an empty rollup, its fill to do. */
async function asIfMigratedNow(pool: pg.Pool): Promise<void> {
  await pool.query('TRUNCATE markets.hip3_trade_hours, markets.hip3_trade_totals');
  await pool.query('INSERT INTO markets.hip3_trade_fill DEFAULT VALUES');
}

const ready = (pool: pg.Pool) => new Hip3Rollup().ready(pool);

describe('on the simulated history of the compat tests', () => {
  let app: TestCompatApp;
  beforeAll(async () => {
    app = await startCompatApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers the same from the rollup ingest kept, from the trades while it fills, and once filled', async () => {
    const pool = app.db.pool;
    const answers = async () => {
      const pages = [await app.get('/hip3/snapshots'), await app.get('/hip3/top-movers?limit=100')];
      return pages.map((a: Answer) => a.body.data);
    };
    const kept = await answers();
    expect(kept[0].length).toBeGreaterThan(0);
    const now = Date.now();
    const fromRollup = byCoin(await hip3TradeTotals(pool, now));
    expect(fromRollup).toEqual(await scannedSums(pool, now));
    expect(fromRollup.some((r) => r.trades_24h > 0)).toBe(true);
    await expectRollupOfTrades(pool);

    await asIfMigratedNow(pool);
    expect(await ready(pool)).toBe(false);
    // The sums the snapshots read while the fill is pending are the trades' own.
    expect(byCoin(await hip3TradeTotals(pool, now))).toEqual(fromRollup);
    // Steps of an hour: the history's hours are filled one transaction each.
    let steps = 0;
    while (await fillStep(pool, HOUR)) steps++;
    expect(steps).toBeGreaterThan(1);
    expect(await ready(pool)).toBe(true);
    await expectRollupOfTrades(pool);
    expect(byCoin(await hip3TradeTotals(pool, now))).toEqual(fromRollup);
    expect(await answers()).toEqual(kept);
  });
});

describe('the fill beside ingest', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Trades as they were stored before the rollup: written straight to the table, which ingest no longer does. */
  async function storedBefore(trades: [coin: string, time: number, px: string, sz: string, fees: string][]) {
    for (const [i, [coin, time, px, sz, fees]] of trades.entries()) {
      await db.pool.query(
        `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
         VALUES ($1, 0, $2, $3, 'B', $4, $5, $6, $1, $7, $8, $9)`,
        [i + 1, time, coin, px, sz, hash(i + 1), addr(1), addr(2), fees],
      );
    }
  }

  /** Node files of one block per trade (0.5 at `px`; fees 0.25 and -0.025), loaded by a lane of their own. */
  async function ingestTrades(lane: string, trades: [coin: string, time: number, px: string][]) {
    const dir = await tempDataDir();
    await writeFillBlocks(
      dir,
      trades.map(([coin, time, px]) => matchBlock(coin, time, px, '0.5', '0.25', '-0.025')),
    );
    await new Ingest({ dataDir: dir, pool: db.pool, lane, streams: ['node_fills_by_block'], log: () => {} }).run();
  }

  it('counts what ingest adds before, inside and after the hours it has filled, each once', async () => {
    // Three HIP-3 coins among others (the native perps and spot pairs sort between and around them), over 30 hours.
    const coins = ['@107', 'BTC', 'abc:CORN', 'xyz:GOLD', 'xyz:XYZ100', 'ZZZ'];
    await storedBefore(
      Array.from({ length: 180 }, (_, i) => [
        coins[i % coins.length] as string,
        T0 - 30 * HOUR + i * 10 * 60_000,
        `${100 + (i % 17)}.${i % 10}`,
        `0.0${(i % 9) + 1}`,
        `0.00${i % 7}`,
      ]),
    );
    await asIfMigratedNow(db.pool);
    // abc:CORN is filled, and xyz:GOLD's first 6 hours.
    const first = await fillStep(db.pool);
    expect(first).toMatchObject({ coin: 'abc:CORN' });
    while ((await fillStep(db.pool))?.coin === 'abc:CORN');
    const { rows } = await db.pool.query('SELECT coin, hour FROM markets.hip3_trade_fill');
    expect(rows).toEqual([{ coin: 'xyz:GOLD', hour: expect.any(Number) }]);
    // Ingest stores trades of a filled coin, of the coin being filled (before and after where the fill is) and of a
    // coin not reached yet, and of a coin that is new.
    await ingestTrades(
      'during',
      [
        ['abc:CORN', T0 - 20 * HOUR + 1],
        ['xyz:GOLD', T0 - 29 * HOUR + 2],
        ['xyz:GOLD', T0 - 2 * HOUR + 3],
        ['xyz:XYZ100', T0 - 10 * HOUR + 4],
        ['new:COIN', T0 + 5],
      ].map(([coin, time]) => [coin as string, time as number, '1000.0']),
    );
    expect(await ready(db.pool)).toBe(false);
    // The writer finishes the fill while another lane loads more of the same coins and hours.
    const log: string[] = [];
    const deps: WriterDeps = {
      pool: db.pool,
      log: (line) => log.push(line),
      backfill: { complete: () => true, loadedUntil: () => null },
      publish: () => {},
    };
    const writer = startWriter(deps);
    await Promise.all([
      writer.run(),
      ingestTrades(
        'beside',
        Array.from({ length: 40 }, (_, i) => [
          i % 2 ? 'xyz:GOLD' : 'xyz:XYZ100',
          T0 - 28 * HOUR + (i * HOUR) / 2 + 7,
          '999.5',
        ]),
      ),
    ]);
    await writer.stop();
    expect(await ready(db.pool)).toBe(true);
    expect(log.at(-1)).toMatch(/^markets: HIP-3 rollup filled: [\d,]+ trades of \d coins in [\d.]+ s$/);
    await expectRollupOfTrades(db.pool);
    expect(byCoin(await hip3TradeTotals(db.pool, T0))).toEqual(await scannedSums(db.pool, T0));
  });
});
