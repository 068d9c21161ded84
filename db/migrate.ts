// The migration runner: numbered .sql files under db/migrations/<schema>/, applied in number order, each in its
// own transaction and recorded with its checksum. Safe to re-run and to run concurrently (advisory lock).
//
// A migration whose first line is `-- migrate: no transaction` runs statement by statement instead, each committed
// on its own: what a large database needs (CREATE/DROP INDEX CONCURRENTLY, which Postgres refuses in a transaction,
// builds an index while ingest keeps writing). It is recorded once its last statement is done, so one that stops
// half way runs again from its first statement: such a file is written to be re-run (`IF EXISTS`, an index built
// under a new name and swapped in). Its statements end with `;` at the end of a line (a `$$` body is one statement).
// A query ended by `\gexec` instead (as in psql) is run, and each non-null column of each row it answers is then run as
// a statement of its own, in order: what a statement per partition needs (CREATE INDEX CONCURRENTLY, which no DO block
// or procedure may run).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type pg from 'pg';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
const LOCK_KEY = 0x686c6467; // "hldg"

export interface Migration {
  version: string; // "0003"
  name: string; // "accounts/0003_accounts.sql"
  sql: string;
  checksum: string;
  /** False for a `-- migrate: no transaction` file: its statements, each committed on its own. */
  transaction: boolean;
}

const NO_TRANSACTION = /^-- migrate: no transaction\s*$/m;

/** The end of a query whose answer is the statements to run (psql's `\gexec`), kept at the end of its statement. */
export const GEXEC = '\\gexec';

/**
 * The statements of a no-transaction migration: each ends where a line ends with `;` (or `\gexec`, kept) outside a
 * `$$` body (a DO block is one statement); comment lines are dropped. A `$$` left open is refused.
 */
export function statementsOf(m: Pick<Migration, 'name' | 'sql'>): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let inBody = false;
  for (const line of m.sql.split('\n')) {
    if (!inBody && line.trimStart().startsWith('--')) continue;
    current.push(line);
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inBody = !inBody;
    if (!inBody && /(;|\\gexec)\s*$/.test(line)) {
      statements.push(current.join('\n').trim().replace(/;$/, ''));
      current = [];
    }
  }
  if (inBody) throw new Error(`migration ${m.name}: a $$ body is not closed`);
  const rest = current.join('\n').trim();
  if (rest !== '') statements.push(rest);
  return statements;
}

export async function listMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const found: Migration[] = [];
  for (const schema of await fs.readdir(dir, { withFileTypes: true })) {
    if (!schema.isDirectory()) continue;
    for (const file of await fs.readdir(path.join(dir, schema.name))) {
      const match = /^(\d{4})_[\w-]+\.sql$/.exec(file);
      if (!match) continue;
      const sql = await fs.readFile(path.join(dir, schema.name, file), 'utf8');
      const name = `${schema.name}/${file}`;
      const transaction = !NO_TRANSACTION.test(sql.split('\n', 1)[0] ?? '');
      if (!transaction) statementsOf({ name, sql }); // refuses what it cannot split, before anything runs
      found.push({
        version: match[1] as string,
        name,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
        transaction,
      });
    }
  }
  found.sort((a, b) => a.version.localeCompare(b.version));
  for (let i = 1; i < found.length; i++) {
    if (found[i]?.version === found[i - 1]?.version) {
      throw new Error(`two migrations share version ${found[i]?.version}: ${found[i - 1]?.name}, ${found[i]?.name}`);
    }
  }
  return found;
}

const LOCK_POLL_MS = 100;

/**
 * The migrations' lock, asked for until given: a session blocked in `pg_advisory_lock` holds a snapshot, which a
 * concurrent index build (CREATE INDEX CONCURRENTLY, by the session that holds the lock) waits for: a deadlock.
 */
async function takeLock(client: pg.PoolClient): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LOCK_KEY]);
    if (rows[0]?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
}

/** Applies pending migrations; returns the names applied. Refuses to run if an applied file was edited. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const client = await pool.connect();
  try {
    await takeLock(client);
    await client.query(`CREATE SCHEMA IF NOT EXISTS platform;
      CREATE TABLE IF NOT EXISTS platform.schema_migrations (
        version text PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: string; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM platform.schema_migrations',
    );
    const applied = new Map(rows.map((r) => [r.version, r]));
    const done: string[] = [];
    for (const m of migrations) {
      const prior = applied.get(m.version);
      if (prior) {
        if (prior.checksum !== m.checksum) {
          throw new Error(`migration ${m.name} was changed after it was applied; add a new migration instead`);
        }
        continue;
      }
      if (m.transaction) await applyInTransaction(client, m);
      else await applyStatements(client, m);
      done.push(m.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
}

const RECORD = 'INSERT INTO platform.schema_migrations (version, name, checksum) VALUES ($1, $2, $3)';

async function applyInTransaction(client: pg.PoolClient, m: Migration): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(m.sql);
    await client.query(RECORD, [m.version, m.name, m.checksum]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    // The cause kept: a connection lost mid-migration is storage unavailable (db/unavailable.ts), retried at start.
    throw new Error(
      `migration ${m.name} failed: ${(err as Error).message} (rolled back: the schema is as it was before it; ` +
        'check the migration, and what in the database it meets)',
      { cause: err },
    );
  }
}

/** A no-transaction migration: each statement committed on its own, the record after the last. */
async function applyStatements(client: pg.PoolClient, m: Migration): Promise<void> {
  const statements = statementsOf(m);
  for (const [i, statement] of statements.entries()) {
    let running = statement;
    try {
      if (!statement.endsWith(GEXEC)) await client.query(statement);
      else {
        const { rows } = await client.query({ text: statement.slice(0, -GEXEC.length), rowMode: 'array' });
        for (const row of rows as unknown[][]) {
          for (const generated of row) {
            if (generated === null) continue;
            running = String(generated);
            await client.query(running);
          }
        }
      }
    } catch (err) {
      const generated = running === statement ? '' : ` (${running.split('\n', 1)[0]}, one it answered)`;
      throw new Error(
        `migration ${m.name} failed at statement ${i + 1} of ${statements.length}${generated}: ${(err as Error).message} ` +
          '(it runs without a transaction: the statements before it stay applied, and the next start runs it again ' +
          'from its first statement)',
        { cause: err },
      );
    }
  }
  await client.query(RECORD, [m.version, m.name, m.checksum]);
}

/**
 * The migrations not applied to this database yet (names, in order), read only: for a process that must not change the
 * schema (an api instance; the ingest role migrates). An applied file since edited is an error, as in `migrate`.
 */
export async function pendingMigrations(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const migrations = await listMigrations(dir);
  const {
    rows: [table],
  } = await pool.query<{ exists: boolean }>(`SELECT to_regclass('platform.schema_migrations') IS NOT NULL AS exists`);
  if (!table?.exists) return migrations.map((m) => m.name);
  const { rows } = await pool.query<{ version: string; checksum: string }>(
    'SELECT version, checksum FROM platform.schema_migrations',
  );
  const applied = new Map(rows.map((r) => [r.version, r.checksum]));
  for (const m of migrations) {
    const checksum = applied.get(m.version);
    if (checksum !== undefined && checksum !== m.checksum) {
      throw new Error(`migration ${m.name} was changed after it was applied; add a new migration instead`);
    }
  }
  return migrations.filter((m) => !applied.has(m.version)).map((m) => m.name);
}
