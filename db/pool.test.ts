// eachTextRow: rows as Postgres's text, in order, as they arrive; failures reject and leave the pool usable. What
// counts as "storage unavailable", and the pool's limits. (Postgres stalled and killed: test/outage.test.ts.)

import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextRow } from '../platform/json-text.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { createPool, databaseStatus, eachTextRow, UPKEEP_APPLICATION, upkeepPool, writerPool } from './pool.ts';
import { isStorageUnavailable, StorageUnavailableError } from './unavailable.ts';

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

describe('storage unavailable', () => {
  it('is a statement cancelled by the statement timeout, a refused connection, a server that does not answer', async () => {
    const url = new URL(db.url);
    const slow = createPool(url.toString(), 1, { connectTimeoutMs: 2000, statementTimeoutMs: 200 });
    try {
      const cancelled = await slow.query('SELECT pg_sleep(2)').catch((err: unknown) => err);
      expect((cancelled as { code?: string }).code).toBe('57014');
      expect(isStorageUnavailable(cancelled)).toBe(true);
      // The pool is usable afterwards.
      expect((await slow.query('SELECT 1 AS n')).rows[0].n).toBe(1);
    } finally {
      await slow.end();
    }

    // A port where nothing listens: refused.
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    url.port = String(closed);
    const refused = createPool(url.toString(), 1);
    try {
      expect(isStorageUnavailable(await refused.query('SELECT 1').catch((err: unknown) => err))).toBe(true);
      expect(await databaseStatus(refused)).toBe('down');
    } finally {
      await refused.end();
    }

    // A server that accepts the connection and never answers: the connect timeout.
    const silent = net.createServer(() => {}).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    url.port = String((silent.address() as net.AddressInfo).port);
    const stalled = createPool(url.toString(), 1, { connectTimeoutMs: 300, statementTimeoutMs: 300 });
    try {
      const started = Date.now();
      const err = await stalled.query('SELECT 1').catch((e: unknown) => e);
      expect(isStorageUnavailable(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await stalled.end();
      silent.close();
    }
  });

  it('is not a bad statement nor a bug', async () => {
    expect(isStorageUnavailable(await db.pool.query('SELECT nope').catch((err: unknown) => err))).toBe(false);
    expect(isStorageUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isStorageUnavailable(new Error('wrapped', { cause: new StorageUnavailableError('why') }))).toBe(true);
    expect(await databaseStatus(db.pool)).toBe('up');
  });
});

describe('the pools by role', () => {
  it("the upkeep's sets no statement limit (a week's index rebuild takes minutes), the writers' 30 s; each named", async () => {
    const setting = async (pool: ReturnType<typeof createPool>) => {
      try {
        return (
          await pool.query<{ timeout: string; name: string }>(
            `SELECT current_setting('statement_timeout') AS timeout, current_setting('application_name') AS name`,
          )
        ).rows[0];
      } finally {
        await pool.end();
      }
    };
    expect(await setting(upkeepPool(db.url))).toEqual({ timeout: '0', name: UPKEEP_APPLICATION });
    expect(await setting(writerPool(db.url))).toEqual({ timeout: '30s', name: 'hl-data-graph' });
  });
});
