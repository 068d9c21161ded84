// The analytics subgraph's Pothos builder (the shared setup of kit/builder.ts) and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { AnalyticsService } from './service/index.ts';

export interface AnalyticsContext {
  analytics: AnalyticsService;
}

export const builder = subgraphBuilder<AnalyticsContext>();
