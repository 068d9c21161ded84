// The analytics tests' services: the hand-written history (analytics-history.ts) ingested and derived in a database
// of its own, every domain's services over it at NOW (D3 12:00 UTC), and the compat app answering in-process.
import type { FastifyInstance } from 'fastify';
import { Authenticator } from '../access/auth.ts';
import { buildCompatApp } from '../compat-rest/app.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { InProcessBus } from '../events/bus.ts';
import { Upstream } from '../platform/upstream.ts';
import { compatServicesOf } from '../stack.ts';
import { deriveUntil } from '../subgraphs/analytics/writer/index.ts';
import { refreshLeaderboard } from '../subgraphs/analytics/writer/leaderboard.ts';
import { type DomainServices, type StartedServices, startDomainServices } from '../subgraphs/domain.ts';
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
 * Over a database whose history is loaded: the derivation run up to `until`, the leaderboards ranked at `now`, every
 * domain's services with their clock at `now`, and the compat app over them (answering through `app.inject()`).
 */
export async function derivedCompat(db: TestDatabase, until: number, now: number) {
  await deriveUntil(db.pool, until);
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
