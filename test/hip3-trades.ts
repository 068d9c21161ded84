// HIP-3 trades for the tests of their rollup (ingest's upsert, the markets writer's fill, the snapshots' reads): node
// blocks of one match each, and what the rollup holds against the same sums over the stored trades.
import type pg from 'pg';
import { expect } from 'vitest';
import { HIP3_SCAN_SQL, type Hip3TradeTotals } from '../domains/markets/service/hip3.ts';
import type { BlockLine, FillEvent } from '../wire/node-lines.ts';
import { addr, appendBlocks, block, hash, nodeFill, T0 } from './node-files.ts';

let tid = 1000;

/**
 * One block holding one match: the taker's buy and the maker's sell, each with its fee (the trade's: their sum). Its
 * number is its time's ms since 30 days before T0, so blocks number in time order, as a node's do.
 */
export function matchBlock(
  coin: string,
  time: number,
  px: string,
  sz: string,
  takerFee: string,
  makerFee: string,
): BlockLine<FillEvent> {
  tid++;
  const common = { coin, px, sz, time, tid, hash: hash(tid) };
  return block(time - (T0 - 30 * 86_400_000), time, [
    [addr(0xa1), nodeFill({ ...common, side: 'B', crossed: true, fee: takerFee, oid: tid * 2 })],
    [
      addr(0xb2),
      nodeFill({ ...common, side: 'A', crossed: false, fee: makerFee, oid: tid * 2 + 1, dir: 'Open Short' }),
    ],
  ] satisfies FillEvent[]);
}

/** The blocks, in number order, appended to their hourly files under `dir`, as a node writes them. */
export function writeFillBlocks(dir: string, blocks: BlockLine<FillEvent>[]): Promise<void> {
  return appendBlocks(
    dir,
    'node_fills_by_block',
    [...blocks].sort((x, y) => x.block_number - y.block_number),
  );
}

/** The rollup's rows, and the same sums grouped from the trades: equal when each stored trade counts once. */
export async function rollupAgainstTrades(pool: pg.Pool) {
  const q = async (sql: string) => (await pool.query(sql)).rows;
  return {
    hours: await q(
      'SELECT coin, hour, trades::int, volume::text, fees::text FROM markets.hip3_trade_hours ORDER BY 1, 2',
    ),
    hoursOfTrades: await q(
      `SELECT coin, time / 3600000 * 3600000 AS hour, count(*)::int AS trades, sum(px * sz)::text AS volume,
         sum(fees)::text AS fees FROM markets.trades WHERE coin LIKE '%:%' GROUP BY 1, 2 ORDER BY 1, 2`,
    ),
    totals: await q('SELECT coin, trades::int, volume::text, fees::text FROM markets.hip3_trade_totals ORDER BY 1'),
    totalsOfTrades: await q(
      `SELECT coin, count(*)::int AS trades, sum(px * sz)::text AS volume, sum(fees)::text AS fees
       FROM markets.trades WHERE coin LIKE '%:%' GROUP BY 1 ORDER BY 1`,
    ),
  };
}

/** Expects the rollup to hold each stored HIP-3 trade once, and something. */
export async function expectRollupOfTrades(pool: pg.Pool): Promise<void> {
  const r = await rollupAgainstTrades(pool);
  expect(r.hours.length).toBeGreaterThan(0);
  expect(r.hours).toEqual(r.hoursOfTrades);
  expect(r.totals).toEqual(r.totalsOfTrades);
}

export const byCoin = <R extends { coin: string }>(rows: R[]): R[] => rows.sort((a, b) => (a.coin < b.coin ? -1 : 1));

/** The sums over every HIP-3 trade stored at `now`, as /hip3/snapshots answered before the rollup, by coin. */
export async function scannedSums(pool: pg.Pool, now: number): Promise<Hip3TradeTotals[]> {
  return byCoin((await pool.query<Hip3TradeTotals>(HIP3_SCAN_SQL, [now - 86_400_000])).rows);
}
