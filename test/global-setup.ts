// One Postgres for the whole test run: TEST_DATABASE_URL, or an embedded cluster (fsync off) on a free port.
// A template database is migrated once; each test file clones its own database from it (test/db.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbedded } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, ensureDatabase } from '../db/pool.ts';
import { freePort } from './ports.ts';

export const TEMPLATE = 'hl_test_template';

/**
 * The node files of the loaded test-stack templates (test/stack-template.ts) of the cluster at `adminUrl`, beside
 * the embedded cluster (a worktree's own). Stale once the migrated template is rebuilt: removed at the start and
 * the end of a run.
 */
export function stackFilesRoot(adminUrl: string): string {
  const { hostname, port } = new URL(adminUrl);
  return path.resolve(import.meta.dirname, '../.data/test-stack', `${hostname}-${port}`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/**
 * The run's Postgres, set up once: vitest calls the global setup for the root and again for each project
 * (vitest.config.ts), all in this process; the later calls share the first one's cluster and template.
 */
const run = globalThis as { hlTestPostgres?: Promise<{ adminUrl: string; stop: () => Promise<void> }> };

export default async function setup(project: TestProject) {
  const first = !run.hlTestPostgres;
  run.hlTestPostgres ??= startPostgres();
  const { adminUrl, stop } = await run.hlTestPostgres;
  project.provide('pgAdminUrl', adminUrl);
  return first ? stop : undefined;
}

async function startPostgres(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  let adminUrl = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const cluster = await startEmbedded({
      dataDir: path.resolve(import.meta.dirname, '../.data/test-pg'),
      port: await freePort(),
      command: 'npm test',
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '200' },
    });
    adminUrl = cluster.url();
    stop = cluster.stop;
  }
  const files = stackFilesRoot(adminUrl);
  await fs.rm(files, { recursive: true, force: true });
  const stopCluster = stop;
  stop = async () => {
    await fs.rm(files, { recursive: true, force: true });
    await stopCluster();
  };
  const admin = new pg.Client(adminUrl);
  await admin.connect();
  // Rebuild the template every run so it always matches the migrations in the tree.
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE}`;
  await ensureDatabase(adminUrl, TEMPLATE);
  const pool = createPool(templateUrl.toString(), 1);
  await migrate(pool);
  await pool.end();
  return { adminUrl, stop };
}
