// One dataset's day written as a Parquet file by DuckDB (@duckdb/node-api): Postgres streams the day's rows as CSV
// (`COPY (SELECT ...) TO STDOUT`) into a named pipe that DuckDB reads with read_csv, typing each column,
// and DuckDB writes the Parquet file (`COPY ... TO (FORMAT parquet)`). Nothing holds the day in memory: Postgres and
// DuckDB run side by side on the pipe, each on its own core. The measured alternatives are in docs/export.md.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ColumnKind } from '../kit/export-table.ts';
import { DAY_MS, type Dataset, daySelect } from './datasets.ts';

/** The DECIMAL every numeric becomes: 20 integer digits and 18 decimals. */
export const DECIMAL_SCALE = 18;
const DECIMAL_TYPE = `DECIMAL(38,${DECIMAL_SCALE})`;

export interface WrittenDay {
  rows: number;
  /**
   * The position of the file's first and last rows: the dataset's position columns joined by `:` (times as epoch ms),
   * `1780000000123:412:3:99:0xabc...` for a fill; null for an empty day.
   */
  first: string | null;
  last: string | null;
}

const sqlText = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * A numeric's text (Postgres prints it plainly: `-12.5`, never an exponent) as DECIMAL(38,18), exactly. DuckDB's own
 * cast from text to a 38-digit decimal takes ~10 µs a value (a mainnet day of fills: ~9 min for its eight
 * decimals); its cast to an 18-digit decimal is ~100× faster and exact for values of up to 10 integer digits and 8
 * decimals, which is almost all of them, and widening it is exact. The rest are read as the integer of their digits
 * with the decimals padded to 18, scaled by 10^-18 (exact decimal arithmetic). More than 18 decimals stops the export
 * (rpad would cut them); more than 20 integer digits fails the cast.
 */
function decimalOf(v: string): string {
  const dot = `strpos(${v}, '.')`;
  const fraction = `length(${v}) - ${dot}`;
  const short = `${dot} BETWEEN 2 AND 11 AND ${fraction} <= 8`;
  const digits = `(split_part(${v}, '.', 1) || rpad(split_part(${v}, '.', 2), ${DECIMAL_SCALE}, '0'))`;
  const long = `(${digits}::HUGEINT::DECIMAL(38,0) * 0.${'0'.repeat(DECIMAL_SCALE - 1)}1::${DECIMAL_TYPE})`;
  const tooFine = `${dot} > 0 AND ${fraction} > ${DECIMAL_SCALE}`;
  return `CASE WHEN ${v} IS NULL THEN NULL WHEN ${short} THEN ${v}::DECIMAL(18,8)::${DECIMAL_TYPE}
    WHEN ${tooFine} THEN error('a decimal with more than ${DECIMAL_SCALE} decimals: ' || ${v}) ELSE ${long} END`;
}

/** How read_csv parses a column: integers and booleans as they are, the rest as text cast below. */
function csvType(kind: ColumnKind): string {
  if (kind === 'time' || kind === 'bigint') return 'BIGINT';
  if (kind === 'int') return 'INTEGER';
  if (kind === 'bool') return 'BOOLEAN';
  return 'VARCHAR';
}

/** The DuckDB expression turning a CSV field (as csvType read it, or NULL) into the column's Parquet type. */
function typed(kind: ColumnKind, v: string): string {
  switch (kind) {
    case 'time':
      return `make_timestamp_ms(${v})::TIMESTAMPTZ`;
    case 'decimal':
      return decimalOf(v);
    case 'bigint':
    case 'int':
    case 'bool':
    case 'text':
      return v;
    case 'json':
      return `${v}::JSON`;
    case 'levels':
      return `list_transform(from_json(${v}, '[{"px":"VARCHAR","sz":"VARCHAR","n":"INTEGER"}]'),
        l -> struct_pack(px := ${decimalOf('l.px')}, sz := ${decimalOf('l.sz')}, n := l.n))`;
  }
}

/** A position value as the manifest holds it: times as epoch ms, the rest as read. */
function positionValue(kind: ColumnKind, name: string): string {
  return kind === 'time' ? `epoch_ms(${name})` : name;
}

const run = promisify(execFile);

/** Opens the pipe's read end without waiting and closes it: a writer blocked opening it then fails instead of hanging. */
async function unblockWriter(pipe: string): Promise<void> {
  const handle = await fsp.open(pipe, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK).catch(() => undefined);
  await handle?.close();
}

export interface WriteOptions {
  /** Postgres (a connection of its own: an export runs longer than the service's statement timeout). */
  databaseUrl: string;
  dataset: Dataset;
  /** The day's first millisecond (UTC). */
  start: number;
  /** The file to write; its siblings `<file>.<i>.pipe` are the named pipes, removed after. */
  file: string;
  /** DuckDB's threads (default 2). */
  threads?: number;
  /** Pipes the day is fed through, each a slice of its time (default: one per thread). */
  slices?: number;
}

/**
 * Writes `dataset`'s day to `file` (Parquet, zstd), returning its rows and the positions of its first and last. The
 * day goes through as many pipes as DuckDB has threads, each a slice of the day's time fed by a Postgres connection
 * of its own: DuckDB reads one pipe on one thread (a pipe cannot be split), so with one pipe its whole work (parsing,
 * casting, encoding) ran on one core while Postgres waited. The slices are read in order, so the file keeps the
 * day's order.
 */
export async function writeDayParquet(opts: WriteOptions): Promise<WrittenDay> {
  const { dataset, file } = opts;
  const threads = opts.threads ?? 2;
  const slices = Math.max(1, opts.slices ?? threads);
  const bounds = Array.from({ length: slices }, (_, i) => opts.start + Math.floor((DAY_MS * i) / slices));
  const pipes = bounds.map((_, i) => `${file}.${i}.pipe`);
  const { DuckDBInstance } = await import('@duckdb/node-api');
  // Without the ICU extension (not bundled, and nothing is downloaded) DuckDB's TIMESTAMPTZ is UTC: a zone-less
  // timestamp casts to it unchanged, and is written UTC-adjusted.
  const duck = await DuckDBInstance.create(':memory:', {
    threads: String(threads),
    autoinstall_known_extensions: 'false',
  });
  const con = await duck.connect();
  const clients = pipes.map(
    () => new pg.Client({ connectionString: opts.databaseUrl, application_name: 'hl-data-graph export' }),
  );
  try {
    for (const pipe of pipes) {
      await fsp.rm(pipe, { force: true });
      // Node makes no named pipe itself.
      await run('mkfifo', ['-m', '600', pipe]);
    }
    await Promise.all(clients.map((c) => c.connect().then(() => c.query('SET statement_timeout = 0'))));
    const columns = dataset.columns.map((c) => `${sqlText(c.name)}: '${csvType(c.kind)}'`).join(', ');
    const csv = `read_csv([${pipes.map(sqlText).join(', ')}], columns = {${columns}}, header = false,
      auto_detect = false, quote = '"', escape = '"', allow_quoted_nulls = false, parallel = false)`;
    const select = dataset.columns.map((c) => `${typed(c.kind, `"${c.name}"`)} AS "${c.name}"`).join(', ');
    const produce = clients.map((client, i) =>
      pipeline(
        client.query(
          copyTo(
            `COPY (${daySelect(dataset, bounds[i] as number, bounds[i + 1] ?? opts.start + DAY_MS)}) TO STDOUT (FORMAT csv)`,
          ),
        ),
        fs.createWriteStream(pipes[i] as string),
      ),
    );
    const consume = con.run(
      `COPY (SELECT ${select} FROM ${csv}) TO ${sqlText(file)} (FORMAT parquet, COMPRESSION zstd)`,
    );
    // A failure on either side fails the file: a Postgres error ends its pipe early, and what DuckDB read of it
    // would be a file that parses. A DuckDB error leaves the writers blocked on the pipes: opening their read ends
    // frees them.
    consume.catch(() => Promise.all(pipes.map(unblockWriter)));
    await Promise.all([...produce, consume]);

    const keyKinds = dataset.position.map((name) => dataset.columns.find((c) => c.name === name)?.kind ?? 'text');
    const key = dataset.position.map((name, i) => positionValue(keyKinds[i] as ColumnKind, `"${name}"`)).join(', ');
    const count = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${sqlText(file)})`);
    const rows = Number(count.getRows()[0]?.[0]);
    if (rows === 0) return { rows, first: null, last: null };
    const at = async (offset: number) => {
      const r = await con.runAndReadAll(`SELECT ${key} FROM read_parquet(${sqlText(file)}) LIMIT 1 OFFSET ${offset}`);
      return (r.getRows()[0] ?? []).map(String).join(':');
    };
    return { rows, first: await at(0), last: await at(rows - 1) };
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    con.closeSync();
    duck.closeSync();
    await Promise.all(pipes.map((pipe) => fsp.rm(pipe, { force: true })));
  }
}

/** The directory a dataset's files go in, under an export's `dir`. */
export const datasetDir = (dir: string, dataset: string) => path.join(dir, dataset);
