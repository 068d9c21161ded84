// What the accounts domain offers other domains: the reads another domain's factory receives (`needs:
// ['accounts']`, typed AccountsPort) and the types and constants of what they answer. The one file of this folder
// another domain imports (test/layers.test.ts): evm reads a backstop's fills and a user's ledger events through it.
import type { AccountsService } from './service/index.ts';

/** The accounts reads another domain's service is given: the fills of an address and a user's ledger events. */
export type AccountsPort = Pick<AccountsService, 'fillRows' | 'fillSummary' | 'ledgerEvents'>;

export {
  type CompactFillRow,
  compactFillSchema,
  FILL_ROWS_DEFAULT_LIMIT,
  type FillRowsPage,
  type FillRowsQuery,
  LEDGER_EVENT_TYPES,
  type LedgerEvent,
  type LedgerEventsQuery,
  type LedgerEventType,
  MAX_FILL_ROWS,
  toLedgerEvent,
} from './service/index.ts';
