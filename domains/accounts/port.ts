// What the accounts domain offers other domains: the reads another domain's factory receives (`needs:
// ['accounts']`, typed AccountsPort) and the types and constants of what they answer. The one file of this folder
// another domain imports (test/layers.test.ts): evm reads a backstop's fills and a user's ledger events through it.
import type { AccountsService } from './service/index.ts';

/** The accounts reads another domain's service is given: the fills of an address and a user's ledger events. */
export type AccountsPort = Pick<AccountsService, 'fillRows' | 'fillSummary' | 'ledgerEvents'>;

export { type CompactFillRow, compactFillSchema } from './service/fill-fields.ts';
export { type FillRowsPage, type FillRowsQuery, MAX_FILL_ROWS } from './service/fill-pages.ts';
export {
  LEDGER_EVENT_TYPES,
  type LedgerEvent,
  type LedgerEventsQuery,
  type LedgerEventType,
  toLedgerEvent,
} from './service/ledger-events.ts';
export { FILL_ROWS_DEFAULT_LIMIT } from './service/limits.ts';
