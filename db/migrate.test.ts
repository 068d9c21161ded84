// Migrations apply to an empty database, re-apply as a no-op, refuse an edited file and serialize concurrent runs.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listMigrations, migrate, statementsOf } from './migrate.ts';
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
    const defs = rows.map((r) => r.indexdef.replace(/ USING btree/, '').replace(' ON ONLY ', ' ON ')).join('\n');
    for (const path of [
      'accounts.fills (address, "time")',
      'accounts.fills ("time", block_number DESC)',
      'accounts.fills (coin, "time")',
      'accounts.order_statuses (address, oid, "time" DESC)',
      'accounts.order_statuses (address, cloid)',
      'accounts.funding_payments (address, "time")',
      'accounts.ledger_updates (address, "time", block_number, hash, md5((delta)::text))',
      'markets.trades (coin, "time")',
      'markets.reserve_samples (token, "time")',
      'markets.candles (coin, "interval", t)',
      'evm.token_holders (token, balance_raw DESC, address)',
      'hip4.fills (outcome_id, "time")',
    ]) {
      expect(defs).toContain(`ON ${path}`);
    }
  });

  it('keeps every time-leading index ascending (new rows at its right end, pages full), read backward', async () => {
    const { rows } = await pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname IN ('markets','accounts','hip4','evm','analytics')`,
    );
    // The first column ordered by time (time, an oid, closed_at), first or after the equality keys, descending.
    const timeDescending = /\((?:(?!"time"|oid|closed_at)\w+, )*(?:"time"|oid|closed_at) DESC/;
    expect(timeDescending.test('ON accounts.fills USING btree (address, "time" DESC, tid)')).toBe(true);
    expect(timeDescending.test('ON accounts.order_statuses USING btree (address, oid, "time" DESC)')).toBe(false);
    expect(rows.map((r) => r.indexdef).filter((d) => timeDescending.test(d))).toEqual([]);
  });
});

describe('a no-transaction migration', () => {
  async function dirWith(file: string, sql: string): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
    await fs.cp(path.join(import.meta.dirname, 'migrations'), dir, { recursive: true });
    await fs.mkdir(path.join(dir, 'zz'), { recursive: true });
    await fs.writeFile(path.join(dir, 'zz', file), sql);
    return dir;
  }

  it('builds an index concurrently, statement by statement, and is recorded once done', async () => {
    await migrate(pool);
    const dir = await dirWith(
      '9001_concurrent.sql',
      '-- migrate: no transaction\n-- a comment; with a semicolon\nCREATE TABLE markets.cc (x int);\n' +
        'CREATE INDEX CONCURRENTLY cc_x\n  ON markets.cc (x);\n',
    );
    expect(await migrate(pool, dir)).toEqual(['zz/9001_concurrent.sql']);
    const { rows } = await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'cc'`);
    expect(rows).toEqual([{ indexname: 'cc_x' }]);
    expect(await migrate(pool, dir)).toEqual([]);
  });

  it('stopped half way keeps what ran, is not recorded, and runs again from its first statement', async () => {
    await migrate(pool);
    const head = '-- migrate: no transaction\nCREATE TABLE IF NOT EXISTS markets.half (x int);\n';
    const broken = await dirWith('9002_half.sql', `${head}SELECT no_such_function();\n`);
    await expect(migrate(pool, broken)).rejects.toThrow(
      /migration zz\/9002_half.sql failed at statement 2 of 2: .*no_such_function.*the statements before it stay applied/,
    );
    const half = await pool.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half'`);
    expect(half.rowCount).toBe(1);
    const recorded = await pool.query(`SELECT 1 FROM platform.schema_migrations WHERE version = '9002'`);
    expect(recorded.rowCount).toBe(0);
    const mended = await dirWith(
      '9002_half.sql',
      `${head}CREATE INDEX CONCURRENTLY IF NOT EXISTS half_x ON markets.half (x);\n`,
    );
    expect(await migrate(pool, mended)).toEqual(['zz/9002_half.sql']);
  });

  it('runs each statement a query ended by \\gexec answers, in order, each on its own (CREATE INDEX CONCURRENTLY)', async () => {
    await migrate(pool);
    const dir = await dirWith(
      '9004_gexec.sql',
      '-- migrate: no transaction\nCREATE TABLE IF NOT EXISTS markets.gx (a int, b int);\n' +
        "SELECT format('CREATE INDEX CONCURRENTLY IF NOT EXISTS %I ON markets.gx (%I)', 'gx_' || c, c), NULL\n" +
        "  FROM unnest(ARRAY['a', 'b']) c ORDER BY c\n\\gexec\n",
    );
    expect(await migrate(pool, dir)).toEqual(['zz/9004_gexec.sql']);
    const { rows } = await pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = 'gx' ORDER BY 1`);
    expect(rows).toEqual([{ indexname: 'gx_a' }, { indexname: 'gx_b' }]);
    const broken = await dirWith(
      '9005_gexec.sql',
      "-- migrate: no transaction\nSELECT 'SELECT no_such_function()'\n\\gexec\n",
    );
    await expect(migrate(pool, broken)).rejects.toThrow(
      /migration zz\/9005_gexec.sql failed at statement 1 of 1 \(SELECT no_such_function\(\), one it answered\)/,
    );
  });

  it('splits at the end of a line ending with ";" outside $$ bodies (a DO block one statement), and refuses one left open', async () => {
    const sql =
      '-- migrate: no transaction\nDO $$\nBEGIN\n  PERFORM 1;\nEND $$;\n-- a; comment\nSELECT 1;\nSELECT\n  2;\n';
    expect(statementsOf({ name: 'x', sql })).toEqual(['DO $$\nBEGIN\n  PERFORM 1;\nEND $$', 'SELECT 1', 'SELECT\n  2']);
    expect(
      statementsOf({ name: 'x', sql: "-- migrate: no transaction\nSELECT 'SELECT 1'\n\\gexec\nSELECT 3;\n" }),
    ).toEqual(["SELECT 'SELECT 1'\n\\gexec", 'SELECT 3']);
    const dir = await dirWith('9003_body.sql', '-- migrate: no transaction\nDO $$ BEGIN\nPERFORM 1;\n');
    await expect(listMigrations(dir)).rejects.toThrow('migration zz/9003_body.sql: a $$ body is not closed');
  });
});
