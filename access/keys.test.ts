// `npm run keys`: the key is printed alone, stored only hashed, listed without its secret, and revocable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../test/cli.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { CreditLedger } from './credits.ts';
import { findKey, hashKey } from './keys.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

const keys = (...args: string[]) => runCli('access/keys-cli.ts', args, { DATABASE_URL: db.url });

describe('npm run keys', () => {
  it('creates a key, prints it alone on stdout and stores only its hash', async () => {
    const created = await keys('create', '--scope', 'mcp', '--credits', '500', '--label', 'claude desktop');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^hlk_[A-Za-z0-9_-]{32}\n$/);
    const key = created.stdout.trim();

    const { rows } = await db.pool.query('SELECT * FROM platform.api_keys');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ key_hash: hashKey(key), scope: 'mcp', credits: 500, label: 'claude desktop' });
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(await findKey(db.pool, key)).toMatchObject({ scope: 'mcp', credits: 500 });
    expect(await findKey(db.pool, `${key}x`)).toBeNull();

    const listed = await keys('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(key.slice(0, 10));
    expect(listed.stdout).not.toContain(key);

    const revoked = await keys('revoke', String(rows[0].id));
    expect(revoked.stdout).toBe('revoked 1 key\n');
    expect(await findKey(db.pool, key)).toBeNull();
  });

  it('creates a key with credits and a rate limit; list shows the credits left and the usage per day', async () => {
    const created = await keys('create', '--scope', 'data', '--credits', '50', '--rate-limit', '7', '--label', 'paid');
    expect(created.code).toBe(0);
    const record = await findKey(db.pool, created.stdout.trim());
    expect(record).toMatchObject({ credits: 50, rateLimitPerMin: 7 });
    const id = record?.id as number;
    const ledger = new CreditLedger(db.pool);
    await ledger.charge({ id, credits: 50 }, 20, 'mcp');
    await ledger.charge({ id, credits: 50 }, 40, 'mcp');
    await ledger.charge({ id, credits: 50 }, 1, 'rest');
    await ledger.close();

    const listed = (await keys('list')).stdout;
    const today = new Date().toISOString().slice(0, 10);
    expect(listed).toContain(`${id}\t${record?.prefix}…\tdata\t7/min\tcredits 29\tactive\tpaid\n`);
    expect(listed).toContain(`\tusage ${today} mcp: 1 calls, 20 credits, 1 refused for credits\n`);
    expect(listed).toContain(`\tusage ${today} rest: 1 calls, 1 credits\n`);
  });

  it('rejects a bad scope, a bad credit count and an unknown command', async () => {
    for (const args of [['create', '--scope', 'admin'], ['create', '--scope', 'data', '--credits=-1'], ['rotate']]) {
      const r = await keys(...args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/usage: npm run keys/);
    }
    const r = await keys('create', '--scope', 'data', '--credits=-1');
    expect(r.stderr).toContain('--credits must be an integer >= 0, got "-1"');
  });
});
