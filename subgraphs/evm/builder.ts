// The evm subgraph's Pothos builder (the shared setup of subgraphs/builder.ts), its context type and its own JSON
// scalar (ledger deltas as the node prints them).
import { subgraphBuilder } from '../builder.ts';
import type { EvmService } from './service/index.ts';

export interface EvmContext {
  evm: EvmService;
}

export const builder = subgraphBuilder<EvmContext, { JSON: { Input: unknown; Output: unknown } }>();

builder.scalarType('JSON', {
  description: 'A JSON value, as the exchange prints it (ledger deltas)',
  serialize: (v) => v,
  parseValue: (v) => v,
});
