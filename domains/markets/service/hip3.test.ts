// The HIP-3 snapshots' trade sums, read from the rollup ingest keeps (migration 0024): figures worked by hand across
// an hour's edge and the 24 h window's edge, the same as the sum over every trade they replace, and each stored trade
// counted once however its block reaches ingest again (re-emitted, a second lane, an archive import of its hour).
import fs from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { compressFrameSync } from 'lz4-napi';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetCtxRow } from '../../../db/rows/markets.ts';
import { importArchive } from '../../../ingest/archive/import.ts';
import { Ingest } from '../../../ingest/pipeline.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import {
  byCoin,
  expectRollupOfTrades,
  matchBlock,
  rollupAgainstTrades,
  scannedSums,
  writeFillBlocks,
} from '../../../test/hip3-trades.ts';
import { T0, tempDataDir } from '../../../test/node-files.ts';
import type { BlockLine, FillEvent } from '../../../wire/node-lines.ts';
import { Hip3Rollup, hip3Dexes, hip3Snapshots, hip3TradeTotals } from './hip3.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const GOLD = 'xyz:GOLD';
const INDEX = 'xyz:XYZ100';

let db: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await tempDataDir();
});
afterAll(async () => {
  await db?.drop();
});

const ingest = (dir: string, opts: { lane?: string; batchRows?: number } = {}) =>
  new Ingest({ dataDir: dir, pool: db.pool, streams: ['node_fills_by_block'], log: () => {}, ...opts }).run();

// T0 is 2026-11-22 07:00 UTC. The answers are asked at NOW, 2026-11-23 07:30: the window is [11-22 07:30, NOW], its
// first whole hour 11-22 08:00; the part of the hour before it, 07:30 to 08:00, is read from the trades.
const NOW = T0 + DAY + 30 * MIN;
const BLOCKS = [
  // xyz:GOLD. Volume px × sz, fees taker + maker.
  matchBlock(GOLD, T0 + 10 * MIN, '2000.5', '0.2', '0.20', '-0.02'), // 07:10, before the window: 400.10, 0.18
  matchBlock(GOLD, T0 + 45 * MIN, '2001.0', '0.5', '0.50', '-0.05'), // 07:45, the window's partial hour: 1000.50, 0.45
  matchBlock(GOLD, T0 + HOUR - 1, '2002.0', '0.1', '0.10', '-0.01'), // 07:59:59.999, the same: 200.20, 0.09
  matchBlock(GOLD, T0 + HOUR, '2003.0', '1.0', '1.00', '-0.10'), // 08:00:00.000, its first whole hour: 2003.00, 0.90
  matchBlock('BTC', T0 + HOUR + MIN, '90000.0', '1.0', '9.00', '-0.90'), // not a HIP-3 coin: in no figure
  matchBlock(GOLD, T0 + DAY + 20 * MIN, '1999.5', '0.4', '0.40', '-0.04'), // 11-23 07:20, NOW's hour: 799.80, 0.36
  // xyz:XYZ100.
  matchBlock(INDEX, T0 - HOUR, '100.0', '3', '0.30', '-0.06'), // 06:00, before the window: 300.0, 0.24
  matchBlock(INDEX, T0 + 30 * MIN - 1, '101.0', '1', '0.10', '-0.02'), // 07:29:59.999, 1 ms before it: 101.0, 0.08
  matchBlock(INDEX, T0 + 30 * MIN, '101.25', '2', '0.20', '-0.04'), // 07:30:00.000, its first instant: 202.50, 0.16
  matchBlock(INDEX, T0 + DAY + 29 * MIN, '102.0', '1', '0.10', '-0.02'), // 11-23 07:29: 102.0, 0.08
];

/** `db.pool`, telling `seen` of each statement (its text and parameters) as it is sent, and `done` once answered. */
function watchedPool(hooks: {
  seen?: (sql: string, params: unknown[]) => void;
  done?: (sql: string) => Promise<void>;
}): pg.Pool {
  return {
    query: async (sql: string, params: unknown[]) => {
      hooks.seen?.(sql, params);
      const result = await db.pool.query(sql, params);
      await hooks.done?.(sql);
      return result;
    },
  } as unknown as pg.Pool;
}

const scanned = (now: number) => scannedSums(db.pool, now);
const rolledUp = async (now: number) => byCoin(await hip3TradeTotals(db.pool, now));
const rollupAndTrades = () => rollupAgainstTrades(db.pool);

describe('HIP-3 trade sums from the rollup', () => {
  beforeAll(async () => {
    await writeFillBlocks(dataDir, BLOCKS);
    await ingest(dataDir);
  });

  it('holds each coin and hour as worked by hand', async () => {
    const { hours, totals } = await rollupAndTrades();
    expect(hours).toEqual([
      { coin: GOLD, hour: T0, trades: 3, volume: '1600.80', fees: '0.72' }, // 400.10 + 1000.50 + 200.20
      { coin: GOLD, hour: T0 + HOUR, trades: 1, volume: '2003.00', fees: '0.90' },
      { coin: GOLD, hour: T0 + DAY, trades: 1, volume: '799.80', fees: '0.36' },
      { coin: INDEX, hour: T0 - HOUR, trades: 1, volume: '300.0', fees: '0.24' },
      { coin: INDEX, hour: T0, trades: 2, volume: '303.50', fees: '0.24' }, // 101.0 + 202.50
      { coin: INDEX, hour: T0 + DAY, trades: 1, volume: '102.0', fees: '0.08' },
    ]);
    expect(totals).toEqual([
      { coin: GOLD, trades: 5, volume: '4403.60', fees: '1.98' },
      { coin: INDEX, trades: 4, volume: '705.50', fees: '0.56' },
    ]);
  });

  it('answers the 24 h window and the cumulative figures worked by hand, as the sum over the trades does', async () => {
    const expected = [
      // GOLD: 07:45, 07:59:59.999, 08:00 and 11-23 07:20 (1000.50 + 200.20 + 2003.00 + 799.80; 0.45 + 0.09 + 0.90
      // + 0.36); 07:10 only in the cumulative figures (+ 400.10, + 0.18).
      { coin: GOLD, volume_24h: '4003.50', fees_24h: '1.80', trades_24h: 4, volume_all: '4403.60', fees_all: '1.98' },
      // XYZ100: 07:30:00.000 and 11-23 07:29 (202.50 + 102.0; 0.16 + 0.08); 06:00 and 07:29:59.999 before the window.
      { coin: INDEX, volume_24h: '304.50', fees_24h: '0.24', trades_24h: 2, volume_all: '705.50', fees_all: '0.56' },
    ];
    expect(await rolledUp(NOW)).toEqual(expected);
    expect(await scanned(NOW)).toEqual(expected);
  });

  it('moves the window by whole hours and by the partial one', async () => {
    // At 11-23 08:00 the window starts on the hour, with no partial hour: GOLD's 08:00 trade is its first instant
    // (2003.00 + 799.80; 0.90 + 0.36), XYZ100's 07:30 trade has left it.
    const onTheHour = [
      { coin: GOLD, volume_24h: '2802.80', fees_24h: '1.26', trades_24h: 2, volume_all: '4403.60', fees_all: '1.98' },
      { coin: INDEX, volume_24h: '102.0', fees_24h: '0.08', trades_24h: 1, volume_all: '705.50', fees_all: '0.56' },
    ];
    expect(await rolledUp(T0 + DAY + HOUR)).toEqual(onTheHour);
    expect(await scanned(T0 + DAY + HOUR)).toEqual(onTheHour);
    // At 11-23 08:30 (window from 11-22 08:30): only the trades of 11-23.
    const later = [
      { coin: GOLD, volume_24h: '799.80', fees_24h: '0.36', trades_24h: 1, volume_all: '4403.60', fees_all: '1.98' },
      { coin: INDEX, volume_24h: '102.0', fees_24h: '0.08', trades_24h: 1, volume_all: '705.50', fees_all: '0.56' },
    ];
    expect(await rolledUp(T0 + DAY + 90 * MIN)).toEqual(later);
    expect(await scanned(T0 + DAY + 90 * MIN)).toEqual(later);
    // A day after the last trade nothing is in the window, and the figures read "0" as the sum over trades did.
    const none = await rolledUp(T0 + 3 * DAY);
    expect(none.map((r) => [r.volume_24h, r.fees_24h, r.trades_24h])).toEqual([
      ['0', '0', 0],
      ['0', '0', 0],
    ]);
    expect(none).toEqual(await scanned(T0 + 3 * DAY));
  });

  it('lists the coins with their figures in the snapshots', async () => {
    const rows = await hip3Snapshots(db.pool, new Map(), NOW, { dexId: 'xyz' });
    expect(rows.map((r) => [r.coin, r.volume_24h, r.trades_24h, r.total_volume_cumulative])).toEqual([
      [GOLD, '4003.50', 4, '4403.60'],
      [INDEX, '304.50', 2, '705.50'],
    ]);
  });

  it("lists the dexes of the snapshots, in their order, from the coins' names", async () => {
    // A dex known only by a context (no trade stored yet), and a coin of the native dex, which is not HIP-3.
    const ctx = { time: NOW, mark_px: '1.0' } as AssetCtxRow;
    const ctxs = new Map([
      ['abc:FOO', ctx],
      ['BTC', ctx],
    ]);
    expect(await hip3Dexes(db.pool, ctxs)).toEqual(['abc', 'xyz']);
    const snapshots = await hip3Snapshots(db.pool, ctxs, NOW);
    expect([...new Set(snapshots.map((s) => s.dex_id))]).toEqual(['abc', 'xyz']);
  });

  it('counts a block the node emits again once', async () => {
    const before = await rolledUp(NOW);
    // The node restarts and writes its last two blocks (11-23 07:20 and 07:29) again, then goes on with a new GOLD
    // trade at 07:29:30 (1 × 2000.0; 0.10 - 0.01).
    const again = [BLOCKS[5], BLOCKS[9]] as BlockLine<FillEvent>[];
    await writeFillBlocks(dataDir, [...again, matchBlock(GOLD, T0 + DAY + 29.5 * MIN, '2000.0', '1', '0.10', '-0.01')]);
    await ingest(dataDir);
    const after = await rolledUp(NOW);
    expect(after[1]).toEqual(before[1]);
    expect(after[0]).toEqual({
      ...before[0],
      volume_24h: '6003.50',
      fees_24h: '1.89',
      trades_24h: 5,
      volume_all: '6403.60',
      fees_all: '2.07',
    });
    await expectRollupOfTrades(db.pool);
  });

  it('counts an archive hour the node already loaded once: the import leaves it out', async () => {
    const before = await rollupAndTrades();
    const archive = await tempDataDir();
    // The node's hour 11-22 07 as the public bucket holds it: the same blocks, one .lz4 file.
    const hour = path.join(dataDir, 'node_fills_by_block', 'hourly', '20261122', '7');
    const target = path.join(archive, 'hl-mainnet-node-data', 'node_fills_by_block', 'hourly', '20261122', '7.lz4');
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, compressFrameSync(await fs.readFile(hour)));
    const quiet = Object.assign(new Writable({ write: (_c, _e, done) => done() }), { isTTY: false });
    const summary = await importArchive({
      dir: archive,
      pool: db.pool,
      log: () => {},
      out: quiet as unknown as NodeJS.WriteStream,
    });
    expect(summary.leftOut).toBe(1);
    expect(await rollupAndTrades()).toEqual(before);
  });

  it('counts the trades of two lanes loading the same coins and hours at once, each once', async () => {
    // Two lanes (as the present and a backfill beside it, with checkpoints of their own), each 120 blocks of both
    // coins in 11-22 09:00-10:59, in batches of ~20 rows so that their upserts of the same hours interleave.
    const present = await tempDataDir();
    const backfill = await tempDataDir();
    const lane = (start: number) =>
      Array.from({ length: 120 }, (_, i) =>
        matchBlock(i % 2 ? GOLD : INDEX, start + i * MIN, `${2000 + i}.5`, `0.${(i % 9) + 1}`, '0.01', '-0.001'),
      );
    await writeFillBlocks(present, lane(T0 + 2 * HOUR));
    await writeFillBlocks(backfill, lane(T0 + 2 * HOUR + 30_000));
    await Promise.all([
      ingest(present, { lane: 'present', batchRows: 20 }),
      ingest(backfill, { lane: 'backfill', batchRows: 20 }),
    ]);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM markets.trades WHERE time >= $1 AND time < $2`,
      [T0 + 2 * HOUR, T0 + 4 * HOUR],
    );
    expect(rows[0].n).toBe(240);
    await expectRollupOfTrades(db.pool);
    expect(await rolledUp(NOW)).toEqual(await scanned(NOW));
  });

  it('reads the hour the window starts in once for every start inside it, and again once a trade reaches it', async () => {
    let hourReads = 0;
    const counted = watchedPool({
      seen: (sql) => {
        if (sql.includes('OVER w')) hourReads++;
      },
    });
    const rollup = new Hip3Rollup();
    // Every minute of 11-23 07:00-08:00 and the milliseconds around the trades of 11-22 07:00-08:00: one part hour.
    const nows = [
      ...Array.from({ length: 60 }, (_, m) => T0 + DAY + m * MIN + 1),
      ...[30 * MIN - 1, 30 * MIN, 30 * MIN + 1, 45 * MIN - 1, 45 * MIN, 45 * MIN + 1, HOUR - 1, HOUR].map(
        (d) => T0 + DAY + d,
      ),
    ];
    for (const now of nows)
      expect(await byCoin(await hip3TradeTotals(counted, now, rollup))).toEqual(await scanned(now));
    expect(hourReads).toBe(1);
    const before = byCoin(await hip3TradeTotals(counted, NOW, rollup));
    expect(hourReads).toBe(1);
    // A backfill lane loads a GOLD trade at 11-22 07:50 (0.3 × 2000.0), in the hour the window starts in at NOW.
    const late = await tempDataDir();
    await writeFillBlocks(late, [matchBlock(GOLD, T0 + 50 * MIN, '2000.0', '0.3', '0.10', '-0.01')]);
    await ingest(late, { lane: 'late' });
    const after = byCoin(await hip3TradeTotals(counted, NOW, rollup));
    expect(hourReads).toBe(2);
    expect(after).toEqual(await scanned(NOW));
    expect(after[0]?.trades_24h).toBe((before[0]?.trades_24h ?? 0) + 1);
  });

  it('reads the next hour the window will start in ahead, as a service does', async () => {
    const reads: unknown[] = [];
    const counted = watchedPool({
      seen: (sql, params) => {
        if (sql.includes('OVER w')) reads.push(params[1]);
      },
    });
    const rollup = new Hip3Rollup({ readAhead: true });
    expect(byCoin(await hip3TradeTotals(counted, NOW, rollup))).toEqual(await scanned(NOW));
    // 11-22 07:00, the hour the window starts in at NOW, and 08:00, the next, read beside the answer.
    expect(reads).toEqual([T0 + HOUR, T0]);
    const later = NOW + HOUR;
    expect(byCoin(await hip3TradeTotals(counted, later, rollup))).toEqual(await scanned(later));
    // At 11-23 08:30 the window starts in 11-22 08:00, already read; 09:00 is read ahead.
    expect(reads).toEqual([T0 + HOUR, T0, T0 + 2 * HOUR]);
  });

  it('answers from one statement when a trade reaches the part hour between its two reads', async () => {
    const statements: string[] = [];
    let arrived = false;
    // Right after the rollup's hours are read, a backfill lane commits a GOLD trade at 11-22 07:40 (0.2 × 2000.0).
    const racing = watchedPool({
      seen: (sql) => {
        statements.push(sql);
      },
      done: async (sql) => {
        if (!sql.includes('LEFT JOIN markets.hip3_trade_hours e') || arrived) return;
        arrived = true;
        const late = await tempDataDir();
        await writeFillBlocks(late, [matchBlock(GOLD, T0 + 40 * MIN, '2000.0', '0.2', '0.10', '-0.01')]);
        await ingest(late, { lane: 'racing' });
      },
    });
    const answer = byCoin(await hip3TradeTotals(racing, NOW));
    expect(statements.filter((q) => q.includes('OVER w'))).toHaveLength(2);
    expect(statements.at(-1)).toContain('FROM markets.trades WHERE coin = c.coin AND time >= $1 AND time < $2');
    expect(answer).toEqual(await scanned(NOW));
  });
});
