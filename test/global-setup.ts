// One Postgres for the whole test run: TEST_DATABASE_URL, or an embedded cluster (fsync off) on a free port.
// A template database is migrated once; each test file clones its own database from it (test/db.ts).
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbedded } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, ensureDatabase } from '../db/pool.ts';
import { freePort } from './ports.ts';

export const TEMPLATE = 'hl_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
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
  project.provide('pgAdminUrl', adminUrl);
  return stop;
}
