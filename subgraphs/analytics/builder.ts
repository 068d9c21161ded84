// The analytics subgraph's Pothos builder (the shared setup of subgraphs/builder.ts) and its context type.
import { subgraphBuilder } from '../builder.ts';
import type { AnalyticsService } from './service/index.ts';

export interface AnalyticsContext {
  analytics: AnalyticsService;
}

export const builder = subgraphBuilder<AnalyticsContext>();
