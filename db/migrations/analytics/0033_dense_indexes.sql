-- migrate: no transaction
-- Time-leading indexes ascending, read backward: a B-tree keeps its pages ~90 % full when each insert lands at the
-- right end of its key range (Postgres splits the rightmost page, or "after the new item", at fillfactor), and ~50 %
-- when it lands at the left (a 50:50 split), which is where a `time DESC` index puts every new row. A backward scan
-- of an ascending index reads the same order as a forward scan of the descending one (every column reversed, so a
-- tie-break that ran ascending is written descending here). Measured: `BENCH_ONLY=storage npm run bench`.
--
-- Each index is built under a new name while ingest keeps writing (CONCURRENTLY: no transaction, see db/migrate.ts),
-- then swapped in; a stop half way re-runs the file from the top, which rebuilds what it had not swapped yet.

DROP INDEX CONCURRENTLY IF EXISTS analytics.round_trips_address_closed_next;
CREATE INDEX CONCURRENTLY round_trips_address_closed_next ON analytics.round_trips (address, closed_at);
DROP INDEX CONCURRENTLY IF EXISTS analytics.round_trips_address_closed;
ALTER INDEX analytics.round_trips_address_closed_next RENAME TO round_trips_address_closed;
