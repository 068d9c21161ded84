// A batch of rows on its way to Postgres: encoded as COPY text as rows arrive, written in one transaction with
// the stream's checkpoint, and the rows' live events published once that transaction commits.

import type pg from 'pg';
import { copyInto, copyValue } from '../db/copy.ts';
import { isPartitioned } from '../db/partitions.ts';
import { WRITE_STATEMENT_TIMEOUT_MS } from '../db/pool.ts';
import type { TableSpec } from '../db/rows/table.ts';
import { lockSharedRows } from '../db/shared-rows.ts';

type AnySpec = TableSpec<never>;

/** How long one statement writing a batch may take, on the server and on the wire. */
export const INGEST_STATEMENT_TIMEOUT_MS = WRITE_STATEMENT_TIMEOUT_MS;

interface Statement {
  sql: string;
  params: unknown[];
}

export interface BatchMark {
  /** Bytes of COPY text per table. */
  lengths: Map<AnySpec, number>;
  statements: number;
  /** Rows gathered per statement (`collect`). */
  collected: Map<string, number>;
  events: Map<string, number>;
  rows: number;
}

/** One row as a line of COPY text format. */
export function copyLine<R>(spec: TableSpec<R>, row: R): string {
  let line = '';
  const cols = spec.columns;
  for (let i = 0; i < cols.length; i++) {
    if (i) line += '\t';
    line += copyValue(row[cols[i] as keyof R]);
  }
  return `${line}\n`;
}

/**
 * A table's rows as COPY text, encoded into one growing buffer as they are added. Kept as bytes, not as a string per
 * row: a batch holds tens of thousands of rows until it commits, and as strings (each line a rope of its columns)
 * every scavenge copied them, 30-50 ms each, about 40% of ingest's time; bytes sit outside the heap.
 */
class CopyText {
  private buf = Buffer.allocUnsafe(64 * 1024);
  length = 0;

  append(line: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    const room = line.length * 3;
    if (this.length + room > this.buf.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + room));
      this.buf.copy(bigger, 0, 0, this.length);
      this.buf = bigger;
    }
    this.length += this.buf.write(line, this.length, 'utf8');
  }

  get bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

export class Batch {
  private readonly copies = new Map<AnySpec, CopyText>();
  private readonly statements: Statement[] = [];
  /** Per statement of `collect`, its parameters: one array per column, a row at each index. */
  private readonly collected = new Map<string, unknown[][]>();
  private readonly events = new Map<string, unknown[]>();
  /** Per partitioned table (db/partitions.ts), the earliest and latest `time` of its rows: the periods to make. */
  private readonly spans = new Map<string, { min: number; max: number }>();
  rows = 0;

  add<R>(spec: TableSpec<R>, row: R): void {
    const key = spec as unknown as AnySpec;
    let copy = this.copies.get(key);
    if (!copy) {
      copy = new CopyText();
      this.copies.set(key, copy);
    }
    copy.append(copyLine(spec, row));
    this.rows++;
    if (isPartitioned(spec.table)) {
      const time = (row as { time: number }).time;
      const span = this.spans.get(spec.table);
      if (!span) this.spans.set(spec.table, { min: time, max: time });
      else if (time < span.min) span.min = time;
      else if (time > span.max) span.max = time;
    }
  }

  /** The periods (days, weeks) its rows fall in, per partitioned table: made (`makePartitions`) before its transaction. */
  get periods(): ReadonlyMap<string, { min: number; max: number }> {
    return this.spans;
  }

  /** A statement run inside the batch's transaction, after the COPYs (upserts of registries and balances). */
  exec(sql: string, params: unknown[]): void {
    this.statements.push({ sql, params });
  }

  /**
   * A row for a statement run once per batch, after `exec`'s, its parameters one array per column (`$1::text[]`, ...;
   * the statement unnests them): a rollup kept in ingest's transaction then costs one upsert per batch, not one per
   * block.
   */
  collect(sql: string, row: readonly unknown[]): void {
    let columns = this.collected.get(sql);
    if (!columns) {
      columns = row.map(() => []);
      this.collected.set(sql, columns);
    }
    for (let i = 0; i < row.length; i++) columns[i]?.push(row[i]);
  }

  /** Queues a live event, published only after the batch commits. */
  publish(topic: string, item: unknown): void {
    let items = this.events.get(topic);
    if (!items) {
      items = [];
      this.events.set(topic, items);
    }
    items.push(item);
  }

  mark(): BatchMark {
    return {
      lengths: new Map([...this.copies].map(([k, v]) => [k, v.length])),
      statements: this.statements.length,
      collected: new Map([...this.collected].map(([k, v]) => [k, v[0]?.length ?? 0])),
      events: new Map([...this.events].map(([k, v]) => [k, v.length])),
      rows: this.rows,
    };
  }

  /** Drops everything added since `mark` (a line that turned out malformed halfway through). */
  rollback(mark: BatchMark): void {
    for (const [k, v] of this.copies) v.length = mark.lengths.get(k) ?? 0;
    for (const [k, v] of this.events) v.length = mark.events.get(k) ?? 0;
    this.statements.length = mark.statements;
    for (const [k, v] of this.collected) for (const column of v) column.length = mark.collected.get(k) ?? 0;
    this.rows = mark.rows;
  }

  get empty(): boolean {
    return this.rows === 0 && this.statements.length === 0 && this.events.size === 0 && !this.collectedRows;
  }

  private get collectedRows(): number {
    let n = 0;
    for (const columns of this.collected.values()) n += columns[0]?.length ?? 0;
    return n;
  }

  /**
   * Writes every table's rows and runs the statements; the caller owns the transaction. Each statement may take
   * `timeoutMs` (longer than the service's limit for answers: a batch is tens of thousands of rows), after which the
   * connection is given up (a stalled server).
   *
   * With `shared`, the statements run under a transaction lock of that name (db/shared-rows.ts): lanes of one stream
   * (the present and a backfill) upsert the same rows (token holders' balances and registries, a statement per block;
   * the HIP-3 rollup, one per batch), so two batches would otherwise take those rows' locks in different orders and
   * deadlock. The COPYs, of rows no other lane writes, run before the lock and in parallel.
   */
  async write(
    client: pg.PoolClient,
    { timeoutMs = INGEST_STATEMENT_TIMEOUT_MS, shared }: { timeoutMs?: number; shared?: string } = {},
  ): Promise<void> {
    const query = (text: string) => client.query({ text, query_timeout: timeoutMs } as pg.QueryConfig);
    for (const [spec, copy] of this.copies) {
      if (!copy.length) continue;
      const cols = spec.columns.join(', ');
      if (spec.conflict === 'append') {
        await copyInto(client, `${spec.table} (${cols})`, copy.bytes, timeoutMs);
      } else {
        const stage = `stage_${spec.table.replace('.', '_')}`;
        await query(
          `CREATE TEMP TABLE IF NOT EXISTS ${stage} (LIKE ${spec.table} INCLUDING DEFAULTS) ON COMMIT DELETE ROWS`,
        );
        await copyInto(client, `${stage} (${cols})`, copy.bytes, timeoutMs);
        await query(`INSERT INTO ${spec.table} (${cols}) SELECT ${cols} FROM ${stage} ON CONFLICT DO NOTHING`);
      }
    }
    const collected = [...this.collected].filter(([, columns]) => columns[0]?.length);
    if (shared !== undefined && (this.statements.length || collected.length)) {
      await lockSharedRows(client, shared, timeoutMs);
    }
    const statements = [...this.statements, ...collected.map(([sql, params]) => ({ sql, params }))];
    for (const s of statements) {
      await client.query({ text: s.sql, values: s.params, query_timeout: timeoutMs } as pg.QueryConfig);
    }
  }

  eventsByTopic(): Map<string, unknown[]> {
    return this.events;
  }
}
