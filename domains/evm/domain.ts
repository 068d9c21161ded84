// The evm domain as the service lists it (domains.ts): HyperEVM blocks, transactions, tokens and holders, ledger
// transfers between dexes and HIP-3 backstops; its service, subgraph, dataset and capabilities (capabilities.ts: its
// path routes, MCP tools and GraphQL fields).

import { type DomainDeps, defineDomain } from '../../kit/domain.ts';
import type { AccountsPort } from '../accounts/port.ts';
import type { EvmContext } from './builder.ts';
import { EVM_CAPABILITIES } from './capabilities.ts';
import { evmSchema } from './schema/index.ts';
import { EvmService } from './service/index.ts';

declare module '../../kit/domain.ts' {
  interface DomainServices {
    evm: EvmService;
  }
}

export const evm = defineDomain({
  name: 'evm',
  port: 4004,
  // Backstop fills and a user's ledger events are the accounts domain's tables: read through its port.
  needs: ['accounts'],
  create: ({ pool, upstream, bus, now, services: { accounts } }: DomainDeps<{ accounts: AccountsPort }>) =>
    new EvmService({ pool, upstream, bus, now, accounts }),
  schema: evmSchema,
  context: (evm): EvmContext => ({ evm }),
  datasets: {
    evm: { table: 'evm.blocks', column: 'time' },
  },
  // Chain data is the same for everyone, but holder pages and ledger events are per caller; answers are small.
  router: { deduplicateInflightRequests: false },
  capabilities: EVM_CAPABILITIES,
});
