// The accounts subgraph's Pothos builder (the shared setup of subgraphs/builder.ts), its context type and its own
// JSON scalar.
import { subgraphBuilder } from '../builder.ts';
import type { AccountsService } from './service/index.ts';

export interface AccountsContext {
  accounts: AccountsService;
}

export const builder = subgraphBuilder<AccountsContext, { JSON: { Input: unknown; Output: unknown } }>();

builder.scalarType('JSON', {
  description: 'A JSON value, as the exchange prints it (ledger deltas)',
  serialize: (v) => v,
  parseValue: (v) => v,
});
