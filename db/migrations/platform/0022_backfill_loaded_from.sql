-- A backfill that no writer followed as it loaded (an archive import): the oldest event time its last complete run
-- loaded (null: it loaded nothing, or a writer derived it as it went). The analytics derivation reads it to include
-- the imported days: from the start again when they lie before its checkpoint. A new nullable column: no rewrite.
ALTER TABLE platform.backfills ADD COLUMN loaded_from_ms bigint;
