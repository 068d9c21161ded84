// Bytes per stored fill, heap and indexes, on the schema before the dense indexes (the migrations up to 0024) and on
// today's, measured in the same run over the same rows. The rows have mainnet's shape (../shared/reference/
// mainnet-volumes.md §1-2: ~75 fills/s over ~13 blocks/s, half of them from 20 market makers and the rest from 50 000
// traders, 540 coins of which a quarter of the fills HIP-3, a cloid on 51 %, a builder on 7 %, a TWAP on 9 %) and
// arrive as ingest writes them: in time order, a batch of 20 000 rows per transaction (ingest/batch.ts).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { listMigrations } from '../db/migrate.ts';
import type { BenchServer } from './db.ts';
import { type BenchRow, type BenchSection, int, met } from './section.ts';

const FILLS = Number(process.env.BENCH_STORAGE_FILLS ?? 2_000_000);
const BATCH = 20_000;
const TARGET_BYTES_PER_FILL = 520;
const START = Date.UTC(2026, 5, 1);
/** ~6.5 M fills a day. */
const FILL_STEP_MS = 13;
/** The schema the dense indexes replaced: every migration before them. */
const BEFORE = '0025';

/** A pseudo-random fraction in [0, 1) of g, from the `k`th 8 hex digits of md5(g): the same rows in both databases. */
const r = (k: number, g = 'g') => `(('x' || substr(md5(${g}::text), ${k * 8 + 1}, 8))::bit(32)::bigint / 4294967296.0)`;

/** The 20 market makers (`n` 1..21, the first the busiest) and the 50 000 traders (`n` 1 000..51 000), in SQL. */
export const makerAddressSql = (n: string) => `'0x' || lpad(to_hex(${n}), 40, 'a')`;
export const traderAddressSql = (n: string) => `'0x' || lpad(to_hex(${n}), 40, '0')`;
/** The busiest market maker's address (n = 1: ~16 % of the makers' fills, ~8 % of all). */
export const BUSIEST_MAKER = `0x${'1'.padStart(40, 'a')}`;
/** The HIP-3 dexes a quarter of the fills trade on (`<dex>:<coin>`). */
export const HIP3_DEXES = ['xyz', 'flx', 'vntl', 'hyna', 'km', 'cash'] as const;

export interface FillShape {
  /** Fill g's time (epoch ms), in SQL over `g`: ascending, as ingest writes them. */
  time: string;
  /** The names of the most traded coins, by rank (the storage section: none, every coin `COIN<k>`). */
  names?: readonly string[];
  /** Coins per HIP-3 dex (mainnet: ~10); unset, a HIP-3 fill's coin is any rank (the storage section's rows). */
  hip3PerDex?: number;
}

/**
 * The INSERT of mainnet-shaped fills g = $1..$2 (../shared/reference/mainnet-volumes.md §1-2: half of them from 20
 * market makers and the rest from 50 000 traders, 540 coins of which a quarter of the fills HIP-3, a cloid on 51 %, a
 * builder on 7 %, a TWAP on 9 %); one generator for the storage and scale sections.
 */
export function mainnetFillsSql({ time, names = [], hip3PerDex }: FillShape): string {
  const main = `(540 * ${r(3)} ^ 3)::int`;
  const rank = hip3PerDex ? `CASE WHEN ${r(2)} < 0.25 THEN ${main} % ${hip3PerDex} ELSE ${main} END` : main;
  const name = names.length
    ? `coalesce((ARRAY[${names.map((n) => `'${n}'`).join(',')}])[1 + ${rank}], 'COIN' || ${rank})`
    : `'COIN' || ${rank}`;
  return `
  INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl, hash,
    oid, crossed, fee, tid, fee_token, cloid, twap_id, builder, builder_fee, event_index)
  SELECT (${time}) / 75, address, coin, px, sz, side, ${time},
    round((${r(2)} - 0.5) * 200, 4), CASE WHEN side = 'B' THEN 'Open Long' ELSE 'Close Long' END,
    CASE WHEN ${r(3)} < 0.4 THEN round((${r(3)} - 0.2) * 50, 6) ELSE 0.0 END,
    '0x' || md5(g::text) || md5((g + 7)::text), g * 3, ${r(3)} < 0.55, round(px * sz * 0.00035, 6),
    (${r(1)} * 1125899906842624)::bigint, 'USDC',
    CASE WHEN ${r(0)} < 0.51 THEN '0x' || md5((g * 31)::text) END,
    CASE WHEN ${r(1)} < 0.09 THEN (g / 5000)::bigint END,
    CASE WHEN ${r(2)} < 0.07 THEN '0x' || lpad(to_hex((${r(3)} * 12)::int), 40, '0') END,
    CASE WHEN ${r(2)} < 0.07 THEN round(px * sz * 0.0001, 6) END,
    (g % 7)::int
  FROM (SELECT g,
      CASE WHEN ${r(0)} < 0.5 THEN ${makerAddressSql(`1 + (20 * ${r(1)} ^ 2)::int`)}
           ELSE ${traderAddressSql(`1000 + (50000 * ${r(1)} ^ 3)::int`)} END AS address,
      CASE WHEN ${r(2)} < 0.25 THEN (ARRAY[${HIP3_DEXES.map((d) => `'${d}'`).join(',')}])[1 + (g % 6)] || ':' ELSE '' END
        || ${name} AS coin,
      round((10 + ${r(0)} * 90000)::numeric, 1) AS px, round((0.001 + ${r(1)} * 5)::numeric, 4) AS sz,
      CASE WHEN g % 2 = 0 THEN 'B' ELSE 'A' END AS side
    FROM generate_series($1::bigint, $2::bigint) g) f`;
}

/** A pseudo-random fraction of the series value `g` (scale.ts: funding, ledger and order-status rows). */
export const randomOf = r;

const FILL_ROWS = mainnetFillsSql({ time: `${START} + g * ${FILL_STEP_MS}::bigint` });

interface Sizes {
  heap: number;
  indexes: { name: string; bytes: number }[];
}

/** The fills' leaves: its partitions where it is partitioned (today's schema, by week), else the table. */
const LEAVES = `SELECT relid FROM pg_partition_tree('accounts.fills') WHERE isleaf
  UNION SELECT 'accounts.fills'::regclass WHERE NOT EXISTS (SELECT FROM pg_partition_tree('accounts.fills'))`;

async function sizes(pool: pg.Pool): Promise<Sizes> {
  const heap = await pool.query<{ n: string }>(
    // Heap, TOAST, free space and visibility maps.
    `SELECT sum(pg_table_size(relid))::text AS n FROM (${LEAVES}) t`,
  );
  // Each partition's index counted under the index of the table it was made from.
  const { rows } = await pool.query<{ name: string; n: string }>(
    `SELECT coalesce(pg_partition_root(indexrelid), indexrelid)::regclass::text AS name,
            sum(pg_relation_size(indexrelid))::text AS n
       FROM pg_index WHERE indrelid IN (${LEAVES}) GROUP BY 1 ORDER BY 1`,
  );
  return { heap: Number(heap.rows[0]?.n), indexes: rows.map((x) => ({ name: x.name, bytes: Number(x.n) })) };
}

/** Loads the rows as ingest does, then measures; returns the sizes and the load's rate. */
async function load(pool: pg.Pool): Promise<{ sizes: Sizes; fillsPerS: number }> {
  await pool.query('TRUNCATE accounts.fills');
  const t = performance.now();
  for (let from = 1; from <= FILLS; from += BATCH) {
    await pool.query(FILL_ROWS, [from, Math.min(FILLS, from + BATCH - 1)]);
  }
  const fillsPerS = FILLS / ((performance.now() - t) / 1000);
  await pool.query('VACUUM ANALYZE accounts.fills');
  return { sizes: await sizes(pool), fillsPerS };
}

/** A database at the schema before the dense indexes: the migrations before BEFORE, copied apart. */
async function migratedBefore(server: BenchServer): Promise<{ pool: pg.Pool; dir: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-migrations-'));
  for (const m of await listMigrations()) {
    if (m.version >= BEFORE) continue;
    await fs.mkdir(path.join(dir, path.dirname(m.name)), { recursive: true });
    await fs.writeFile(path.join(dir, m.name), m.sql);
  }
  const { pool } = await server.freshDatabase('bench_storage_before', dir);
  return { pool, dir };
}

export async function benchStorage(server: BenchServer): Promise<BenchSection> {
  const before = await migratedBefore(server);
  const now = await server.freshDatabase('bench_storage');
  try {
    const old = await load(before.pool);
    const dense = await load(now.pool);
    const total = (s: Sizes) => s.heap + s.indexes.reduce((sum, i) => sum + i.bytes, 0);
    const perFill = (bytes: number) => bytes / FILLS;
    const rows: BenchRow[] = [
      {
        name: `bytes per stored fill (${int(FILLS)})`,
        value: `${int(perFill(total(dense.sizes)))} B`,
        baseline: `${int(perFill(total(old.sizes)))} B before`,
        ratio: (total(dense.sizes) / total(old.sizes)).toFixed(2),
        target: `<= ${TARGET_BYTES_PER_FILL} B: ${met(perFill(total(dense.sizes)) <= TARGET_BYTES_PER_FILL)}`,
      },
      {
        name: 'load in 20 000-row batches',
        value: `${int(dense.fillsPerS)} fills/s`,
        baseline: `${int(old.fillsPerS)} before`,
        ratio: (dense.fillsPerS / old.fillsPerS).toFixed(2),
        target: 'reported',
      },
    ];
    // What a week of fills holds once the ingest role has frozen it (db/partitions.ts: its indexes rebuilt): every
    // page at the B-tree's fillfactor, the address-leading ones too, which inserts keep at ~55 % (they land in the
    // middle of the index, at the end of their address's range).
    await now.pool.query('REINDEX TABLE accounts.fills');
    const closed = await sizes(now.pool);
    rows.push({
      name: 'the same fills, their week frozen',
      value: `${int(perFill(total(closed)))} B`,
      baseline: `${int(perFill(total(dense.sizes)))} B as loaded`,
      ratio: (total(closed) / total(dense.sizes)).toFixed(2),
      target: `<= ${TARGET_BYTES_PER_FILL} B: ${met(perFill(total(closed)) <= TARGET_BYTES_PER_FILL)}`,
    });
    const part = (s: Sizes) =>
      [`heap ${int(perFill(s.heap))}`, ...s.indexes.map((i) => `${i.name} ${int(perFill(i.bytes))}`)].join(', ');
    return {
      rows,
      notes: [
        `B per fill now: ${part(dense.sizes)}`,
        `B per fill before: ${part(old.sizes)}`,
        `B per fill rebuilt: ${part(closed)}`,
      ],
    };
  } finally {
    await before.pool.end();
    await now.pool.end();
    await fs.rm(before.dir, { recursive: true, force: true });
  }
}
