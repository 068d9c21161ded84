// An export directory's manifest.json: one entry per file written there (dataset, day, path, rows, bytes, sha256,
// schema version, the positions covered). Entries are merged: writing a day replaces that day's entry and keeps every
// other. A lock file beside it serializes writers across processes (the export command beside a serving api).
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DatasetName } from './datasets.ts';

export const MANIFEST = 'manifest.json';

export interface ManifestEntry {
  dataset: DatasetName;
  /** The UTC day, `YYYY-MM-DD`. */
  day: string;
  /** The file, relative to the export directory: `<dataset>/<day>.parquet`. */
  path: string;
  rows: number;
  bytes: number;
  /** Of the file's bytes, hex. */
  sha256: string;
  schemaVersion: number;
  /**
   * The rows covered: the position of the first and last row (`key`'s columns joined by `:`, times in epoch ms), in
   * the file's order; null for a day with no rows.
   */
  positions: { key: string[]; first: string | null; last: string | null };
  /** When the file was written (ISO 8601, UTC). */
  exportedAt: string;
}

export interface Manifest {
  files: ManifestEntry[];
}

/** The directory's manifest; an empty one when none was written yet. */
export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await fsp.readFile(path.join(dir, MANIFEST), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { files: [] };
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<Manifest>;
  if (!Array.isArray(parsed.files)) throw new Error(`${path.join(dir, MANIFEST)}: not a manifest (no "files" list)`);
  return { files: parsed.files };
}

/** A lock older than this was left by a process that died holding it. */
const STALE_LOCK_MS = 60_000;
const LOCK_WAIT_MS = 30_000;

/** Runs `work` holding the directory's manifest lock (`manifest.json.lock`, made exclusively). */
export async function withManifestLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, `${MANIFEST}.lock`);
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await (await fsp.open(lock, 'wx')).close();
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = await fsp.stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await fsp.rm(lock, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lock}: held for over ${LOCK_WAIT_MS / 1000} s`);
      else await new Promise((r) => setTimeout(r, 50));
    }
  }
  try {
    return await work();
  } finally {
    await fsp.rm(lock, { force: true });
  }
}

/** Puts `entry` in the manifest (replacing the same dataset and day's), written whole and renamed into place. */
export async function mergeManifest(dir: string, entry: ManifestEntry): Promise<Manifest> {
  const manifest = await readManifest(dir);
  const files = manifest.files.filter((f) => !(f.dataset === entry.dataset && f.day === entry.day));
  files.push(entry);
  files.sort((a, b) => (a.dataset === b.dataset ? a.day.localeCompare(b.day) : a.dataset.localeCompare(b.dataset)));
  const next = { files };
  const tmp = path.join(dir, `.${MANIFEST}.${randomBytes(6).toString('hex')}`);
  await fsp.writeFile(tmp, `${JSON.stringify(next, null, 2)}\n`);
  await fsp.rename(tmp, path.join(dir, MANIFEST));
  return next;
}
