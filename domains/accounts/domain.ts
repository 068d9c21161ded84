// The accounts domain as the service lists it (domains.ts): its service, subgraph, datasets, compat part and writer.

import { type DomainDeps, defineDomain } from '../../kit/domain.ts';
import {
  FUNDING_COVERAGE_START,
  LEDGER_COVERAGE_START,
  DOCUMENTED_COVERAGE_STARTS as STARTS,
} from '../../platform/coverage.ts';
import type { AccountsContext } from './builder.ts';
import { ACCOUNTS_CAPABILITIES } from './capabilities.ts';
import { accountsSchema } from './schema/index.ts';
import type { ReservePricing } from './service/borrow-lend.ts';
import { AccountsService } from './service/index.ts';

/** What accounts takes from the markets domain: live mid prices, which value positions. */
/** What accounts takes of the markets service: live mids (positions' marks) and the reserves' latest pricing. */
interface MarketPrices {
  mid(coin: string): string | null;
  latestReserves(): Promise<ReservePricing[]>;
}

declare module '../../kit/domain.ts' {
  interface DomainServices {
    accounts: AccountsService;
  }
}

export const accounts = defineDomain({
  name: 'accounts',
  port: 4002,
  needs: ['markets'],
  create: ({ pool, upstream, bus, now, services: { markets } }: DomainDeps<{ markets: MarketPrices }>) =>
    new AccountsService({
      pool,
      upstream,
      bus,
      now,
      markPx: (coin) => markets.mid(coin),
      reserves: () => markets.latestReserves(),
    }),
  schema: accountsSchema,
  context: (accounts, { coverage }): AccountsContext => ({ accounts, coverage }),
  datasets: {
    fills: { table: 'accounts.fills', column: 'time' },
    orders: { table: 'accounts.order_statuses', column: 'time', completeFrom: STARTS.orders },
    twaps: { table: 'accounts.twap_statuses', column: 'time' },
    funding: { table: 'accounts.funding_payments', column: 'time', completeFrom: FUNDING_COVERAGE_START },
    ledger: { table: 'accounts.ledger_updates', column: 'time', completeFrom: LEDGER_COVERAGE_START },
    liquidations: { table: 'accounts.liquidations', column: 'time' },
    // Properties of the stored fills that are right only from a documented time on (spec §8).
    builderAttribution: { table: 'accounts.fills', column: 'time', completeFrom: STARTS.builderAttribution },
    crossed: { table: 'accounts.fills', column: 'time', completeFrom: STARTS.crossed },
  },
  // Answers are per user: merging identical requests seldom saves a call, and the executor's clone of each merged
  // answer costs ~5 ms on 2 000 fills (npm run bench).
  router: { deduplicateInflightRequests: false },
  // Every door of the domain is its capabilities'.
  capabilities: ACCOUNTS_CAPABILITIES,
  // The account state's fill from rows stored before ingest kept it, and its stale positions walked again; loaded
  // only by the writer thread of the role that ingests.
  writer: new URL('./writer/index.ts', import.meta.url),
});
