-- migrate: no transaction
-- Time-leading indexes ascending, read backward: a B-tree keeps its pages ~90 % full when each insert lands at the
-- right end of its key range (Postgres splits the rightmost page, or "after the new item", at fillfactor), and ~50 %
-- when it lands at the left (a 50:50 split), which is where a `time DESC` index puts every new row. A backward scan
-- of an ascending index reads the same order as a forward scan of the descending one (every column reversed, so a
-- tie-break that ran ascending is written descending here). Measured: `BENCH_ONLY=storage npm run bench`.
--
-- Each index is built under a new name while ingest keeps writing (CONCURRENTLY: no transaction, see db/migrate.ts),
-- then swapped in; a stop half way re-runs the file from the top, which rebuilds what it had not swapped yet.

DROP INDEX CONCURRENTLY IF EXISTS evm.transactions_time_order_next;
CREATE INDEX CONCURRENTLY transactions_time_order_next ON evm.transactions (time, block_number, tx_index);
DROP INDEX CONCURRENTLY IF EXISTS evm.transactions_time_order;
ALTER INDEX evm.transactions_time_order_next RENAME TO transactions_time_order;
DROP INDEX CONCURRENTLY IF EXISTS evm.transactions_to_time_next;
CREATE INDEX CONCURRENTLY transactions_to_time_next ON evm.transactions (to_addr, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.transactions_to_time;
ALTER INDEX evm.transactions_to_time_next RENAME TO transactions_to_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_token_time_next;
CREATE INDEX CONCURRENTLY token_transfers_token_time_next ON evm.token_transfers (token, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_token_time;
ALTER INDEX evm.token_transfers_token_time_next RENAME TO token_transfers_token_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_from_next;
CREATE INDEX CONCURRENTLY token_transfers_from_next ON evm.token_transfers (from_addr, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_from;
ALTER INDEX evm.token_transfers_from_next RENAME TO token_transfers_from;
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_to_next;
CREATE INDEX CONCURRENTLY token_transfers_to_next ON evm.token_transfers (to_addr, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.token_transfers_to;
ALTER INDEX evm.token_transfers_to_next RENAME TO token_transfers_to;
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_address_time_next;
CREATE INDEX CONCURRENTLY ledger_transfers_address_time_next ON evm.ledger_transfers (address, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_address_time;
ALTER INDEX evm.ledger_transfers_address_time_next RENAME TO ledger_transfers_address_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_destination_time_next;
CREATE INDEX CONCURRENTLY ledger_transfers_destination_time_next ON evm.ledger_transfers (destination, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_destination_time;
ALTER INDEX evm.ledger_transfers_destination_time_next RENAME TO ledger_transfers_destination_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_type_time_next;
CREATE INDEX CONCURRENTLY ledger_transfers_type_time_next ON evm.ledger_transfers (action_type, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.ledger_transfers_type_time;
ALTER INDEX evm.ledger_transfers_type_time_next RENAME TO ledger_transfers_type_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.backstop_transfers_dex_time_next;
CREATE INDEX CONCURRENTLY backstop_transfers_dex_time_next ON evm.backstop_transfers (dex_id, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.backstop_transfers_dex_time;
ALTER INDEX evm.backstop_transfers_dex_time_next RENAME TO backstop_transfers_dex_time;
DROP INDEX CONCURRENTLY IF EXISTS evm.backstop_transfers_signer_next;
CREATE INDEX CONCURRENTLY backstop_transfers_signer_next ON evm.backstop_transfers (signer, time);
DROP INDEX CONCURRENTLY IF EXISTS evm.backstop_transfers_signer;
ALTER INDEX evm.backstop_transfers_signer_next RENAME TO backstop_transfers_signer;
