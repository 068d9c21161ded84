-- migrate: no transaction
-- Time-leading indexes ascending, read backward: a B-tree keeps its pages ~90 % full when each insert lands at the
-- right end of its key range (Postgres splits the rightmost page, or "after the new item", at fillfactor), and ~50 %
-- when it lands at the left (a 50:50 split), which is where a `time DESC` index puts every new row. A backward scan
-- of an ascending index reads the same order as a forward scan of the descending one (every column reversed, so a
-- tie-break that ran ascending is written descending here). Measured: `BENCH_ONLY=storage npm run bench`.
--
-- Each index is built under a new name while ingest keeps writing (CONCURRENTLY: no transaction, see db/migrate.ts),
-- then swapped in; a stop half way re-runs the file from the top, which rebuilds what it had not swapped yet.
--
-- Dropped, as no read uses them: fills by oid and by (address, cloid) (orders are looked up in order_statuses), and
-- order statuses by oid alone (every lookup names the user: (address, oid) serves it). At mainnet's rates they cost
-- ~90 B per fill and ~25 B per order status.

DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_oid;
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_cloid;
DROP INDEX CONCURRENTLY IF EXISTS accounts.order_statuses_oid;

-- The fill lists' order (fillOrder: newest time first, then execution order forwards), read backward.
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_address_time_next;
CREATE INDEX CONCURRENTLY fills_address_time_next ON accounts.fills (address, time, block_number DESC, event_index DESC, tid DESC);
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_address_time;
ALTER INDEX accounts.fills_address_time_next RENAME TO fills_address_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_time_next;
CREATE INDEX CONCURRENTLY fills_time_next ON accounts.fills (time, block_number DESC, event_index DESC, tid DESC);
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_time;
ALTER INDEX accounts.fills_time_next RENAME TO fills_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_coin_time_next;
CREATE INDEX CONCURRENTLY fills_coin_time_next ON accounts.fills (coin, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_coin_time;
ALTER INDEX accounts.fills_coin_time_next RENAME TO fills_coin_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_builder_time_next;
CREATE INDEX CONCURRENTLY fills_builder_time_next ON accounts.fills (builder, time) WHERE builder IS NOT NULL;
DROP INDEX CONCURRENTLY IF EXISTS accounts.fills_builder_time;
ALTER INDEX accounts.fills_builder_time_next RENAME TO fills_builder_time;

-- A user's orders newest first (oids grow with time, so they are time-leading too).
DROP INDEX CONCURRENTLY IF EXISTS accounts.order_statuses_address_time_next;
CREATE INDEX CONCURRENTLY order_statuses_address_time_next ON accounts.order_statuses (address, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.order_statuses_address_time;
ALTER INDEX accounts.order_statuses_address_time_next RENAME TO order_statuses_address_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.order_statuses_address_oid_next;
CREATE INDEX CONCURRENTLY order_statuses_address_oid_next ON accounts.order_statuses (address, oid, time DESC);
DROP INDEX CONCURRENTLY IF EXISTS accounts.order_statuses_address_oid;
ALTER INDEX accounts.order_statuses_address_oid_next RENAME TO order_statuses_address_oid;
DROP INDEX CONCURRENTLY IF EXISTS accounts.twap_statuses_address_time_next;
CREATE INDEX CONCURRENTLY twap_statuses_address_time_next ON accounts.twap_statuses (address, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.twap_statuses_address_time;
ALTER INDEX accounts.twap_statuses_address_time_next RENAME TO twap_statuses_address_time;

DROP INDEX CONCURRENTLY IF EXISTS accounts.funding_payments_address_time_next;
CREATE INDEX CONCURRENTLY funding_payments_address_time_next ON accounts.funding_payments (address, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.funding_payments_address_time;
ALTER INDEX accounts.funding_payments_address_time_next RENAME TO funding_payments_address_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.funding_payments_coin_time_next;
CREATE INDEX CONCURRENTLY funding_payments_coin_time_next ON accounts.funding_payments (coin, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.funding_payments_coin_time;
ALTER INDEX accounts.funding_payments_coin_time_next RENAME TO funding_payments_coin_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_address_time_next;
CREATE INDEX CONCURRENTLY ledger_updates_address_time_next ON accounts.ledger_updates (address, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_address_time;
ALTER INDEX accounts.ledger_updates_address_time_next RENAME TO ledger_updates_address_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_type_time_next;
CREATE INDEX CONCURRENTLY ledger_updates_type_time_next ON accounts.ledger_updates (delta_type, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.ledger_updates_type_time;
ALTER INDEX accounts.ledger_updates_type_time_next RENAME TO ledger_updates_type_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_time_next;
CREATE INDEX CONCURRENTLY liquidations_time_next ON accounts.liquidations (time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_time;
ALTER INDEX accounts.liquidations_time_next RENAME TO liquidations_time;
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_liquidated_next;
CREATE INDEX CONCURRENTLY liquidations_liquidated_next ON accounts.liquidations (liquidated_user, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_liquidated;
ALTER INDEX accounts.liquidations_liquidated_next RENAME TO liquidations_liquidated;
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_liquidator_next;
CREATE INDEX CONCURRENTLY liquidations_liquidator_next ON accounts.liquidations (liquidator, time);
DROP INDEX CONCURRENTLY IF EXISTS accounts.liquidations_liquidator;
ALTER INDEX accounts.liquidations_liquidator_next RENAME TO liquidations_liquidator;
