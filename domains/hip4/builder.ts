// The hip4 subgraph's Pothos builder (the shared setup of kit/builder.ts) and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { Hip4Service } from './service/index.ts';

export interface Hip4Context {
  hip4: Hip4Service;
}

export const builder = subgraphBuilder<Hip4Context>();
