// Rate limits held across api instances: two instances (two RateWindows) over one database share a key's minute.
import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { createKey } from './keys.ts';
import { RateWindows } from './rate-windows.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

/** How many of `n` requests an instance admits. */
async function admitted(rates: RateWindows, keyId: number, limit: number, n: number): Promise<number> {
  let yes = 0;
  for (let i = 0; i < n; i++) if (await rates.admit(keyId, limit)) yes++;
  return yes;
}

describe('rate windows shared by instances', () => {
  it('gives a key its limit over two instances, not twice it, and a fresh window each minute', async () => {
    const { record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 10 });
    let now = Date.UTC(2026, 10, 25, 12, 0, 5);
    const a = new RateWindows(db.pool, () => now);
    const b = new RateWindows(db.pool, () => now);
    expect(await admitted(a, record.id, 10, 6)).toBe(6);
    await a.sync();
    // B's first request of the minute reads what A admitted.
    expect(await admitted(b, record.id, 10, 10)).toBe(4);
    await b.sync();
    // A learns of B's four at its next sync: until then it admits from what it knew (the slack of one sync).
    expect(await a.admit(record.id, 10)).toBe(true);
    await a.sync();
    expect(await admitted(a, record.id, 10, 3)).toBe(0);
    expect(await admitted(b, record.id, 10, 3)).toBe(0);
    const { rows } = await db.pool.query('SELECT minute, admitted FROM platform.rate_windows WHERE key_id = $1', [
      record.id,
    ]);
    expect(rows.map((r) => [Number(r.minute), Number(r.admitted)])).toEqual([[Math.floor(now / 60_000), 11]]);
    now += 60_000;
    expect(await admitted(a, record.id, 10, 12)).toBe(10);
    await a.sync();
    expect(await admitted(b, record.id, 10, 2)).toBe(0);
    await a.close();
    await b.close();
  });

  it('sees at once the first request another instance admitted in the minute, before any sync', async () => {
    const { record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1 });
    const now = Date.UTC(2026, 10, 25, 12, 1, 5);
    const a = new RateWindows(db.pool, () => now);
    const b = new RateWindows(db.pool, () => now);
    // A's first request of the minute is in the shared count when it is admitted: B's first finds the limit reached.
    expect(await admitted(a, record.id, 1, 2)).toBe(1);
    expect(await admitted(b, record.id, 1, 2)).toBe(0);
    await a.close();
    await b.close();
  });

  it('holds no request up on storage that does not answer: it counts alone meanwhile', async () => {
    // A server that accepts connections and never says a word: a stalled Postgres.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'x', database: 'x', connectionTimeoutMillis: 60_000 });
    pool.on('error', () => {});
    const rates = new RateWindows(pool);
    try {
      const started = Date.now();
      expect(await admitted(rates, 1, 3, 5)).toBe(3);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await rates.close();
      silent.close();
      void pool.end().catch(() => {});
    }
  });
});
