// `npm run import -- --archive DIR`: loads a local copy of the public archive buckets. Node data
// (`hl-mainnet-node-data`: `<stream>/hourly/<date>/<H>.lz4`) goes through the ingest pipeline as backfill lanes, one

import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decompressFrameSync } from 'lz4-napi';
import type pg from 'pg';
import { makePartitions } from '../../db/partitions.ts';
import { inTransaction } from '../../db/pool.ts';
import { anyStoredIn, TIMED_EVENT_TABLES, type TimedEvents } from '../../domains/accounts/port.ts';
import { backfillCandles } from '../../domains/markets/port.ts';
import type { BusGap } from '../../events/bus.ts';
import { FieldError } from '../../platform/fields.ts';
import { type Progress, progress } from '../../platform/progress.ts';
import { STREAMS, type StreamName } from '../../wire/node-lines.ts';
import { completeBackfill, startBackfill } from '../backfills.ts';
import { Batch, INGEST_STATEMENT_TIMEOUT_MS } from '../batch.ts';
import { hourlyOrder } from '../files.ts';
import { storeAssetCtx } from '../formats/extra.ts';
import { LOADERS } from '../formats/index.ts';
// per UTC day (`archive/<date>`, checkpoints `archive/<date>/<stream>`), into the tables live ingest fills; the
// market-data archive (`hyperliquid-archive`: recorded l2Book books, per-minute asset contexts) into the market
// history and the contexts, one transaction per file with the file's checkpoint (`archive:<path>`). Every row loads
// once however often it runs or wherever it was cut short; while it runs, dataCoverage lists it under `backfills`.
import { layoutDirs, listStreamFiles } from '../layouts.ts';
import { Ingest } from '../pipeline.ts';
import { parseContextRow, parseHeader } from './asset-ctxs.ts';
import { addRecordedBook, parseRecordedBook } from './l2book.ts';

/** The archive's row in platform.backfills, and the prefix of its lanes' checkpoints. */
export const ARCHIVE_LANE = 'archive';
/** Checkpoint key of one market-data file: `archive:market_data/20240101/12/l2Book/BTC.lz4`. */
const FILE_KEY_PREFIX = `${ARCHIVE_LANE}:`;
export const NODE_BUCKET = 'hl-mainnet-node-data';
export const MARKET_BUCKET = 'hyperliquid-archive';
const HOUR = 3_600_000;
const DAY = 86_400_000;
/** Candles of a gap's trades may span a day of buckets: more than an answer's limit. */
const CANDLES_TIMEOUT_MS = 120_000;

export interface ArchiveImportOptions {
  /** Holds `hyperliquid-archive/` and/or `hl-mainnet-node-data/`, or either bucket's folders directly. */
  dir: string;
  /** A writer pool (statements of 30 s, as ingest's). */
  pool: pg.Pool;
  log?: (line: string) => void;
  /** Where the progress goes (a bar on a terminal, a line per 10 s otherwise). */
  out?: NodeJS.WriteStream;
  batchRows?: number;
  /**
   * Keep one recorded book per this many ms (the first of each interval) instead of every line (~0.6 s apart): the
   * live sampler records every 10 s. The choice holds per file: a file already loaded is not loaded again.
   */
  bookEveryMs?: number;
  /** Stops between two commits (a rerun resumes): the current lane stops, no further file starts. */
  signal?: AbortSignal;
}

export interface ArchiveImportSummary {
  /** Node-data files and market-data files found. */
  files: number;
  /** Market-data files found loaded by an earlier run, and skipped. */
  skipped: number;
  /** Node-data files left out: the database held rows of their hour, loaded from elsewhere. */
  leftOut: number;
  rows: number;
  malformed: number;
  /** UTC days (`YYYYMMDD`) of the node data and of the market data found. */
  nodeDays: string[];
  marketDays: string[];
  /** The oldest event time the node lanes loaded in this run (null: none loaded): what the writers catch up from. */
  loadedFrom: number | null;
}

interface MarketFile {
  /** Path inside the bucket: `market_data/20240101/12/l2Book/BTC.lz4`, `asset_ctxs/20240101.csv.lz4`. */
  relative: string;
  absolute: string;
  kind: 'l2Book' | 'assetCtxs';
  /** Where the file's time span ends (ms): its hour's, or its day's. */
  end: number;
}

interface Found {
  nodeRoot: string | null;
  /** Node data per UTC day: day → stream → the directories holding files of that day. */
  nodeDays: Map<string, Map<StreamName, string[]>>;
  nodeFiles: number;
  /** Node-data files per UTC day. */
  dayFiles: Map<string, number>;
  /** Directories of the node-data root this version does not read (named in the log). */
  unread: string[];
  marketFiles: MarketFile[];
  /** End of the newest hour found (ms). */
  until: number;
}

const dirs = async (dir: string): Promise<Dirent[]> =>
  (await fs.readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[])).filter(
    (d) => d.isDirectory() || d.isSymbolicLink(),
  );
const exists = (p: string) =>
  fs.stat(p).then(
    () => true,
    () => false,
  );

/**
 * The directories of a node-data root a stream is read from, as the pipeline reads them in a data dir: its
 * `_by_block` directory, its `_streaming` one and, for fills, the legacy `node_fills` (ingest/layouts.ts).
 */
const streamDirs = (stream: StreamName): string[] => layoutDirs(stream).map((d) => d.dir);

const dayStart = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6)));

/** Where each bucket's folders are: under their bucket's name, or DIR itself. */
async function bucketRoots(dir: string): Promise<{ nodeRoot: string | null; marketRoot: string | null }> {
  const under = async (bucket: string, marks: readonly string[]) => {
    if (await exists(path.join(dir, bucket))) return path.join(dir, bucket);
    for (const mark of marks) if (await exists(path.join(dir, mark))) return dir;
    return null;
  };
  return {
    nodeRoot: await under(NODE_BUCKET, [...STREAMS, 'node_fills', 'node_trades', 'explorer_blocks']),
    marketRoot: await under(MARKET_BUCKET, ['market_data', 'asset_ctxs']),
  };
}

/** Everything the archive copy holds that this version loads. */
async function find(dir: string): Promise<Found> {
  const { nodeRoot, marketRoot } = await bucketRoots(dir);
  if (!nodeRoot && !marketRoot) {
    throw new Error(
      `${dir}: holds neither ${MARKET_BUCKET}/ nor ${NODE_BUCKET}/, nor either bucket's folders (market_data/, asset_ctxs/, node_fills_by_block/, misc_events_by_block/, ...)`,
    );
  }
  const found: Found = {
    nodeRoot,
    nodeDays: new Map(),
    nodeFiles: 0,
    dayFiles: new Map(),
    unread: [],
    marketFiles: [],
    until: 0,
  };
  if (nodeRoot) {
    const dirOf = new Map<string, StreamName>();
    for (const stream of STREAMS) {
      if (LOADERS[stream].liveOnly) continue;
      for (const dir of streamDirs(stream)) dirOf.set(dir, stream);
    }
    for (const d of await dirs(nodeRoot)) {
      const stream = dirOf.get(d.name);
      if (!stream) {
        found.unread.push(d.name);
        continue;
      }
      for (const file of await listStreamFiles(path.join(nodeRoot, d.name))) {
        const order = hourlyOrder(file);
        const day = String(Math.floor(order / 100));
        const held = found.nodeDays.get(day) ?? new Map<StreamName, string[]>();
        held.set(stream, [...new Set([...(held.get(stream) ?? []), d.name])]);
        found.nodeDays.set(day, held);
        found.nodeFiles++;
        found.dayFiles.set(day, (found.dayFiles.get(day) ?? 0) + 1);
        found.until = Math.max(found.until, dayStart(day) + ((order % 100) + 1) * HOUR);
      }
    }
  }
  if (marketRoot) {
    for (const day of await dirs(path.join(marketRoot, 'market_data'))) {
      if (!/^\d{8}$/.test(day.name)) continue;
      for (const hour of await dirs(path.join(marketRoot, 'market_data', day.name))) {
        if (!/^\d{1,2}$/.test(hour.name) || Number(hour.name) > 23) continue;
        const bookDir = path.join(marketRoot, 'market_data', day.name, hour.name, 'l2Book');
        const coins = await fs.readdir(bookDir).catch(() => [] as string[]);
        for (const name of coins.sort()) {
          if (!/^[^/]+\.lz4$/.test(name)) continue;
          const end = dayStart(day.name) + (Number(hour.name) + 1) * HOUR;
          found.marketFiles.push({
            relative: `market_data/${day.name}/${hour.name}/l2Book/${name}`,
            absolute: path.join(bookDir, name),
            kind: 'l2Book',
            end,
          });
        }
      }
    }
    const ctxs = await fs.readdir(path.join(marketRoot, 'asset_ctxs')).catch(() => [] as string[]);
    for (const name of ctxs) {
      const m = /^(\d{8})\.csv(?:\.lz4)?$/.exec(name);
      if (!m) continue;
      found.marketFiles.push({
        relative: `asset_ctxs/${name}`,
        absolute: path.join(marketRoot, 'asset_ctxs', name),
        kind: 'assetCtxs',
        end: dayStart(m[1] as string) + DAY,
      });
    }
    // Oldest first; within an hour, by name.
    found.marketFiles.sort((a, b) => a.end - b.end || a.relative.localeCompare(b.relative));
    for (const f of found.marketFiles) found.until = Math.max(found.until, f.end);
  }
  return found;
}

/** The lines of a file; of an `.lz4` file (an LZ4 frame), its decompressed content, as ingest reads node files. */
async function* fileLines(absolute: string): AsyncGenerator<string> {
  const bytes = await fs.readFile(absolute);
  let content: Buffer = bytes;
  if (absolute.endsWith('.lz4')) {
    try {
      content = decompressFrameSync(bytes);
    } catch (err) {
      // A download cut short, say: named, so that it can be fetched again.
      throw new Error(`${absolute}: not a whole LZ4 frame (${err instanceof Error ? err.message : String(err)})`);
    }
  }
  const text = content.toString('utf8');
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    yield text.slice(start, nl);
    start = nl + 1;
  }
  if (start < text.length) yield text.slice(start);
}

interface LineError {
  lineNo: number;
  error: string;
  sample: string;
}

/**
 * Loads one market-data file in one transaction with its checkpoint; nothing when an earlier run loaded it (its
 * rows are keyed by coin and time besides: a file loaded twice adds nothing). Returns rows and malformed lines.
 */
async function loadMarketFile(
  pool: pg.Pool,
  file: MarketFile,
  log: (line: string) => void,
  bookEveryMs: number | undefined,
): Promise<{ rows: number; malformed: number } | null> {
  const key = `${FILE_KEY_PREFIX}${file.relative}`;
  const { rows: done } = await pool.query('SELECT 1 FROM platform.ingest_checkpoints WHERE stream = $1', [key]);
  if (done.length) return null;
  const batch = new Batch();
  const errors: LineError[] = [];
  let lineNo = 0;
  let header: ReturnType<typeof parseHeader> | undefined;
  let lastSlot: number | undefined;
  for await (const text of fileLines(file.absolute)) {
    lineNo++;
    if (text.trim() === '') continue;
    const mark = batch.mark();
    try {
      if (file.kind === 'l2Book') {
        const book = parseRecordedBook(text);
        // Thinned: the first book of each interval (by the book's time, from the epoch: the same on every run).
        const slot = bookEveryMs ? Math.floor(book.time / bookEveryMs) : lineNo;
        if (slot === lastSlot) continue;
        lastSlot = slot;
        addRecordedBook(batch, book);
      } else if (!header) header = parseHeader(text);
      else storeAssetCtx(batch, parseContextRow(header, text));
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      batch.rollback(mark);
      errors.push({ lineNo, error: err.message, sample: text.slice(0, 500) });
      log(`${file.relative}:${lineNo}: malformed line skipped: ${err.message}`);
    }
  }
  await makePartitions(pool, batch.periods); // recorded books: their days of markets.history_book, before the transaction
  await inTransaction(pool, async (client) => {
    await client.query(`SET LOCAL statement_timeout = ${INGEST_STATEMENT_TIMEOUT_MS}`);
    await batch.write(client);
    for (const e of errors) {
      await client.query(
        `INSERT INTO platform.ingest_errors (stream, file, line_no, error, sample) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (stream, file, line_no) DO NOTHING`,
        [key, file.relative, e.lineNo, e.error, e.sample],
      );
    }
    await client.query(
      `INSERT INTO platform.ingest_checkpoints (stream, file, byte_offset, line_no, rows_loaded, malformed)
       VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT (stream) DO NOTHING`,
      [key, file.relative, lineNo, batch.rows, errors.length],
    );
  });
  return { rows: batch.rows, malformed: errors.length };
}

/**
 * Per stream, the accounts events it stores (asked through accounts' port): an hour of the archive whose events are
 * stored already, and that this lane has not loaded, was loaded from elsewhere (the node's own files, by the lane
 * following it). Node data from two sources is not matched block by block, so such an hour is left out rather than
 * loaded twice.
 */
const HELD_ROWS: Partial<Record<StreamName, TimedEvents>> = {
  node_fills_by_block: 'fills',
  misc_events_by_block: 'funding',
};

const hourOf = (name: string) => {
  const m = /hourly\/\d{8}\/(\d{1,2})(?:\.lz4)?$/.exec(name);
  return m ? Number(m[1]) : Number.NaN;
};

/**
 * One UTC day of node data as its own lane: a directory of links to that day's files of each stream, so that its
 * checkpoints cover that day alone and a day added to the copy later, older or newer, loads in its own lane. Returns
 * the files left out (their hour loaded from elsewhere).
 */
async function loadNodeDay(
  opts: Required<Pick<ArchiveImportOptions, 'pool' | 'log'>> & Pick<ArchiveImportOptions, 'batchRows'>,
  nodeRoot: string,
  day: string,
  held: Map<StreamName, string[]>,
  onIngest: (ingest: Ingest | null) => void,
  gaps: BusGap[],
): Promise<number> {
  const lane = `${ARCHIVE_LANE}/${day}`;
  const view = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-archive-'));
  let leftOut = 0;
  try {
    for (const [stream, streamDirs] of held) {
      const { rows } = await opts.pool.query<{ file: string }>(
        'SELECT file FROM platform.ingest_checkpoints WHERE stream = $1',
        [`${lane}/${stream}`],
      );
      const reached = rows[0] ? hourOf(rows[0].file) : -1;
      const held = HELD_ROWS[stream];
      for (const dir of streamDirs) {
        const from = path.join(nodeRoot, dir, 'hourly', day);
        const to = path.join(view, dir, 'hourly', day);
        await fs.mkdir(to, { recursive: true });
        for (const name of await fs.readdir(from)) {
          const hour = hourOf(`hourly/${day}/${name}`);
          if (Number.isNaN(hour)) continue;
          if (held && hour > reached) {
            const start = dayStart(day) + hour * HOUR;
            // Not its last minute: a file holds events stamped up to seconds before its hour (processed after it),
            // so the node's first file may hold a few of the hour before.
            if (await anyStoredIn(opts.pool, held, start, start + HOUR - 60_000)) {
              leftOut++;
              opts.log(
                `import: left out ${dir}/hourly/${day}/${name}: ${TIMED_EVENT_TABLES[held]} holds rows of that hour already (loaded from the node's own files?)`,
              );
              continue;
            }
          }
          await fs.symlink(path.join(from, name), path.join(to, name));
        }
      }
    }
    const ingest = new Ingest({
      dataDir: view,
      pool: opts.pool,
      streams: [...held.keys()],
      lane,
      log: opts.log,
      ...(opts.batchRows ? { batchRows: opts.batchRows } : {}),
      // A lane publishes nothing live; what it loaded comes back as gaps (the closed candles to write).
      bus: {
        publish: (_topic, items) => {
          gaps.push(...(items as readonly BusGap[]));
        },
      },
    });
    onIngest(ingest);
    await ingest.run();
    return leftOut;
  } finally {
    onIngest(null);
    await fs.rm(view, { recursive: true, force: true });
  }
}

/** The closed candles of the trades the lanes loaded (what the markets service writes after a gap it is told of). */
async function writeCandles(pool: pg.Pool, gaps: readonly BusGap[]): Promise<void> {
  for (const gap of gaps) {
    if (!gap.topics.includes('trades')) continue;
    await inTransaction(pool, async (client) => {
      await client.query(`SET LOCAL statement_timeout = ${CANDLES_TIMEOUT_MS}`);
      await backfillCandles(client, gap.from, Date.now(), undefined, {
        until: gap.until,
        timeoutMs: CANDLES_TIMEOUT_MS + 500,
      });
    });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function importArchive(options: ArchiveImportOptions): Promise<ArchiveImportSummary> {
  const log = options.log ?? ((line: string) => console.error(line));
  const { pool } = options;
  const found = await find(path.resolve(options.dir));
  if (found.unread.length) log(`import: not read by this version: ${found.nodeRoot}/{${found.unread.join(',')}}`);
  const nodeDays = [...found.nodeDays.keys()].sort();
  const marketDays = [...new Set(found.marketFiles.map((f) => /(\d{8})/.exec(f.relative)?.[1] as string))].sort();
  const files = found.nodeFiles + found.marketFiles.length;
  const summary: ArchiveImportSummary = {
    files,
    skipped: 0,
    leftOut: 0,
    rows: 0,
    malformed: 0,
    nodeDays,
    marketDays,
    loadedFrom: null,
  };
  log(
    `import: ${found.nodeFiles} node-data files (${nodeDays.length} days), ${found.marketFiles.length} market-data files (${marketDays.length} days)`,
  );
  if (!files) return summary;

  // dataCoverage lists the archive as a backfill until it is complete: its history ends with the newest hour found.
  await startBackfill(pool, ARCHIVE_LANE, found.until);

  // Progress: files done of all found, rows/s and the ETA (platform/progress.ts).
  const started = Date.now();
  let filesDone = 0;
  let current: Ingest | null = null;
  const laneStats = () => {
    const stats = current?.stats ?? [];
    return {
      files: stats.reduce((n, s) => n + s.filesDone, 0),
      rows: stats.reduce((n, s) => n + s.rows, 0),
      malformed: stats.reduce((n, s) => n + s.malformed, 0),
    };
  };
  const bar: Progress = progress({
    label: 'import',
    total: files,
    unit: 'files',
    ...(options.out ? { out: options.out } : {}),
  });
  const tick = () => {
    const lane = laneStats();
    const rows = summary.rows + lane.rows;
    const rate = rows / Math.max((Date.now() - started) / 1000, 0.001);
    bar.update(filesDone + lane.files, { detail: `${fmt(rows)} rows, ${fmt(rate)} rows/s` });
  };
  const timer = setInterval(tick, options.out?.isTTY ? 250 : 1000);
  timer.unref();
  const stopped = () => options.signal?.aborted === true;
  const onAbort = () => void current?.stop();
  options.signal?.addEventListener('abort', onAbort);

  // What the node lanes loaded (from, until per stream): the writers catch up from the oldest of it.
  const gaps: BusGap[] = [];
  try {
    if (found.nodeRoot) {
      for (const day of nodeDays) {
        if (stopped()) break;
        let lane: Ingest | null = null;
        const onIngest = (ingest: Ingest | null) => {
          current = ingest;
          if (!ingest) return;
          lane = ingest;
          if (stopped()) void ingest.stop();
        };
        const laneOpts = { pool, log, ...(options.batchRows ? { batchRows: options.batchRows } : {}) };
        const held = found.nodeDays.get(day) ?? new Map();
        summary.leftOut += await loadNodeDay(laneOpts, found.nodeRoot, day, held, onIngest, gaps);
        const stats = (lane as Ingest | null)?.stats ?? [];
        summary.rows += stats.reduce((n, s) => n + s.rows, 0);
        summary.malformed += stats.reduce((n, s) => n + s.malformed, 0);
        if (!stopped()) filesDone += found.dayFiles.get(day) ?? 0;
        tick();
      }
      await writeCandles(pool, gaps);
    }
    for (const file of found.marketFiles) {
      if (stopped()) break;
      const loaded = await loadMarketFile(pool, file, log, options.bookEveryMs);
      filesDone++;
      if (loaded) {
        summary.rows += loaded.rows;
        summary.malformed += loaded.malformed;
      } else summary.skipped++;
      tick();
    }
    // Cut short, it stays listed as loading: the same command resumes it.
    if (!stopped()) {
      const loadedFrom = gaps.length ? Math.min(...gaps.map((g) => g.from)) : null;
      await completeBackfill(pool, ARCHIVE_LANE, loadedFrom);
      summary.loadedFrom = loadedFrom;
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    clearInterval(timer);
    const seconds = (Date.now() - started) / 1000;
    bar.stop(
      `${filesDone}/${files} files, ${fmt(summary.rows)} rows in ${seconds.toFixed(0)} s (${fmt(summary.rows / Math.max(seconds, 0.001))} rows/s), ` +
        `${summary.skipped} files loaded before, ${summary.leftOut} left out, ${summary.malformed} malformed lines`,
    );
  }
  return summary;
}
