// Batch: rows encoded as COPY text bytes reach Postgres exactly (escapes, NULLs, multi-byte text, a buffer that
// grows many times), a rollback to a mark drops exactly what followed it, and collected rows make one statement.
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

  it("runs two lanes' statements on shared rows in turn: no deadlock where they take the rows in opposite orders", async () => {
    await db.pool.query('CREATE TABLE batch_test_shared (id int PRIMARY KEY, n int NOT NULL)');
    await db.pool.query('INSERT INTO batch_test_shared VALUES (1, 0), (2, 0)');
    // One statement per block, as the evm holders' are: lane A touches row 1 then row 2, lane B row 2 then row 1,
    // each pausing between its two blocks, as a long batch does.
    const lane = (first: number, second: number) => {
      const batch = new Batch();
      const bump = (id: number) => batch.exec('UPDATE batch_test_shared SET n = n + 1 WHERE id = $1', [id]);
      bump(first);
      batch.exec('SELECT pg_sleep(1)', []);
      bump(second);
      return batch;
    };
    const both = (shared?: string) =>
      Promise.allSettled(
        [lane(1, 2), lane(2, 1)].map((b) => inTransaction(db.pool, (client) => b.write(client, { shared }))),
      );
    // Without the lock Postgres ends one of them (the check that the test can fail)...
    const unguarded = await both();
    expect(
      unguarded.map((r) => (r.status === 'rejected' ? (r.reason as { code?: string }).code : 'ok')).sort(),
    ).toEqual(['40P01', 'ok']);
    // ... with it, both commit.
    const guarded = await both('evm_blocks_by_block');
    expect(guarded.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const { rows } = await db.pool.query('SELECT id, n FROM batch_test_shared ORDER BY id');
    expect(rows).toEqual([
      { id: 1, n: 3 },
      { id: 2, n: 3 },
    ]);
  });

  it('runs the rows collected for a statement as one statement, after a rollback without those that followed its mark', async () => {
    await db.pool.query('CREATE TABLE batch_test_sums (k text PRIMARY KEY, n int NOT NULL, total numeric NOT NULL)');
    const sum = `INSERT INTO batch_test_sums AS s (k, n, total)
      SELECT k, count(*), sum(v) FROM unnest($1::text[], $2::numeric[]) AS u(k, v) GROUP BY k
      ON CONFLICT (k) DO UPDATE SET n = s.n + EXCLUDED.n, total = s.total + EXCLUDED.total`;
    const batch = new Batch();
    batch.collect(sum, ['a', '1.5']);
    batch.collect(sum, ['b', '2']);
    const mark = batch.mark();
    batch.collect(sum, ['a', '100']);
    batch.rollback(mark);
    batch.collect(sum, ['a', '0.25']);
    expect(batch.empty).toBe(false);
    const statements: string[] = [];
    await inTransaction(db.pool, async (client) => {
      const query = client.query.bind(client);
      client.query = ((config: { text?: string }, ...rest: unknown[]) => {
        statements.push(typeof config === 'string' ? config : (config.text ?? ''));
        return (query as (...args: unknown[]) => unknown)(config, ...rest);
      }) as typeof client.query;
      await batch.write(client, { shared: 'test' });
      client.query = query;
    });
    // The shared rows' lock, then the one statement.
    expect(statements).toEqual(['SELECT pg_advisory_xact_lock($1, hashtext($2))', sum]);
    const { rows } = await db.pool.query('SELECT k, n, total::text FROM batch_test_sums ORDER BY k');
    expect(rows).toEqual([
      { k: 'a', n: 2, total: '1.75' },
      { k: 'b', n: 1, total: '2' },
    ]);
  });
});
