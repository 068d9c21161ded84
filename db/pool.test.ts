// eachTextRow: rows as Postgres's text, in order, as they arrive; failures reject and leave the pool usable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { eachTextRow, type TextRow } from './pool.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const SERIES = `SELECT g, (g * 1.5)::numeric AS half, CASE WHEN g % 2 = 0 THEN NULL ELSE 'x"' || g END AS s,
  g % 3 = 0 AS b FROM generate_series(1, $1::int) g ORDER BY g`;

describe('eachTextRow', () => {
  it('hands every row over in order as text, NULL as null, many wire chunks included', async () => {
    const rows: TextRow[] = [];
    await eachTextRow(db.pool, { text: SERIES, values: [20_000] }, (row) => rows.push(row));
    expect(rows).toHaveLength(20_000);
    expect(rows[0]).toEqual(['1', '1.5', 'x"1', 'f']);
    expect(rows[1]).toEqual(['2', '3.0', null, 'f']);
    expect(rows[19_999]).toEqual(['20000', '30000.0', null, 'f']);
    expect(rows.every((r, i) => r[0] === String(i + 1))).toBe(true);
  });

  it('rejects with the statement error and with a throw from the row handler; the pool keeps working', async () => {
    await expect(eachTextRow(db.pool, { text: 'SELECT nope FROM nowhere' }, () => {})).rejects.toThrow(/nowhere/);
    let seen = 0;
    await expect(
      eachTextRow(db.pool, { text: SERIES, values: [1000] }, () => {
        if (++seen === 10) throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    // The handler is not called again after its throw.
    expect(seen).toBe(10);
    const { rows } = await db.pool.query<{ n: number }>('SELECT 1 AS n');
    expect(rows[0]?.n).toBe(1);
    expect(db.pool.totalCount).toBeLessThanOrEqual(12);
    expect(db.pool.waitingCount).toBe(0);
  });
});
