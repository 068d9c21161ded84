-- migrate: no transaction
-- A ledger page resumes after its cursor's key (time, block, hash, digest of the delta: ledger.ts), and the
-- (address, time) index bounded only the time: a page re-read and re-hashed every row of its millisecond, so paging
-- through one transaction that touches thousands of rows of an address (a vault's distribution) cost O(n²). The page's
-- whole key is indexed now, read backward for the newest first: every page an index range from its cursor. It
-- replaces the (address, time) index, its prefix.
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_address_time_next;
CREATE INDEX CONCURRENTLY ledger_updates_address_time_next
  ON accounts.ledger_updates (address, time, block_number, hash, md5(delta::text));
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_address_time;
ALTER INDEX accounts.ledger_updates_address_time_next RENAME TO ledger_updates_address_time;
