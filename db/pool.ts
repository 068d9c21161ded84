// The `pg` pool and the one way the app reaches its database: DATABASE_URL, or the embedded cluster.
import pg from 'pg';
import type { Config } from '../platform/config.ts';
import type { TextRow } from '../platform/json-text.ts';
import { copyInto } from './copy.ts';
import { type EmbeddedCluster, type EmbeddedOptions, startEmbedded } from './embedded.ts';
import { migrate, pendingMigrations } from './migrate.ts';
import { runOnce, type StartupStep } from './startup.ts';

// Return int8 as a JS number only where it is safe; numeric stays a string (never a float on the way through).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
});

export type Pool = pg.Pool;

/**
 * A query's `types` that leave every column as Postgres's own text (NULL stays null), for answers written straight
 * to JSON: with `rowMode: 'array'`, pg then builds no value and no object per row.
 */
/** How long one statement writing a batch (ingest's, a domain writer's) may take, on the server and on the wire. */
export const WRITE_STATEMENT_TIMEOUT_MS = 30_000;

export const TEXT_TYPES = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

/**
 * Runs `work` in one transaction on one client: committed when it resolves, rolled back when it throws. A client
 * whose rollback fails too (a broken connection) is not returned to the pool.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client whose connection dies between statements emits 'error'; unheard, it would crash the
  // process. The statement that follows fails, and the client is dropped below.
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    client.off('error', onError);
    client.release(broken);
  }
}

/** What runs a statement: a pool, a client, or a client's queue (ClientQueue). */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>>;
}

/**
 * One client's statements in the order they are asked, each sent once the one before has finished (whether it
 * succeeded or failed, as pg's own queue ran them): for work that keeps several statements of one transaction in
 * flight (a derivation batch reads ahead and writes behind its walk). pg@8 warns when a client is asked while it is
 * still executing, and pg@9 refuses.
 */
export class ClientQueue implements Queryable {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: pg.ClientBase) {}

  query<R extends pg.QueryResultRow = pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<R>> {
    return this.#after(() => this.client.query<R>(config));
  }

  /** COPY of `text` (COPY text format) into `target` (a table and its columns), in turn (copy.ts copyInto). */
  copy(target: string, text: Buffer, timeoutMs: number): Promise<void> {
    return this.#after(() => copyInto(this.client, target, text, timeoutMs));
  }

  #after<T>(run: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(run, run);
    this.#tail = result.catch(() => {});
    return result;
  }

  /** Settles when every statement asked so far has finished (never rejects: each caller hears its own failure). */
  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}

/**
 * A query handing each data row to `onRow` as the wire carries it (Postgres's text, NULL as null), through the
 * submittable's data-row handler that pg's client calls: no value parsed, no row object or 'row' event, no row kept.
 * A throw from `onRow` stops the delivery and is kept for the caller.
 */
class TextRowQuery extends pg.Query {
  failure: { err: unknown } | undefined;

  constructor(
    statement: { text: string; values?: unknown[] },
    private readonly onRow: (row: TextRow) => void,
  ) {
    super(statement);
  }

  handleDataRow(msg: { fields: TextRow }): void {
    if (this.failure) return;
    try {
      this.onRow(msg.fields);
    } catch (err) {
      this.failure = { err };
    }
  }
}

/**
 * Runs a statement, handing each row to `onRow` as Postgres's text as soon as it is read off the wire: a large
 * answer is written while the rest of its rows are still arriving, instead of after the last. A throw from `onRow`
 * stops the delivery and rejects once the statement is done.
 */
export async function eachTextRow(
  pool: pg.Pool,
  statement: { text: string; values?: unknown[] },
  onRow: (row: TextRow) => void,
): Promise<void> {
  const query = new TextRowQuery(statement, onRow);
  // The pool runs a query object as it runs text (acquiring, releasing, destroying a broken client) and resolves
  // when it ends; its typings only know the query-object form that returns the object.
  await (pool.query(query) as unknown as Promise<unknown>);
  if (query.failure) throw query.failure.err;
}

export const EMBEDDED_DATABASE = 'hyperliquid';

export interface PoolTimeouts {
  /** Giving up on a connection (new, or waiting for a free one in the pool); 0: wait for ever. */
  connectTimeoutMs: number;
  /**
   * Postgres cancels a statement running longer (`statement_timeout`); the client also gives up on an answer
   * 500 ms later, for a server that is stalled and cannot cancel anything. 0: no limit (migrations, bulk loads).
   */
  statementTimeoutMs: number;
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`);
  return value;
}

/**
 * The service's limits: a request that needs a stalled or dead Postgres fails within about 3.5 s (and answers 503)
 * instead of hanging (an idle client's statement is cut at 3.5 s, a new connection given up after 3 s). The pool
 * holds 20 clients: with 10, bursts of account states (hundreds of statements) queued past the wait on a loaded
 * machine and read as an outage. `PG_CONNECT_TIMEOUT_MS` and `PG_STATEMENT_TIMEOUT_MS` override them.
 */
export function defaultTimeouts(): PoolTimeouts {
  return {
    connectTimeoutMs: envMs('PG_CONNECT_TIMEOUT_MS', 3000),
    statementTimeoutMs: envMs('PG_STATEMENT_TIMEOUT_MS', 3000),
  };
}

/** Client-side margin over `statement_timeout`: Postgres's own cancel comes first while it is alive. */
const READ_TIMEOUT_MARGIN_MS = 500;

export function createPool(
  url: string,
  max = 20,
  timeouts: PoolTimeouts = defaultTimeouts(),
  applicationName = 'hl-data-graph',
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    ...(timeouts.statementTimeoutMs > 0
      ? {
          statement_timeout: timeouts.statementTimeoutMs,
          query_timeout: timeouts.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
        }
      : {}),
    // Dead connections are noticed by the OS, not only at the next query.
    keepAlive: true,
  });
  // An idle client losing its connection (server killed or restarted) must not crash the process: the pool has
  // dropped it already, and the next query opens a new one.
  pool.on('error', (err) => console.error(`postgres: idle client error: ${err.message}`));
  return pool;
}

/**
 * The pool ingest (both lanes) and the analytics derivation write through, apart from the service's: a backfill's
 * commits and the derivation's batches hold connections for seconds, and serving, key checks and credit charging
 * must never wait behind them. Its clients wait longer for each other (batches queue) than an answer may.
 */
export function writerPool(url: string): pg.Pool {
  return createPool(url, WRITER_POOL_SIZE, {
    connectTimeoutMs: WRITER_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: WRITER_STATEMENT_TIMEOUT_MS,
  });
}

/** What the upkeep's connections are named in `pg_stat_activity` (its stop cancels their statements). */
export const UPKEEP_APPLICATION = 'hl-data-graph upkeep';

/**
 * The partitions' upkeep (db/partitions.ts keepPartitions), apart from the writers: at mainnet's size a closed week's
 * index rebuild takes minutes (~2 min for a week of fills), a day of order statuses thinned longer, and reading a
 * table's time bounds again as long as its scan, all past the writers' 30 s. Two clients without a statement limit,
 * as migrations; a stop cancels what they run (a rebuild cut short is dropped and made again at the next round).
 */
export function upkeepPool(url: string): pg.Pool {
  return createPool(url, 2, { connectTimeoutMs: WRITER_CONNECT_TIMEOUT_MS, statementTimeoutMs: 0 }, UPKEEP_APPLICATION);
}

/** One per stream of both lanes, the derivation and a spare. */
const WRITER_POOL_SIZE = 20;
const WRITER_CONNECT_TIMEOUT_MS = 15_000;
/** A batch's statements read and write tens of thousands of rows (ingest's Batch and the derivation allow 30 s). */
const WRITER_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * Whether Postgres answers now, within `timeoutMs` (readiness): `up`, or `down` when it does not (stalled, dead,
 * or every connection busy for that long).
 */
export async function databaseStatus(pool: pg.Pool, timeoutMs = 2000): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), timeoutMs);
  });
  try {
    return await Promise.race([
      pool.query('SELECT 1').then(
        () => 'up' as const,
        () => 'down' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface Database {
  pool: pg.Pool;
  url: string;
  /** The embedded cluster, when there is no DATABASE_URL (owned by this process, or joined as a guest). */
  cluster?: EmbeddedCluster;
  /** Ends the pool and stops or leaves the embedded cluster; `hurry`: without waiting for its guests. */
  close: (opts?: { hurry?: boolean }) => Promise<void>;
}

/** How a command uses the embedded cluster (`db/embedded.ts`): its name, and whether it may join a running one. */
export type ClusterUse = Pick<EmbeddedOptions, 'command' | 'mode' | 'service' | 'whyNotShared'>;

/**
 * How a process treats the schema: `migrate` applies what is pending (under the runner's advisory lock); `check` only
 * reads whether it is current, waiting up to `waitMs` for another process (the ingest role) to migrate it.
 */
export type SchemaUse = { schema?: 'migrate' } | { schema: 'check'; waitMs: number };

/** How the start-up statements run: `retry` retries them while Postgres is slow (npm start's roles); default once. */
export type StartupUse = { retry?: StartupStep };

/** How long closing the database waits for the pool's clients before the server is stopped regardless. */
const POOL_END_WAIT_MS = 5000;

/**
 * Opens the service database, migrated: the configured server, or the embedded cluster, started here or, when
 * another live process owns it, that process's running server (see `use`).
 */
export async function openDatabase(
  config: Config,
  log: (line: string) => void = console.log,
  use: ClusterUse & SchemaUse & StartupUse = { mode: 'guest' },
): Promise<Database> {
  const retry = use.retry ?? runOnce;
  let url = config.databaseUrl;
  let cluster: EmbeddedCluster | undefined;
  if (!url) {
    cluster = await startEmbedded({ dataDir: config.pgDataDir, port: config.pgPort, log, ...use });
    const adminUrl = cluster.url();
    try {
      await retry('creating the database', () => ensureDatabase(adminUrl, EMBEDDED_DATABASE));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    url = cluster.url(EMBEDDED_DATABASE);
  }
  const pool = createPool(url);
  try {
    const databaseUrl = url;
    if (use.schema === 'check') await retry('schema check', () => awaitSchema(pool, use.waitMs, log));
    else await retry('migrations', () => migrateOnce(databaseUrl, log));
  } catch (err) {
    await pool.end();
    await cluster?.stop();
    throw err;
  }
  return {
    pool,
    url,
    ...(cluster ? { cluster } : {}),
    close: async (opts) => {
      // Hurried, the server goes first and the pool is not waited for: it would wait for clients still in use.
      if (opts?.hurry) {
        void pool.end().catch(() => undefined);
        await cluster?.stop(opts);
        return;
      }
      // A client still checked out (a statement in flight at the signal) would keep pool.end() waiting with nothing
      // else left to run, and node would exit before the server is stopped: the wait is bounded.
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        pool.end().then(() => true),
        new Promise<false>((r) => {
          timer = setTimeout(() => r(false), POOL_END_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
      if (!ended) log(`postgres: clients still busy after ${POOL_END_WAIT_MS / 1000} s; stopping the server anyway`);
      await cluster?.stop();
    },
  };
}

async function migrateOnce(url: string, log: (line: string) => void): Promise<void> {
  // Migrations may rewrite large tables: on a connection of their own, without the service's statement limits.
  const migrator = createPool(url, 1, { connectTimeoutMs: 0, statementTimeoutMs: 0 });
  try {
    const applied = await migrate(migrator);
    if (applied.length) log(`migrations applied: ${applied.join(', ')}`);
  } finally {
    await migrator.end();
  }
}

const SCHEMA_POLL_MS = 1000;

/** Resolves once no migration is pending; rejects naming them after `waitMs` (0: at once). */
export async function awaitSchema(pool: pg.Pool, waitMs: number, log: (line: string) => void): Promise<void> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    const pending = await pendingMigrations(pool);
    if (!pending.length) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `the database schema is not current (pending: ${pending.join(', ')}); this process only checks it: start ` +
          'the ingest role (or npm run db:migrate) on the same DATABASE_URL first',
      );
    }
    if (!told)
      log(`postgres: waiting up to ${waitMs / 1000} s for the migrations to be applied (${pending.length} pending)`);
    told = true;
    await new Promise((r) => setTimeout(r, SCHEMA_POLL_MS));
  }
}

export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      const from = template ? ` TEMPLATE ${client.escapeIdentifier(template)}` : '';
      // Another process (a guest of the same cluster) may create it at the same moment.
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}${from}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err;
      });
    }
  } finally {
    await client.end();
  }
}
