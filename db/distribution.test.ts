// The schema stays ready for Citus: every table is placed (db/distribution.ts), every unique key of a distributed
// table holds its distribution column (Citus refuses one that does not), and docs/scale.md gives the statements the
// declaration makes.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { citusStatements, DISTRIBUTION } from './distribution.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db?.drop());

const SCHEMAS = ['accounts', 'analytics', 'markets', 'hip4', 'evm', 'platform'];

describe('the tables on a Citus cluster', () => {
  it('places every table of the service, and only those', async () => {
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT c.oid::regclass::text AS name FROM pg_class c
        WHERE c.relnamespace::regnamespace::text = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        ORDER BY 1`,
      [SCHEMAS],
    );
    expect(Object.keys(DISTRIBUTION).sort()).toEqual(rows.map((r) => r.name).sort());
  });

  it('keeps the distribution column in every unique key of a distributed table, the user in a per-user one', async () => {
    const { rows } = await db.pool.query<{ table: string; key: string; columns: string[] }>(
      `SELECT i.indrelid::regclass::text AS table, i.indexrelid::regclass::text AS key,
              array(SELECT a.attname::text FROM pg_attribute a
                     WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey::int2[])) AS columns
         FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
        WHERE i.indisunique AND NOT c.relispartition AND c.relnamespace::regnamespace::text = ANY($1)`,
      [SCHEMAS],
    );
    const missing = rows.filter((r) => {
      const p = DISTRIBUTION[r.table];
      return typeof p === 'object' && !r.columns.includes(p.by);
    });
    expect(missing).toEqual([]);
    // And the distribution columns exist (a renamed column would leave the declaration pointing at nothing).
    for (const [table, p] of Object.entries(DISTRIBUTION)) {
      if (typeof p !== 'object') continue;
      const [schema, name] = table.split('.');
      const { rowCount } = await db.pool.query(
        'SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = $3',
        [schema, name, p.by],
      );
      expect(rowCount, `${table}.${p.by}`).toBe(1);
    }
  });

  it('is what docs/scale.md tells an operator to run', async () => {
    const doc = await fs.readFile(path.join(import.meta.dirname, '../docs/scale.md'), 'utf8');
    const block = /```sql citus\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(block?.trim().split('\n')).toEqual(citusStatements());
  });
});
