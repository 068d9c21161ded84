// The markets subgraph's Pothos builder (the shared setup of subgraphs/builder.ts) and its context type.
import { subgraphBuilder } from '../builder.ts';
import type { SubgraphPlatform } from '../domain.ts';
import type { MarketsService } from './service/index.ts';

export interface MarketsContext {
  markets: MarketsService;
  /** dataCoverage over every domain's datasets. */
  coverage: SubgraphPlatform['coverage'];
}

export const builder = subgraphBuilder<MarketsContext>();
