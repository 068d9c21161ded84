// The accounts subgraph as an HTTP + graphql-ws server (port 4002 by default).
import { serveSubgraph } from '../serve.ts';
import { accountsSchema } from './schema/index.ts';
import type { AccountsService } from './service/index.ts';

export function startAccountsSubgraph(accounts: AccountsService, opts: { port: number; host?: string }) {
  return serveSubgraph('accounts', accountsSchema, { ...opts, context: { accounts } });
}
