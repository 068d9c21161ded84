// The accounts subgraph's Pothos builder (the shared setup of kit/builder.ts), and its context type.
import { subgraphBuilder } from '../../kit/builder.ts';
import type { SubgraphPlatform } from '../../kit/domain.ts';
import type { AccountsService } from './service/index.ts';

export interface AccountsContext {
  accounts: AccountsService;
  /** dataCoverage over every domain's datasets (a replay's gaps). */
  coverage: SubgraphPlatform['coverage'];
}

export const builder = subgraphBuilder<AccountsContext>();
