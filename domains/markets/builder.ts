// The markets subgraph's Pothos builder (the shared setup of kit/builder.ts) and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { SubgraphPlatform } from '../../kit/domain.ts';
import type { MarketsService } from './service/index.ts';

export interface MarketsContext {
  markets: MarketsService;
  /** dataCoverage over every domain's datasets. */
  coverage: SubgraphPlatform['coverage'];
}

export const builder = subgraphBuilder<MarketsContext>();
