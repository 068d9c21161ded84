// A stored table as a dataset `npm run export` and GET /export/<dataset>/<day>.parquet publish (export/): described
// by the domain that owns the table (in its port), written by export/ as Parquet a UTC day at a time.

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

export interface ExportedTable {
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

export const col = (name: string, kind: ColumnKind, sql?: string): ExportColumn =>
  sql ? { name, kind, sql } : { name, kind };
