// The evm subgraph's Pothos builder (the shared setup of kit/builder.ts), and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { EvmService } from './service/index.ts';

export interface EvmContext {
  evm: EvmService;
}

export const builder = subgraphBuilder<EvmContext>();
