// Databases for benchmarks: BENCH_DATABASE_URL's server, or a dedicated embedded cluster (.data/bench-pg, fsync
// on, as in production). Each benchmark gets a freshly migrated database.
import path from 'node:path';
import pg from 'pg';
import { startEmbedded } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, ensureDatabase } from '../db/pool.ts';

export interface BenchServer {
  /** `migrations`: another migrations folder (an older schema, to measure beside today's). */
  freshDatabase(name: string, migrations?: string): Promise<{ url: string; pool: pg.Pool }>;
  /** A migrated database kept between runs (for data sets too slow to rebuild every time). */
  keptDatabase(name: string, migrations?: string): Promise<{ url: string; pool: pg.Pool }>;
  stop(): Promise<void>;
}

export async function benchServer(): Promise<BenchServer> {
  let adminUrl = process.env.BENCH_DATABASE_URL;
  let stop = async () => {};
  if (!adminUrl) {
    const cluster = await startEmbedded({
      dataDir: path.resolve(import.meta.dirname, '../.data/bench-pg'),
      port: Number(process.env.BENCH_PG_PORT ?? 54339),
      command: 'npm run bench',
      whyNotShared: 'each benchmark drops and rebuilds its databases',
    });
    adminUrl = cluster.url();
    stop = cluster.stop;
  }
  const admin = adminUrl;
  const keptDatabase = async (name: string, migrations?: string) => {
    await ensureDatabase(admin, name);
    const url = new URL(admin);
    url.pathname = `/${name}`;
    // Building the data sets (millions of rows in one statement) takes longer than the service's statement limit.
    const pool = createPool(url.toString(), 12, { connectTimeoutMs: 0, statementTimeoutMs: 0 });
    await migrate(pool, migrations);
    return { url: url.toString(), pool };
  };
  return {
    keptDatabase,
    async freshDatabase(name, migrations) {
      const c = new pg.Client(admin);
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
      return keptDatabase(name, migrations);
    },
    stop,
  };
}
