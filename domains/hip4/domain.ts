// The hip4 domain (HIP-4 outcome markets) as the service lists it (domains.ts): its service, subgraph, datasets and
// capabilities (the /hip4/* routes, MCP tools and Query lists made from them; its subscriptions and the /ws
// hip4Events channel).
import { defineDomain } from '../../kit/domain.ts';
import type { Hip4Context } from './builder.ts';
import { HIP4_CAPABILITIES } from './capabilities.ts';
import { hip4Schema } from './schema/index.ts';
import { Hip4Service } from './service/index.ts';

declare module '../../kit/domain.ts' {
  interface DomainServices {
    hip4: Hip4Service;
  }
}

export const hip4 = defineDomain({
  name: 'hip4',
  port: 4003,
  create: ({ pool, bus, now }) => new Hip4Service({ pool, bus, now }),
  schema: hip4Schema,
  context: (hip4): Hip4Context => ({ hip4 }),
  datasets: {
    hip4: { table: 'hip4.fills', column: 'time' },
  },
  // Registry and market statistics are the same for everyone: identical requests may meet.
  router: { deduplicateInflightRequests: true },
  capabilities: HIP4_CAPABILITIES,
});
