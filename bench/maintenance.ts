// The ingest role's partition upkeep (db/partitions.ts), timed on mainnet-shaped rows: freezing a closed week of
// fills (its indexes rebuilt concurrently, its rows frozen), thinning a closed day of order statuses to the orders
// retention keeps, dropping a day of book samples. Each figure is also given per mainnet day (6.5 M fills, E; the
// order statuses' rate is a node's ~10 000 a second, ~860 M a day, E: ../shared/reference/mainnet-volumes.md).
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { DAY_MS, keepRetention, makePartitions, PARTITIONED, periodOf } from '../db/partitions.ts';
import { DEFAULT_RETENTION } from '../platform/config.ts';
import type { BenchServer } from './db.ts';
import { type BenchSection, int, met } from './section.ts';
import { mainnetFillsSql, randomOf } from './storage.ts';

const FILLS = Number(process.env.BENCH_MAINT_FILLS ?? 1_000_000);
const STATUSES = Number(process.env.BENCH_MAINT_STATUSES ?? 1_000_000);
const BATCH = 20_000;
const MAINNET_FILLS_A_DAY = 6_500_000;
const MAINNET_STATUSES_A_DAY = 860_000_000;

const table = (name: string) => PARTITIONED.find((p) => p.table === name) as (typeof PARTITIONED)[number];

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await work();
  return (performance.now() - t) / 1000;
}

/** A week after the history the database held before partitioning (the end of tomorrow, by its clock). */
async function futureWeek(pool: pg.Pool): Promise<{ start: number; end: number }> {
  const { rows } = await pool.query<{ t: string }>('SELECT (extract(epoch FROM now()) * 1000)::bigint AS t');
  return periodOf('accounts.fills', Number(rows[0]?.t) + 14 * DAY_MS);
}

export async function benchMaintenance(server: BenchServer): Promise<BenchSection> {
  const { pool } = await server.freshDatabase('bench_maintenance');
  try {
    const week = await futureWeek(pool);
    const retention = { ...DEFAULT_RETENTION };
    // Fills: one closed week's worth of N, 13 ms apart from its Monday, loaded in ingest's batches.
    await makePartitions(pool, new Map([['accounts.fills', { min: week.start, max: week.end - 1 }]]));
    const fills = mainnetFillsSql({ time: `${week.start} + g * 13` });
    for (let from = 1; from <= FILLS; from += BATCH) await pool.query(fills, [from, Math.min(FILLS, from + BATCH - 1)]);
    const freeze = await timed(() =>
      keepRetention(pool, table('accounts.fills'), { now: week.end + DAY_MS + 1, retention }),
    );

    // Order statuses: one day, two rows an order (open, then filled for one in ten, canceled untouched otherwise).
    const day = week.start;
    await makePartitions(pool, new Map([['accounts.order_statuses', { min: day, max: day + DAY_MS - 1 }]]));
    const filled = `${randomOf(0).replaceAll('g::text', '(g / 2)::text')} < 0.1`;
    for (let from = 1; from <= STATUSES; from += BATCH) {
      await pool.query(
        `INSERT INTO accounts.order_statuses (block_number, time, address, status, oid, coin, side, limit_px, sz, orig_sz,
           order_time, trigger_condition, is_trigger, trigger_px, is_position_tpsl, reduce_only, order_type, tif)
         SELECT g, $3::bigint + g * 80, '0x' || lpad(to_hex(1 + (g / 2) % 50000), 40, '0'),
           CASE WHEN g % 2 = 0 THEN 'open' WHEN ${filled} THEN 'filled' ELSE 'canceled' END,
           g / 2, 'COIN' || (g % 540), 'B', 100.0, CASE WHEN g % 2 = 1 AND ${filled} THEN 0.0 ELSE 1.0 END, 1.0,
           $3::bigint + g * 80, 'N/A', false, 0.0, false, false, 'Limit', 'Gtc'
         FROM generate_series($1::bigint, $2::bigint) g`,
        [from, Math.min(STATUSES, from + BATCH - 1), day],
      );
    }
    let thinned = { rowsBefore: 0, rowsKept: 0 };
    const thin = await timed(async () => {
      const done = await keepRetention(pool, table('accounts.order_statuses'), {
        now: day + 2 * DAY_MS + 1,
        retention,
      });
      thinned = done.thinned.find((t) => t.rowsBefore > 0) ?? thinned;
    });

    // Book samples: one day of a 10-s sampler over 550 coins (4.75 M rows a mainnet day), then dropped.
    await makePartitions(pool, new Map([['markets.history_book', { min: day, max: day + DAY_MS - 1 }]]));
    await pool.query(
      `INSERT INTO markets.history_book (coin, time, levels)
       SELECT 'COIN' || c, $1::bigint + s * 10000, '[[{"px":"1.0","sz":"1.0","n":1}],[]]'
       FROM generate_series(1, 550) c, generate_series(0, 8639) s`,
      [day],
    );
    const drop = await timed(() =>
      keepRetention(pool, table('markets.history_book'), {
        now: day + (retention.samplesKeepDays + 2) * DAY_MS,
        retention,
      }),
    );

    const perMainnetDay = (seconds: number, rows: number, aDay: number) => (seconds * aDay) / rows;
    const freezeDay = perMainnetDay(freeze, FILLS, MAINNET_FILLS_A_DAY);
    const thinDay = perMainnetDay(thin, STATUSES, MAINNET_STATUSES_A_DAY);
    return {
      rows: [
        {
          name: `freeze a closed week of ${int(FILLS)} fills`,
          value: `${freeze.toFixed(1)} s`,
          baseline: `${(freezeDay / 60).toFixed(1)} min/day`,
          ratio: '',
          target: `a mainnet day's fills frozen <= 5 min: ${met(freezeDay <= 300)}`,
        },
        {
          name: `thin a closed day of ${int(STATUSES)} statuses`,
          value: `${thin.toFixed(1)} s`,
          baseline: `${int(thinned.rowsKept)} kept`,
          ratio: '',
          target: `a node's day (~860 M) at this rate: ${(thinDay / 3600).toFixed(1)} h`,
        },
        {
          name: 'drop a day of book samples (4.75 M rows)',
          value: `${drop.toFixed(2)} s`,
          baseline: '',
          ratio: '',
          target: `<= 1 s: ${met(drop <= 1)}`,
        },
      ],
      notes: [
        "freezing rebuilds the week's five indexes concurrently (ingest writes on meanwhile) and VACUUM FREEZEs it",
        'thinning copies the kept orders into a table made with the indexes and swaps it in one transaction',
      ],
    };
  } finally {
    await pool.end();
  }
}
