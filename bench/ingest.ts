// Ingest throughput: node_fills_by_block files → Postgres through the whole pipeline (read, parse, validate, pair
// trades, COPY, checkpoint), beside a raw COPY of exactly the rows it writes, measured in the same run.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { inTransaction } from '../db/pool.ts';
import { fillsTable } from '../db/rows/accounts.ts';
import { tradesTable } from '../db/rows/markets.ts';
import { Batch } from '../ingest/batch.ts';
import { LOADERS } from '../ingest/formats/index.ts';
import { listStreamFiles } from '../ingest/layouts.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { writeSyntheticFills } from '../test/node-files.ts';
import type { BenchServer } from './db.ts';

export interface IngestBenchResult {
  fills: number;
  ingestFillsPerS: number;
  rawCopyFillsPerS: number;
}

/** The same rows ingest writes (fills and their trades), pre-encoded, so that only Postgres is timed. */
async function encodeRows(dataDir: string): Promise<Batch[]> {
  const dir = path.join(dataDir, 'node_fills_by_block');
  const batches: Batch[] = [];
  for (const file of await listStreamFiles(dir)) {
    const lines = (await fs.readFile(path.join(dir, file), 'utf8')).split('\n').filter(Boolean);
    let batch = new Batch();
    for (const line of lines) {
      const b = JSON.parse(line);
      LOADERS.node_fills_by_block.loadBlock({ blockNumber: b.block_number, blockTime: 0 }, b.events, batch);
      if (batch.rows >= 20_000) {
        batches.push(batch);
        batch = new Batch();
      }
    }
    batches.push(batch);
  }
  return batches;
}

async function truncate(pool: pg.Pool) {
  await pool.query(`TRUNCATE ${fillsTable.table}, ${tradesTable.table}, platform.ingest_checkpoints`);
}

export async function benchIngest(server: BenchServer, fills: number): Promise<IngestBenchResult> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-bench-ingest-'));
  const blocksPerHour = 2000;
  const fillsPerBlock = 20;
  const hours = Math.max(1, Math.ceil(fills / (blocksPerHour * fillsPerBlock)));
  const written = await writeSyntheticFills(dataDir, { hours, blocksPerHour, fillsPerBlock });
  const { pool } = await server.freshDatabase('bench_ingest');
  try {
    // Ingest is timed first, on a heap holding nothing else: the raw COPY's pre-encoded rows (~1 GB for 500 000
    // fills) would otherwise sit in the old generation, and every scavenge during ingest took 30-50 ms beside them.
    const ingest = new Ingest({ dataDir, pool, streams: ['node_fills_by_block'], log: () => {} });
    let t = performance.now();
    await ingest.run();
    const ingestS = (performance.now() - t) / 1000;
    const loaded = ingest.stats[0]?.rows ?? 0;
    if (loaded !== written * 1.5) throw new Error(`ingest loaded ${loaded} rows, expected ${written * 1.5}`);

    await truncate(pool);
    await pool.query('VACUUM ANALYZE accounts.fills');
    const batches = await encodeRows(dataDir);
    t = performance.now();
    for (const batch of batches) await inTransaction(pool, (client) => batch.write(client));
    const rawS = (performance.now() - t) / 1000;
    return { fills: written, ingestFillsPerS: written / ingestS, rawCopyFillsPerS: written / rawS };
  } finally {
    await pool.end();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
