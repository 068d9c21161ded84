// dataCoverage over a mainnet-profile day of funding payments (the simulator's mainnet day wrote 12.5 M; migration
// 0060): with the bounds kept as rows are written, beside the baseline of the same run, the same call with those bounds
// forgotten, which reads each table's min and max as dataCoverage did before (2.8 s for funding payments alone on
// that day, past the statement limit with the four other tables). Then the upkeep's step that reads them again.
// The day is kept between runs (database bench_coverage); BENCH_COVERAGE_FUNDING sets its size.
import { performance } from 'node:perf_hooks';
import { completeTimeBounds, makePartitions } from '../db/partitions.ts';
import { DATASETS } from '../domains.ts';
import { dataCoverage } from '../platform/coverage.ts';
import type { BenchServer } from './db.ts';
import { type BenchSection, int, met, ms } from './section.ts';
import { percentile, timeSequential } from './stats.ts';

const ROWS = Number(process.env.BENCH_COVERAGE_FUNDING ?? 12_500_000);
const START = Date.UTC(2026, 5, 1);
const HOUR_MS = 3_600_000;
const BATCH = 500_000;
const TARGET_MS = 50;

export async function benchCoverage(server: BenchServer): Promise<BenchSection> {
  const { pool } = await server.keptDatabase('bench_coverage');
  try {
    const have = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM accounts.funding_payments');
    if (Number(have.rows[0]?.n) !== ROWS) {
      await pool.query('TRUNCATE accounts.funding_payments');
      await makePartitions(pool, new Map([['accounts.funding_payments', { min: START, max: START + 24 * HOUR_MS }]]));
      const perHour = Math.ceil(ROWS / 24);
      const started = performance.now();
      // Each hour's payments at its top, to positions of 400 k addresses over 500 coins (the simulator's shape).
      for (let from = 0; from < ROWS; from += BATCH) {
        await pool.query(
          `INSERT INTO accounts.funding_payments (block_number, time, address, coin, usdc, szi, funding_rate)
           SELECT g, $3::bigint + (g / $4) * ${HOUR_MS}, '0x' || lpad(to_hex(g % 400000), 40, '0'), 'C' || (g % 500),
             -0.0123, 1.5, 0.0000125
           FROM generate_series($1::bigint, $2::bigint) g`,
          [from, Math.min(ROWS, from + BATCH) - 1, START, perHour],
        );
      }
      await pool.query('VACUUM ANALYZE accounts.funding_payments');
      console.log(`   loaded ${int(ROWS)} funding payments in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    await completeTimeBounds(pool);
    const now = START + 25 * HOUR_MS;
    const call = () => dataCoverage(pool, now, DATASETS);
    const kept = (await timeSequential(call, 5, 50)).sort((a, b) => a - b);
    const answer = await call();
    // The baseline: the bounds forgotten (as a DELETE leaves them), read from the tables.
    await pool.query(`SELECT platform.forget_time_bounds('accounts.funding_payments')`);
    const scanned = (await timeSequential(call, 1, 5)).sort((a, b) => a - b);
    const same = JSON.stringify(await call()) === JSON.stringify(answer);
    const started = performance.now();
    await completeTimeBounds(pool);
    const upkeep = performance.now() - started;
    const p99 = percentile(kept, 0.99);
    return {
      rows: [
        {
          name: `dataCoverage, ${int(ROWS)} funding payments: p50`,
          value: ms(percentile(kept, 0.5)),
          baseline: ms(percentile(scanned, 0.5)),
          ratio: `${(percentile(kept, 0.5) / percentile(scanned, 0.5)).toFixed(3)}x`,
          target: '',
        },
        {
          name: 'dataCoverage: p99',
          value: ms(p99),
          baseline: ms(percentile(scanned, 0.99)),
          ratio: '',
          target: `<= ${TARGET_MS} ms: ${met(p99 <= TARGET_MS)}`,
        },
        { name: 'upkeep: the bounds read again', value: ms(upkeep), baseline: '', ratio: '', target: '' },
      ],
      notes: [
        'baseline: the same call with the funding bounds forgotten (a DELETE, a dropped partition), so it reads the',
        `table's min and max, as dataCoverage did before migration 0060; the two answers ${same ? 'are equal' : 'DIFFER'}`,
        `50 calls one after another (5 not timed); the baseline 5`,
      ],
    };
  } finally {
    await pool.end();
  }
}
