// The markets subgraph's Pothos builder (the shared setup of subgraphs/builder.ts) and its context type.
import { subgraphBuilder } from '../builder.ts';
import type { MarketsService } from './service/index.ts';

export interface MarketsContext {
  markets: MarketsService;
}

export const builder = subgraphBuilder<MarketsContext>();
