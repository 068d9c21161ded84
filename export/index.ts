// Exporting a dataset's day into an export directory: `<dir>/<dataset>/<day>.parquet`, written beside its place and
// renamed into it, and its entry merged into `<dir>/manifest.json`. What `npm run export` and `GET /export/...` share.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { type Dataset, datasetOf, dayStart, dayWhere } from './datasets.ts';
import { type ManifestEntry, mergeManifest, withManifestLock } from './manifest.ts';
import { writeDayParquet } from './parquet.ts';

/** Where a dataset's day goes, relative to the export directory. */
export const dayFile = (dataset: string, day: string) => `${dataset}/${day}.parquet`;

export interface ExportRequest {
  databaseUrl: string;
  /** A dataset's name (checked: a FieldError naming `dataset`). */
  dataset: string;
  /** `YYYY-MM-DD` (checked: a FieldError naming `day`). */
  day: string;
  /** The export directory. */
  dir: string;
  /** DuckDB's threads (default 2). */
  threads?: number;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(fs.createReadStream(file), hash);
  return hash.digest('hex');
}

/** Exports in one process run one after another: each keeps both cores of a small machine busy. */
let queue: Promise<unknown> = Promise.resolve();

/** Writes the day's file (replacing any before it) and its manifest entry; returns the entry. */
export async function exportDay(req: ExportRequest): Promise<ManifestEntry> {
  const dataset = datasetOf(req.dataset);
  const start = dayStart(req.day);
  const next = queue.then(() => writeDay(req, dataset, start));
  queue = next.catch(() => undefined);
  return next;
}

async function writeDay(req: ExportRequest, dataset: Dataset, start: number): Promise<ManifestEntry> {
  const relative = dayFile(dataset.name, req.day);
  const file = path.join(req.dir, relative);
  await fsp.mkdir(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${req.day}.${randomBytes(6).toString('hex')}.parquet`);
  try {
    const written = await writeDayParquet({
      databaseUrl: req.databaseUrl,
      dataset,
      start,
      file: tmp,
      threads: req.threads,
    });
    const [sha256, { size }] = await Promise.all([sha256Of(tmp), fsp.stat(tmp)]);
    const entry: ManifestEntry = {
      dataset: dataset.name,
      day: req.day,
      path: relative,
      rows: written.rows,
      bytes: size,
      sha256,
      schemaVersion: dataset.schemaVersion,
      positions: { key: [...dataset.position], first: written.first, last: written.last },
      exportedAt: new Date().toISOString(),
    };
    // The file and its entry change together: a reader of the manifest never sees one without the other.
    await withManifestLock(req.dir, async () => {
      await fsp.rename(tmp, file);
      await mergeManifest(req.dir, entry);
    });
    return entry;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

/** The count of a day's rows may take longer than the service's statement timeout (a mainnet day of fills: ~6.5 M). */
const COUNT_TIMEOUT_MS = 60_000;

/** How many rows the dataset's day holds now (what an HTTP export is charged for, before it runs). */
export async function countDayRows(pool: pg.Pool, datasetName: string, day: string): Promise<number> {
  const dataset = datasetOf(datasetName);
  const where = dayWhere(dataset, dayStart(day));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL statement_timeout = ${COUNT_TIMEOUT_MS}`);
    const query: pg.QueryConfig & { query_timeout: number } = {
      text: `SELECT count(*)::text AS n FROM ${dataset.table} WHERE ${where}`,
      query_timeout: COUNT_TIMEOUT_MS + 1000,
    };
    const { rows } = await client.query<{ n: string }>(query);
    await client.query('COMMIT');
    return Number(rows[0]?.n ?? 0);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
