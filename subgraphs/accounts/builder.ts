// The accounts subgraph's Pothos builder (the shared setup of subgraphs/builder.ts), and its context type.
import { subgraphBuilder } from '../builder.ts';
import type { AccountsService } from './service/index.ts';

export interface AccountsContext {
  accounts: AccountsService;
}

export const builder = subgraphBuilder<AccountsContext>();
