-- The first and last event time of the tables whose time has no index leading with it, kept as rows are written, so
-- that dataCoverage (platform/coverage.ts) reads a row, not a table: on a mainnet day, min/max of
-- accounts.funding_payments alone took 2.8 s, and the five such tables together passed the statement timeout.
--
-- A table keeps its bounds once `platform.keep_time_bounds(table, column)` is called (its domain's migration):
-- - every INSERT statement (COPY too) widens them by its rows' min and max, in the writer's transaction (a trigger
--   on the parent, over the statement's transition table: rows only rewritten by ON CONFLICT DO UPDATE are not in it);
--   the row is written only when a statement widens it, so the present's lane updates `latest` and a backfill
--   `earliest`, each its own end;
-- - a DELETE or a dropped partition (db/partitions.ts calls forget_time_bounds) may narrow them: the bounds are then
--   unknown (`complete` false) until the writer's upkeep reads the table's min and max again (completeTimeBounds);
--   meanwhile dataCoverage reads them from the table as it did before;
-- - a TRUNCATE leaves the table empty: bounds known, none.
-- `generation` counts the forgettings: an upkeep's min and max, read while a partition was dropped, are not kept.
CREATE TABLE platform.time_bounds (
  tbl         text NOT NULL,
  col         text NOT NULL,
  earliest    bigint,
  latest      bigint,
  complete    boolean NOT NULL DEFAULT false,
  generation  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (tbl, col)
);

CREATE FUNCTION platform.time_bounds_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lo bigint;
  hi bigint;
BEGIN
  EXECUTE format('SELECT min(%1$I), max(%1$I) FROM inserted', TG_ARGV[0]) INTO lo, hi;
  IF lo IS NOT NULL THEN
    UPDATE platform.time_bounds SET earliest = least(earliest, lo), latest = greatest(latest, hi)
     WHERE tbl = TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME AND col = TG_ARGV[0]
       AND (earliest IS NULL OR earliest > lo OR latest < hi);
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION platform.forget_time_bounds(target text, emptied boolean DEFAULT false) RETURNS void
LANGUAGE sql AS $$
  UPDATE platform.time_bounds SET earliest = NULL, latest = NULL, complete = emptied, generation = generation + 1
   WHERE tbl = target;
$$;

CREATE FUNCTION platform.time_bounds_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM platform.forget_time_bounds(TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP = 'TRUNCATE');
  RETURN NULL;
END $$;

-- `target` as 'schema.table'. Its bounds are unknown until the upkeep reads them, unless the table is empty. Called
-- again (a table partitioned later by platform.partition_table, whose new parent has no triggers), it starts over.
CREATE FUNCTION platform.keep_time_bounds(target text, time_column text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  empty boolean;
BEGIN
  EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %s)', target::regclass) INTO empty;
  INSERT INTO platform.time_bounds AS b (tbl, col, complete) VALUES (target, time_column, empty)
    ON CONFLICT (tbl, col) DO UPDATE
    SET earliest = NULL, latest = NULL, complete = empty, generation = b.generation + 1;
  EXECUTE format('CREATE OR REPLACE TRIGGER time_bounds_inserted AFTER INSERT ON %s REFERENCING NEW TABLE AS inserted
                  FOR EACH STATEMENT EXECUTE FUNCTION platform.time_bounds_inserted(%L)', target::regclass, time_column);
  EXECUTE format('CREATE OR REPLACE TRIGGER time_bounds_deleted AFTER DELETE OR TRUNCATE ON %s
                  FOR EACH STATEMENT EXECUTE FUNCTION platform.time_bounds_deleted()', target::regclass);
END $$;
