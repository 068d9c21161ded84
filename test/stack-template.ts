// The seeded history of a test stack (test/stack.ts), written and loaded once per run for each seed and length: a
// template database holding what ingest loaded from it, the node files it loaded them from and the simulator's state
// after writing them (Simulator.saveState), which a stack's node resumes from. The first file of
// a run that asks for one builds it (an advisory lock per template: files asking for it meanwhile wait, files
// asking for another do not); the global setup's migrated template is newer than any loaded one of an earlier run,
// which is then rebuilt.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { Ingest } from '../ingest/pipeline.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { createTestDatabase } from './db.ts';
import { stackFilesRoot } from './global-setup.ts';

/** The simulated node's rates in every test stack. */
export const SIM_RATES = { fillsPerSecond: 20, blocksPerSecond: 10 } as const;

/** Any number: the first key of the advisory locks (the second names the template). */
const BUILD_LOCK = 1_700_018;

export interface StackTemplate {
  /** The template database: what ingest loaded from the history. */
  database: string;
  /** The node files of the history, to be copied (the simulator appends to the last ones). */
  dataDir: string;
  /** The simulator's state after the history's last block (Simulator.saveState), to resume from. */
  simState: string;
}

/** The loaded template for `seed` and `historyMs` of history before its build, built unless this run has it. */
export async function loadedStackTemplate(seed: number, historyMs: number): Promise<StackTemplate> {
  const database = `hl_test_stack_s${seed}_h${Math.round(historyMs / 1000)}`;
  const lockKey = createHash('sha1').update(database).digest().readInt32BE(0);
  const adminUrl = inject('pgAdminUrl');
  const root = stackFilesRoot(adminUrl);
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [BUILD_LOCK, lockKey]);
    // Databases made later have higher oids: a loaded template made before this run's migrated one is stale.
    const { rows } = await client.query<{ datname: string; oid: string }>(
      `SELECT datname, oid::int8::text AS oid FROM pg_database WHERE datname IN ('hl_test_template', $1)`,
      [database],
    );
    const oids = new Map(rows.map((r) => [r.datname, Number(r.oid)]));
    const oid = oids.get(database) ?? 0;
    if (oid > (oids.get('hl_test_template') ?? 0)) {
      const dataDir = path.join(root, `${database}-${oid}`);
      return { database, dataDir, simState: `${dataDir}.sim` };
    }
    return await build(client, root, database, seed, historyMs);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, $2)', [BUILD_LOCK, lockKey]).catch(() => {});
    await client.end();
  }
}

async function build(
  client: pg.Client,
  root: string,
  database: string,
  seed: number,
  historyMs: number,
): Promise<StackTemplate> {
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await fs.mkdir(root, { recursive: true });
  for (const old of await fs.readdir(root)) {
    if (old.startsWith(`${database}-`)) await fs.rm(path.join(root, old), { recursive: true, force: true });
  }
  const building = await fs.mkdtemp(path.join(root, 'building-'));
  const db = await createTestDatabase();
  try {
    const sim = new Simulator({ dataDir: building, seed, ...SIM_RATES });
    const toMs = Date.now();
    const fromMs = toMs - historyMs;
    await sim.writeHistory(fromMs, toMs);
    const simState = sim.saveState();
    await sim.stop();
    // Read to the end: the last block is loaded too, and the checkpoints are past it (the simulator resumes after).
    await new Ingest({ dataDir: building, pool: db.pool, log: () => {} }).run();
    await db.pool.end();
    await client.query(`ALTER DATABASE ${new URL(db.url).pathname.slice(1)} RENAME TO ${database}`);
    const { rows } = await client.query<{ oid: string }>(
      'SELECT oid::int8::text AS oid FROM pg_database WHERE datname = $1',
      [database],
    );
    const dataDir = path.join(root, `${database}-${rows[0]?.oid}`);
    // The state first: a template whose files are there has its state (a build that fails between leaves neither).
    await fs.writeFile(`${dataDir}.sim`, simState);
    await fs.rename(building, dataDir);
    return { database, dataDir, simState: `${dataDir}.sim` };
  } catch (err) {
    await db.pool.end().catch(() => {}); // (ended already when the rename failed)
    await client.query(`DROP DATABASE IF EXISTS ${new URL(db.url).pathname.slice(1)} WITH (FORCE)`);
    await fs.rm(building, { recursive: true, force: true });
    throw err;
  }
}
