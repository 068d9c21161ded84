// The datasets `npm run export` and `GET /export/<dataset>/<day>.parquet` write: for each, the stored table it
// reads, its columns with the Parquet type each becomes, the order of its rows in a file and the key that names a
// row's position (the manifest's first and last). A day is the UTC day of the table's time column.
import { FieldError } from '../platform/fields.ts';

/**
 * What a column becomes in Parquet:
 * - `time`: epoch ms → TIMESTAMP, UTC-adjusted (whole milliseconds in DuckDB's microsecond unit);
 * - `decimal`: numeric → DECIMAL(38, 18), exact (a value with more than 18 decimals or 20 integer digits stops the
 *   export, never rounded);
 * - `bigint`, `int`: INT64, INT32; `text`: STRING; `bool`: BOOLEAN; `json`: JSON (a string holding the jsonb);
 * - `levels`: a book side's `[{px, sz, n}]` → LIST<STRUCT<px DECIMAL(38,18), sz DECIMAL(38,18), n INT32>>.
 */
export type ColumnKind = 'time' | 'decimal' | 'bigint' | 'int' | 'text' | 'bool' | 'json' | 'levels';

export interface ExportColumn {
  name: string;
  kind: ColumnKind;
  /** The column's expression in the table's SELECT, when not its name. */
  sql?: string;
}

export interface Dataset {
  name: DatasetName;
  /** The stored table. */
  table: string;
  /** Its time column (epoch ms), whose UTC day is the file's. */
  time: string;
  columns: readonly ExportColumn[];
  /** The rows' order in the file: the columns it sorts on, ascending. */
  order: readonly string[];
  /** The columns naming a row's position (the manifest's first and last): a prefix of `order`, or all of it. */
  position: readonly string[];
  /**
   * The dataset's schema version, in the manifest beside each file: raised when a column is added, removed, renamed
   * or retyped, so that a reader holding files of two versions can tell them apart.
   */
  schemaVersion: number;
}

const col = (name: string, kind: ColumnKind, sql?: string): ExportColumn =>
  sql ? { name, kind, sql } : { name, kind };

export const DATASET_NAMES = ['fills', 'trades', 'candles', 'funding', 'ledger', 'books'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

export const DATASETS: Readonly<Record<DatasetName, Dataset>> = {
  // Every node fill, one row per side (accounts.fills). In execution order: time, then the block, the fill's place
  // in the block's events, tid, and address (the two sides of a trade stored before event_index existed share it).
  fills: {
    name: 'fills',
    table: 'accounts.fills',
    time: 'time',
    columns: [
      col('time', 'time'),
      col('block_number', 'bigint'),
      col('event_index', 'int'),
      col('tid', 'bigint'),
      col('address', 'text'),
      col('coin', 'text'),
      col('px', 'decimal'),
      col('sz', 'decimal'),
      col('side', 'text'),
      col('start_position', 'decimal'),
      col('dir', 'text'),
      col('closed_pnl', 'decimal'),
      col('hash', 'text'),
      col('oid', 'bigint'),
      col('crossed', 'bool'),
      col('fee', 'decimal'),
      col('fee_token', 'text'),
      col('cloid', 'text'),
      col('twap_id', 'bigint'),
      col('builder', 'text'),
      col('builder_fee', 'decimal'),
      col('deployer_fee', 'decimal'),
      col('priority_gas', 'decimal'),
      col('liquidated_user', 'text'),
      col('liquidation_mark_px', 'decimal'),
      col('liquidation_method', 'text'),
    ],
    order: ['time', 'block_number', 'event_index', 'tid', 'address'],
    position: ['time', 'block_number', 'event_index', 'tid', 'address'],
    schemaVersion: 1,
  },
  // One row per match (markets.trades): time, then the block and the match's place in it.
  trades: {
    name: 'trades',
    table: 'markets.trades',
    time: 'time',
    columns: [
      col('time', 'time'),
      col('block_number', 'bigint'),
      col('seq', 'int'),
      col('coin', 'text'),
      col('side', 'text'),
      col('px', 'decimal'),
      col('sz', 'decimal'),
      col('hash', 'text'),
      col('tid', 'bigint'),
      col('buyer', 'text'),
      col('seller', 'text'),
      col('fees', 'decimal'),
    ],
    order: ['time', 'block_number', 'seq', 'tid'],
    position: ['time', 'block_number', 'seq', 'tid'],
    schemaVersion: 1,
  },
  // Every stored candle opening in the day, of every interval (markets.candles), as it stands when exported.
  candles: {
    name: 'candles',
    table: 'markets.candles',
    time: 't',
    columns: [
      col('t', 'time'),
      col('coin', 'text'),
      col('interval', 'text'),
      col('close_time', 'time'),
      col('o', 'decimal'),
      col('h', 'decimal'),
      col('l', 'decimal'),
      col('c', 'decimal'),
      col('v', 'decimal'),
      col('n', 'int'),
      col('closed', 'bool'),
      col('reconciled', 'bool'),
    ],
    order: ['t', 'coin', 'interval'],
    position: ['t', 'coin', 'interval'],
    schemaVersion: 1,
  },
  // Each account's hourly funding payment (accounts.funding_payments), with the coin's rate of that hour.
  funding: {
    name: 'funding',
    table: 'accounts.funding_payments',
    time: 'time',
    columns: [
      col('time', 'time'),
      col('block_number', 'bigint'),
      col('address', 'text'),
      col('coin', 'text'),
      col('usdc', 'decimal'),
      col('szi', 'decimal'),
      col('funding_rate', 'decimal'),
    ],
    order: ['time', 'block_number', 'address', 'coin'],
    position: ['time', 'block_number', 'address', 'coin'],
    schemaVersion: 1,
  },
  // Non-funding ledger events, one row per event and address involved (accounts.ledger_updates); `delta` as stored.
  ledger: {
    name: 'ledger',
    table: 'accounts.ledger_updates',
    time: 'time',
    columns: [
      col('time', 'time'),
      col('block_number', 'bigint'),
      col('hash', 'text'),
      col('address', 'text'),
      col('delta_type', 'text'),
      col('delta', 'json', 'delta::text'),
    ],
    // The delta's text last: one hash may move funds for one address twice.
    order: ['time', 'block_number', 'hash', 'address', 'delta'],
    position: ['time', 'block_number', 'hash', 'address'],
    schemaVersion: 1,
  },
  // The recorded books (markets.history_book: the sampler's top 20 levels a side, or imported archive books).
  books: {
    name: 'books',
    table: 'markets.history_book',
    time: 'time',
    columns: [
      col('time', 'time'),
      col('coin', 'text'),
      col('bids', 'levels', 'levels->0'),
      col('asks', 'levels', 'levels->1'),
    ],
    order: ['time', 'coin'],
    position: ['time', 'coin'],
    schemaVersion: 1,
  },
};

const DAY_MS = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `dataset: must be one of fills, trades, ..., got "x"` for anything but a dataset's name. */
export function datasetOf(value: unknown): Dataset {
  if (typeof value === 'string' && Object.hasOwn(DATASETS, value)) return DATASETS[value as DatasetName];
  throw new FieldError(`dataset: must be one of ${DATASET_NAMES.join(', ')}, got ${JSON.stringify(value)}`);
}

/** A UTC day `YYYY-MM-DD` (a real date, 2000 to 9999) → its first millisecond; a FieldError naming `day` otherwise. */
export function dayStart(value: unknown): number {
  const m = typeof value === 'string' ? DAY_PATTERN.exec(value) : null;
  const start = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number(m[1]) < 2000 || new Date(start).toISOString().slice(0, 10) !== value) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : JSON.stringify(value ?? null);
    throw new FieldError(`day: must be a UTC day YYYY-MM-DD from 2000-01-01, got ${shown}`);
  }
  return start;
}

/** The SELECT of a dataset's rows of `[from, to)` (a day, or a slice of one), in the file's order. */
export function daySelect(dataset: Dataset, from: number, to = from + DAY_MS): string {
  const columns = dataset.columns.map((c) => (c.sql ? `${c.sql} AS "${c.name}"` : `"${c.name}"`)).join(', ');
  const order = dataset.order
    .map((name) => dataset.columns.find((c) => c.name === name)?.sql ?? `"${name}"`)
    .join(', ');
  return `SELECT ${columns} FROM ${dataset.table} WHERE ${dayWhere(dataset, from, to)} ORDER BY ${order}`;
}

/** The bounds `[from, to)` on the dataset's time column (by default the day starting at `from`). */
export function dayWhere(dataset: Dataset, from: number, to = from + DAY_MS): string {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to))
    throw new Error(`bounds must be integers: ${from}, ${to}`);
  return `${dataset.time} >= ${from} AND ${dataset.time} < ${to}`;
}

export { DAY_MS };
