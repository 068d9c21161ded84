// Batch: rows encoded as COPY text bytes reach Postgres exactly (escapes, NULLs, multi-byte text, a buffer that
// grows many times), and a rollback to a mark drops exactly what followed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../db/pool.ts';
import type { TableSpec } from '../db/rows/table.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { Batch } from './batch.ts';

interface Row {
  id: number;
  label: string | null;
  flag: boolean;
  doc: { a: string } | null;
}

const spec: TableSpec<Row> = { table: 'batch_test', columns: ['id', 'label', 'flag', 'doc'], conflict: 'append' };
const staged: TableSpec<Row> = { ...spec, table: 'batch_test_staged', conflict: 'ignore' };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  for (const t of [spec.table, staged.table]) {
    await db.pool.query(`CREATE TABLE ${t} (id int PRIMARY KEY, label text, flag boolean, doc jsonb)`);
  }
});
afterAll(() => db.drop());

const write = (batch: Batch) => inTransaction(db.pool, (client) => batch.write(client));

const label = (i: number) => (i % 7 === 0 ? null : `row ${i}: tab\there, line\nbreak, back\\slash, é€😀`);

describe('Batch', () => {
  it('writes 30 000 rows (many buffer growths, several COPY chunks) exactly as added', async () => {
    const batch = new Batch();
    for (let i = 0; i < 30_000; i++) {
      batch.add(spec, { id: i, label: label(i), flag: i % 2 === 0, doc: i % 3 ? { a: `é${i}` } : null });
    }
    await write(batch);
    const { rows } = await db.pool.query<Row>(`SELECT id, label, flag, doc FROM ${spec.table} ORDER BY id`);
    expect(rows).toHaveLength(30_000);
    for (const i of [0, 1, 7, 12_345, 29_999]) {
      expect(rows[i]).toEqual({ id: i, label: label(i), flag: i % 2 === 0, doc: i % 3 ? { a: `é${i}` } : null });
    }
  });

  it('drops what followed a mark on rollback, multi-byte rows included, and keeps what preceded it', async () => {
    const batch = new Batch();
    batch.add(staged, { id: 1, label: 'kept é', flag: true, doc: null });
    const mark = batch.mark();
    batch.add(staged, { id: 2, label: 'dropped 😀', flag: false, doc: null });
    batch.add(staged, { id: 3, label: 'dropped too', flag: false, doc: null });
    batch.rollback(mark);
    expect(batch.rows).toBe(1);
    batch.add(staged, { id: 4, label: 'after €', flag: false, doc: null });
    // Staged tables skip rows already there.
    batch.add(staged, { id: 1, label: 'duplicate', flag: false, doc: null });
    await write(batch);
    const { rows } = await db.pool.query(`SELECT id, label FROM ${staged.table} ORDER BY id`);
    expect(rows).toEqual([
      { id: 1, label: 'kept é' },
      { id: 4, label: 'after €' },
    ]);
  });
});
