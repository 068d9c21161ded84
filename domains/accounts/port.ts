// What the accounts domain offers other parts: the reads another domain's factory receives (`needs: ['accounts']`,
// typed AccountsPort) and the types and constants of what they answer; the perp account's cash rule; the bulk reads
// of its stored events a derivation makes (the analytics writer) and the archive import's; the tables export
// publishes (fills, funding, ledger). The one file of this folder another domain, ingest or export imports, and the
// one way they read accounts' tables (test/layers.test.ts): evm reads a backstop's fills and a user's ledger events
// through it, the analytics writer the fills, funding and ledger it derives from.
import type { AccountsService } from './service/index.ts';

/** The accounts reads another domain's service is given: the fills of an address and a user's ledger events. */
export type AccountsPort = Pick<AccountsService, 'fillRows' | 'fillSummary' | 'ledgerEvents'>;

export {
  anyStoredIn,
  type CashLedgerEvent,
  cashLedgerOf,
  fillTimeAfter,
  firstPerpEventTime,
  PERP_FILLS_BY_BUILDER_HOUR,
  PERP_FILLS_BY_DAY,
  type PerpFillEvent,
  type PerpFundingEvent,
  perpFillsBefore,
  perpFillsOf,
  perpFundingOf,
  storedEventsEnd,
  TIMED_EVENT_TABLES,
  type TimedEvents,
} from './service/bulk-reads.ts';
export { exactDecimal, isCashType, isPerpCoin, ledgerCash } from './service/cash.ts';
export { FILLS_EXPORT, FUNDING_EXPORT, LEDGER_EXPORT } from './service/export-tables.ts';
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
