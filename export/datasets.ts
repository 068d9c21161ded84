// The datasets `npm run export` and `GET /export/<dataset>/<day>.parquet` write, by name: each a stored table as its
// domain describes it for export (kit/export-table.ts, in the domain's port: its columns with the Parquet type each
// becomes, the order of its rows in a file and the key that names a row's position). A day is the UTC day of the
// table's time column.

import { FILLS_EXPORT, FUNDING_EXPORT, LEDGER_EXPORT } from '../domains/accounts/port.ts';
import { BOOKS_EXPORT, CANDLES_EXPORT, TRADES_EXPORT } from '../domains/markets/port.ts';
import type { ExportedTable } from '../kit/export-table.ts';
import { FieldError } from '../platform/fields.ts';

export const DATASET_NAMES = ['fills', 'trades', 'candles', 'funding', 'ledger', 'books'] as const;
export type DatasetName = (typeof DATASET_NAMES)[number];

export interface Dataset extends ExportedTable {
  name: DatasetName;
}

export const DATASETS: Readonly<Record<DatasetName, Dataset>> = {
  fills: { name: 'fills', ...FILLS_EXPORT },
  trades: { name: 'trades', ...TRADES_EXPORT },
  candles: { name: 'candles', ...CANDLES_EXPORT },
  funding: { name: 'funding', ...FUNDING_EXPORT },
  ledger: { name: 'ledger', ...LEDGER_EXPORT },
  books: { name: 'books', ...BOOKS_EXPORT },
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
