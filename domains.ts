// The one list of the service's domains. A new domain is a folder `domains/<name>/` with its `domain.ts`, and one
// line here; the stack, the standalone subgraph start, the router's composition, compat-rest, the ports and
// dataCoverage all follow this list. Order matters only for `needs`: a domain comes after those it takes services of.

import type pg from 'pg';
import { accounts } from './domains/accounts/domain.ts';
import { analytics } from './domains/analytics/domain.ts';
import { evm } from './domains/evm/domain.ts';
import { hip4 } from './domains/hip4/domain.ts';
import { markets } from './domains/markets/domain.ts';
import type { Domain, DomainName, SubgraphPlatform } from './kit/domain.ts';
import { unionOf } from './kit/domain.ts';
import { dataCoverage } from './platform/coverage.ts';

export const DOMAINS = [markets, accounts, hip4, evm, analytics] as const;

type Listed = (typeof DOMAINS)[number]['name'];
/** Compile-time: every domain that declares its service (DomainServices) is listed above, and only those. */
export const EVERY_DOMAIN_LISTED: [Exclude<DomainName, Listed>] extends [never] ? true : Exclude<DomainName, Listed> =
  true;

/** The domains as the stack loops over them (each one's own service and context types erased). */
export const DOMAIN_LIST: readonly Domain[] = DOMAINS as unknown as readonly Domain[];

/** Every dataset dataCoverage reports: the union of the domains' own. */
export const DATASETS = unionOf(
  'dataCoverage dataset',
  DOMAIN_LIST.map((d) => [d.name, d.datasets] as const),
);

/** What the subgraphs' contexts get beside their services, over `pool`: dataCoverage of every dataset above. */
export function subgraphPlatform(pool: pg.Pool): SubgraphPlatform {
  return { coverage: (now) => dataCoverage(pool, now, DATASETS) };
}

/** The topics the domains' writers publish, with their keys: given to the bus at open, beside ingest's. */
export const DOMAIN_TOPICS = unionOf(
  'bus topic',
  DOMAIN_LIST.map((d) => [d.name, d.topics] as const),
);

/** The domains that write and their writers' modules: what the writer thread of the ingesting role loads and runs. */
export const DOMAIN_WRITERS: readonly { domain: string; module: string }[] = DOMAIN_LIST.flatMap((d) =>
  d.writer ? [{ domain: d.name, module: d.writer.href }] : [],
);
