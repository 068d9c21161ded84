// Exporting a mainnet-shaped day of fills as Parquet (issue 42: ~6.5 M fills in <= 2 minutes on 2 cores), beside the
// baseline of the same run: Postgres alone writing the same rows, in the same order, as CSV (`COPY (SELECT ...) TO
// STDOUT`, drained), which is what the export reads. The day is kept between runs (database bench_export): loading
// 6.5 M rows takes minutes here. BENCH_EXPORT_FILLS sets its size (default 6 500 000); a smaller day's time is also
// given scaled to 6.5 M.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { makePartitions } from '../db/partitions.ts';
import { DATASETS, daySelect } from '../export/datasets.ts';
import { exportDay } from '../export/index.ts';
import type { BenchServer } from './db.ts';
import { type BenchSection, int, met } from './section.ts';
import { mainnetFillsSql } from './storage.ts';

const FILLS = Number(process.env.BENCH_EXPORT_FILLS ?? 6_500_000);
const MAINNET_FILLS_A_DAY = 6_500_000;
const TARGET_S = 120;
const DAY = '2026-06-01';
const START = Date.UTC(2026, 5, 1);
const BATCH = 100_000;

const load = () => os.loadavg()[0]?.toFixed(1) ?? '?';

/** The day holds FILLS mainnet-shaped fills, spread over it in time order (loaded once, kept). */
async function ensureDay(pool: pg.Pool): Promise<void> {
  const have = await pool.query<{ n: string }>(
    'SELECT count(*)::text AS n FROM accounts.fills WHERE time >= $1 AND time < $2',
    [START, START + 86_400_000],
  );
  if (Number(have.rows[0]?.n) === FILLS) return;
  await pool.query('TRUNCATE accounts.fills');
  await makePartitions(pool, new Map([['accounts.fills', { min: START, max: START + 86_400_000 - 1 }]]));
  const step = Math.floor(86_400_000 / FILLS);
  const insert = mainnetFillsSql({ time: `${START} + (g - 1) * ${step}::bigint` });
  const started = performance.now();
  for (let from = 1; from <= FILLS; from += BATCH) await pool.query(insert, [from, Math.min(FILLS, from + BATCH - 1)]);
  await pool.query('VACUUM ANALYZE accounts.fills');
  console.log(`   loaded ${int(FILLS)} fills in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

/** The baseline: the day's rows as the export asks Postgres for them, drained. */
async function copyDay(url: string): Promise<{ seconds: number; bytes: number }> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('SET statement_timeout = 0');
    let bytes = 0;
    const started = performance.now();
    await pipeline(
      client.query(copyTo(`COPY (${daySelect(DATASETS.fills, START)}) TO STDOUT (FORMAT csv)`)),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          done();
        },
      }),
    );
    return { seconds: (performance.now() - started) / 1000, bytes };
  } finally {
    await client.end();
  }
}

export async function benchExport(server: BenchServer): Promise<BenchSection> {
  const { url, pool } = await server.keptDatabase('bench_export');
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-export-'));
  try {
    await ensureDay(pool);
    const loadBefore = load();
    const copy = await copyDay(url);
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const entry = await exportDay({ databaseUrl: url, dataset: 'fills', day: DAY, dir });
    const seconds = (performance.now() - started) / 1000;
    // DuckDB runs on this process's threads: its CPU, beside Postgres' (the baseline's time is about its CPU).
    const cpu = process.cpuUsage(cpuBefore);
    const duckCpu = (cpu.user + cpu.system) / 1e6;
    // The file's first and last rows are the store's (order kept across DuckDB's threads and row groups).
    const ends = await pool.query<{ first: string; last: string }>(
      `SELECT (SELECT concat_ws(':', time, block_number, event_index, tid, address) FROM accounts.fills
                WHERE time >= $1 AND time < $2 ORDER BY time, block_number, event_index, tid, address LIMIT 1) AS first,
              (SELECT concat_ws(':', time, block_number, event_index, tid, address) FROM accounts.fills
                WHERE time >= $1 AND time < $2 ORDER BY time DESC, block_number DESC, event_index DESC, tid DESC,
                  address DESC LIMIT 1) AS last`,
      [START, START + 86_400_000],
    );
    const sameEnds =
      entry.positions.first === ends.rows[0]?.first &&
      entry.positions.last === ends.rows[0]?.last &&
      entry.rows === FILLS;
    const perMainnetDay = (seconds * MAINNET_FILLS_A_DAY) / FILLS;
    const scaled = FILLS === MAINNET_FILLS_A_DAY ? '' : ` (${perMainnetDay.toFixed(0)} s scaled to 6.5 M)`;
    return {
      rows: [
        {
          name: `export a day of ${int(FILLS)} fills`,
          value: `${seconds.toFixed(1)} s`,
          baseline: `${copy.seconds.toFixed(1)} s`,
          ratio: `${(seconds / copy.seconds).toFixed(2)}x`,
          target: `a mainnet day <= ${TARGET_S} s${scaled}: ${met(perMainnetDay <= TARGET_S)}`,
        },
        {
          name: 'export rate',
          value: `${int(entry.rows / seconds)} rows/s`,
          baseline: `${int(FILLS / copy.seconds)} rows/s`,
          ratio: '',
          target: '',
        },
        {
          name: 'Parquet bytes per fill',
          value: `${(entry.bytes / entry.rows).toFixed(1)} B`,
          baseline: `${(copy.bytes / FILLS).toFixed(1)} B CSV`,
          ratio: `${(entry.bytes / copy.bytes).toFixed(2)}x`,
          target: '',
        },
      ],
      notes: [
        `rows ${int(entry.rows)}, first and last positions ${sameEnds ? 'equal' : 'DIFFER from'} the store's`,
        'baseline: COPY (the same SELECT, in the file order) TO STDOUT as CSV, drained: what the export reads',
        `CPU of this process (DuckDB's threads, the pipe) during the export: ${duckCpu.toFixed(1)} s`,
        `the file: ${int(entry.bytes)} bytes, zstd, DECIMAL(38,18) decimals; load average ${loadBefore} before, ${load()} after`,
      ],
    };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
    await pool.end();
  }
}
