// The analytics domain as the service lists it (domains.ts): its service, subgraph, datasets, capabilities
// (capabilities.ts: its path routes, MCP tools and GraphQL fields) and its writer, the derivation job (writer/) that
// fills its tables beside ingest.

import { type DomainDeps, defineDomain } from '../../kit/domain.ts';
import { DOCUMENTED_COVERAGE_STARTS as STARTS } from '../../platform/coverage.ts';
import type { AnalyticsContext } from './builder.ts';
import { ANALYTICS_CAPABILITIES } from './capabilities.ts';
import { analyticsSchema } from './schema/index.ts';
import { AnalyticsService } from './service/index.ts';

declare module '../../kit/domain.ts' {
  interface DomainServices {
    analytics: AnalyticsService;
  }
}

export const analytics = defineDomain({
  name: 'analytics',
  port: 4005,
  // Read-only: the derivation (ingest role) writes its tables.
  create: ({ readPool, now }: DomainDeps<object>) => new AnalyticsService({ pool: readPool, now }),
  schema: analyticsSchema,
  context: (analytics): AnalyticsContext => ({ analytics }),
  datasets: {
    roundTrips: { table: 'analytics.round_trips', column: 'opened_at', completeFrom: STARTS.roundTrips },
    accountSnapshots: { table: 'analytics.account_snapshots', column: 'time', completeFrom: STARTS.accountSnapshots },
    // How far the derivation job has come: every fill, funding payment and ledger update before it is derived (its
    // delay is the jobs' lag behind now).
    analyticsDerivation: { table: 'analytics.derive_checkpoint', column: 'cursor_time' },
  },
  // Answers are per user or per page of a ranking that changes every few minutes: merging seldom saves a call.
  router: { deduplicateInflightRequests: false },
  capabilities: ANALYTICS_CAPABILITIES,
  // Loaded only by the writer thread of the role that ingests.
  writer: new URL('./writer/index.ts', import.meta.url),
});
