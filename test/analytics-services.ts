// The analytics tests' services: the hand-written history (analytics-history.ts) ingested and derived in a database
// of its own, every domain's services over it at NOW (D3 12:00 UTC), and the compat app answering in-process.
import type { FastifyInstance } from 'fastify';
import { expect, vi } from 'vitest';
import { Authenticator } from '../access/auth.ts';
import { buildCompatApp } from '../compat-rest/app.ts';
import { Derivation } from '../domains/analytics/writer/index.ts';
import { deriveUntil } from '../domains/analytics/writer/job.ts';
import { refreshLeaderboard } from '../domains/analytics/writer/leaderboard.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { InProcessBus } from '../events/bus.ts';
import { committedUntil } from '../ingest/options.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { type DomainServices, type StartedServices, startDomainServices } from '../kit/domain.ts';
import { Upstream } from '../platform/upstream.ts';
import { compatServicesOf } from '../stack.ts';
import type { NodeFiles } from './accounts-files.ts';
import { loadAnalyticsHistory, UNTIL } from './analytics-history.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const NOW = UNTIL; // D3 12:00 UTC

export interface AnalyticsServices {
  db: TestDatabase;
  started: StartedServices;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * Over a database whose history is loaded: the derivation run up to `until` (null: derived already), the leaderboards ranked at `now`, every
 * domain's services with their clock at `now`, and the compat app over them (answering through `app.inject()`).
 */
export async function derivedCompat(db: TestDatabase, until: number | null, now: number) {
  if (until !== null) await deriveUntil(db.pool, until);
  for (const w of ['7d', '30d', 'all'] as const) await refreshLeaderboard(db.pool, w, now);
  const upstream = new Upstream('http://127.0.0.1:9', { timeoutMs: 500 });
  const started = await startDomainServices(DOMAIN_LIST, {
    pool: db.pool,
    upstream,
    bus: new InProcessBus(),
    now: () => now,
  });
  const services = compatServicesOf(started.services as unknown as DomainServices, upstream, db.pool);
  const auth = new Authenticator(db.pool, { alwaysRequireKey: false });
  const app = await buildCompatApp({ services, auth, pool: db.pool, log: () => {} });
  return { started, services, app };
}

export async function startAnalyticsServices(): Promise<AnalyticsServices> {
  const db = await createTestDatabase();
  await loadAnalyticsHistory(db);
  const { started, app } = await derivedCompat(db, UNTIL, NOW);
  return {
    db,
    started,
    app,
    async close() {
      await app.close();
      await started.stop();
      await db.drop();
    },
  };
}

/**
 * `files` ingested and derived as npm start does it: ingest following the node files, the derivation following what
 * ingest has committed of the streams it reads (no time given to it), its clock at `now`. Resolves once the derivation
 * holds every event of the files: its checkpoint just past the newest block, with nothing after it to wait for.
 */
export async function ingestAndDeriveLive(db: TestDatabase, files: NodeFiles, now: number): Promise<void> {
  const { dataDir, streams } = await files.write();
  const ingest = new Ingest({ dataDir, pool: db.pool, streams, follow: true, pollMs: 50, log: () => {} });
  const ingesting = ingest.run();
  const derivation = new Derivation({
    pool: db.pool,
    present: { loadedUntil: (read) => committedUntil(ingest.stats, read) },
    pollMs: 50,
    now: () => now,
  });
  const deriving = derivation.run();
  try {
    await vi.waitFor(() => expect(derivation.stats.cursor).toBe((files.newest as number) + 1), {
      timeout: 20_000,
      interval: 50,
    });
  } finally {
    await derivation.stop();
    await ingest.stop();
    await Promise.all([deriving, ingesting]);
  }
}
