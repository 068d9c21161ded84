// The key rule while storage is unavailable (issue 29): a key checked before keeps its last answer for as long as
// storage cannot be asked (a lookup fails, or hangs past 200 ms), so that what needs no storage keeps flowing; a key
// never checked is refused with 503; while storage answers, a revoked key is refused once its 10 s have passed.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { Authenticator } from './auth.ts';
import { createKey, revokeKey } from './keys.ts';

let db: TestDatabase;
/** What the pool the authenticator reads does: answer, fail as a dead server does, or hang as a stalled one. */
let storage: 'up' | 'down' | 'stalled' = 'up';
let clock = Date.now();

/** The test database's pool, behind the storage switch. */
function switchedPool(real: pg.Pool): pg.Pool {
  return {
    query: (...args: unknown[]) => {
      if (storage === 'down') return Promise.reject(new Error('Connection terminated unexpectedly'));
      if (storage === 'stalled') return new Promise(() => {});
      return (real.query as (...a: unknown[]) => Promise<unknown>)(...args);
    },
  } as unknown as pg.Pool;
}

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

describe('keys while storage is unavailable', () => {
  it('a key checked before stays admitted through a stall and a failure; one never checked is 503', async () => {
    storage = 'up';
    const auth = new Authenticator(switchedPool(db.pool), { now: () => clock });
    const { key } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 });
    const { key: unchecked } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 });
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    expect(await auth.keyRequired()).toBe(true);

    storage = 'stalled';
    clock += 11_000;
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true, key: { scope: 'data' } });
    expect(await auth.keyRequired()).toBe(true);
    storage = 'down';
    clock += 30_000;
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    expect(await auth.checkKey(unchecked, 'rest')).toEqual({
      ok: false,
      status: 503,
      code: 'storage_unavailable',
      error: 'storage unavailable',
    });
    expect(await auth.checkKey(null, 'rest')).toMatchObject({ ok: false, status: 401 });
  });

  it('while storage answers, a revoked key is refused once its cached answer expired', async () => {
    storage = 'up';
    const auth = new Authenticator(switchedPool(db.pool), { now: () => clock });
    const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 });
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    await revokeKey(db.pool, String(record.id));
    clock += 5_000;
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    clock += 6_000;
    expect(await auth.checkKey(key, 'rest')).toEqual({
      ok: false,
      status: 401,
      code: 'revoked_key',
      error: 'invalid api key',
    });
  });

  it('after an outage, the next lookup reads storage again (a revocation made meanwhile takes effect)', async () => {
    storage = 'up';
    const auth = new Authenticator(switchedPool(db.pool), { now: () => clock });
    const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 });
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    storage = 'down';
    clock += 11_000;
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: true });
    storage = 'up';
    await revokeKey(db.pool, String(record.id));
    clock += 2_000;
    expect(await auth.checkKey(key, 'rest')).toMatchObject({ ok: false, status: 401, code: 'revoked_key' });
  });
});
