// The markets domain as the service lists it (domains.ts): its service, subgraph, datasets, capabilities and writer.

import { defineDomain } from '../../kit/domain.ts';
import { DOCUMENTED_COVERAGE_STARTS as STARTS } from '../../platform/coverage.ts';
import type { MarketsContext } from './builder.ts';
import { MARKETS_CAPABILITIES } from './capabilities.ts';
import { marketsSchema } from './schema/index.ts';
import { MarketsService } from './service/index.ts';

declare module '../../kit/domain.ts' {
  interface DomainServices {
    markets: MarketsService;
  }
}

export const markets = defineDomain({
  name: 'markets',
  port: 4001,
  create: ({ pool, readPool, upstream, bus, now }) => new MarketsService({ pool, readPool, upstream, bus, now }),
  schema: marketsSchema,
  context: (markets, { coverage }): MarketsContext => ({ markets, coverage }),
  datasets: {
    trades: { table: 'markets.trades', column: 'time' },
    candles: { table: 'markets.candles', column: 't', completeFrom: STARTS.candles },
    assetCtxs: { table: 'markets.asset_ctxs', column: 'time' },
    fundingRates: { table: 'markets.funding_rates', column: 'time' },
    borrowLendReserves: { table: 'markets.reserve_samples', column: 'time', completeFrom: STARTS.borrowLendReserves },
    marketHistory: { table: 'markets.history_bbo', column: 'time', completeFrom: STARTS.marketHistory },
  },
  // Market data is the same for every client, so identical requests meet.
  router: { deduplicateInflightRequests: true },
  capabilities: MARKETS_CAPABILITIES,
  // The fill of the HIP-3 rollup from trades stored before it; loaded only by the writer thread of the role that ingests.
  writer: new URL('./writer/index.ts', import.meta.url),
});
