-- migrate: no transaction
-- Time-leading indexes ascending, read backward: a B-tree keeps its pages ~90 % full when each insert lands at the
-- right end of its key range (Postgres splits the rightmost page, or "after the new item", at fillfactor), and ~50 %
-- when it lands at the left (a 50:50 split), which is where a `time DESC` index puts every new row. A backward scan
-- of an ascending index reads the same order as a forward scan of the descending one (every column reversed, so a
-- tie-break that ran ascending is written descending here). Measured: `BENCH_ONLY=storage npm run bench`.
--
-- Each index is built under a new name while ingest keeps writing (CONCURRENTLY: no transaction, see db/migrate.ts),
-- then swapped in; a stop half way re-runs the file from the top, which rebuilds what it had not swapped yet.

DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_time_next;
CREATE INDEX CONCURRENTLY hip4_fills_time_next ON hip4.fills (time, tid);
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_time;
ALTER INDEX hip4.hip4_fills_time_next RENAME TO hip4_fills_time;
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_coin_time_next;
CREATE INDEX CONCURRENTLY hip4_fills_coin_time_next ON hip4.fills (coin, time);
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_coin_time;
ALTER INDEX hip4.hip4_fills_coin_time_next RENAME TO hip4_fills_coin_time;
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_outcome_time_next;
CREATE INDEX CONCURRENTLY hip4_fills_outcome_time_next ON hip4.fills (outcome_id, time);
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_outcome_time;
ALTER INDEX hip4.hip4_fills_outcome_time_next RENAME TO hip4_fills_outcome_time;
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_address_time_next;
CREATE INDEX CONCURRENTLY hip4_fills_address_time_next ON hip4.fills (address, time);
DROP INDEX CONCURRENTLY IF EXISTS hip4.hip4_fills_address_time;
ALTER INDEX hip4.hip4_fills_address_time_next RENAME TO hip4_fills_address_time;
