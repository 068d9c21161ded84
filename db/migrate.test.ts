// Migrations apply to an empty database, re-apply as a no-op, refuse an edited file and serialize concurrent runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listMigrations, migrate } from './migrate.ts';
import { createPool } from './pool.ts';

const name = `hl_migrate_${process.pid}_${Date.now()}`;
let pool: pg.Pool;

beforeAll(async () => {
  const admin = new pg.Client(inject('pgAdminUrl'));
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${name}`;
  pool = createPool(url.toString());
});
afterAll(async () => {
  await pool.end();
  const admin = new pg.Client(inject('pgAdminUrl'));
  await admin.connect();
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
});

describe('migrations', () => {
  it('apply concurrently exactly once, then re-apply as a no-op', async () => {
    const all = await listMigrations();
    const [a, b] = await Promise.all([migrate(pool), migrate(pool)]);
    expect([...a, ...b].sort()).toEqual(all.map((m) => m.name).sort());
    expect(await migrate(pool)).toEqual([]);
    const { rows } = await pool.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname IN ('platform','markets','accounts','hip4','evm','analytics') ORDER BY 1`,
    );
    expect(rows.map((r) => r.nspname)).toEqual(['accounts', 'analytics', 'evm', 'hip4', 'markets', 'platform']);
  });

  it('refuses to run when an applied migration was edited', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
    const src = path.join(import.meta.dirname, 'migrations');
    await fs.cp(src, dir, { recursive: true });
    await fs.appendFile(path.join(dir, 'markets', '0002_markets.sql'), '\n-- edited\n');
    await expect(migrate(pool, dir)).rejects.toThrow(
      'migration markets/0002_markets.sql was changed after it was applied; add a new migration instead',
    );
  });

  it('rolls back a failing migration whole', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
    await fs.cp(path.join(import.meta.dirname, 'migrations'), dir, { recursive: true });
    await fs.mkdir(path.join(dir, 'zz'));
    await fs.writeFile(
      path.join(dir, 'zz', '9999_broken.sql'),
      'CREATE TABLE markets.half_done (x int);\nSELECT no_such_function();',
    );
    await expect(migrate(pool, dir)).rejects.toThrow(/migration zz\/9999_broken.sql failed/);
    const { rowCount } = await pool.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half_done'`);
    expect(rowCount).toBe(0);
  });

  it('indexes every access path the endpoints use', async () => {
    const { rows } = await pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname IN ('markets','accounts','hip4','evm')`,
    );
    const defs = rows.map((r) => r.indexdef.replace(/ USING btree/, '')).join('\n');
    for (const path of [
      'accounts.fills (address, "time" DESC, block_number, event_index, tid)',
      'accounts.fills ("time" DESC, block_number, event_index, tid)',
      'accounts.fills (oid)',
      'accounts.fills (coin, "time" DESC)',
      'accounts.order_statuses (address, oid DESC, "time")',
      'accounts.order_statuses (address, cloid)',
      'accounts.funding_payments (address, "time" DESC)',
      'accounts.ledger_updates (address, "time" DESC)',
      'markets.trades (coin, "time" DESC)',
      'markets.reserve_samples (token, "time")',
      'markets.candles (coin, "interval", t)',
      'evm.token_holders (token, balance_raw DESC, address)',
      'hip4.fills (outcome_id, "time" DESC)',
    ]) {
      expect(defs).toContain(`ON ${path}`);
    }
  });
});
