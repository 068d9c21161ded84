// The accounts subgraph's Pothos builder (the shared setup of kit/builder.ts), and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { AccountsService } from './service/index.ts';

export interface AccountsContext {
  accounts: AccountsService;
}

export const builder = subgraphBuilder<AccountsContext>();
