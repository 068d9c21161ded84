-- migrate: no transaction
-- accounts.fills partitioned by week of `time` (from Monday 00:00 UTC; db/partitions.ts): ~6.5 M fills a day at
-- mainnet, kept for ever. A closed week is frozen by the ingest role's upkeep (its indexes rebuilt full, its rows
-- frozen); a week, not a day, because a user's newest fills have no time bound and a query without one opens every
-- partition (~52 a year). Reads name the parent as before.
--
-- As 0035: the fills stored before become one partition, from MINVALUE to the end of tomorrow, renamed and attached
-- (their indexes become the partitions'), the bound checked first by a constraint validated while ingest keeps
-- writing; the week it ends in starts there. Each step is re-runnable.
DO $$
DECLARE
  upto bigint := (floor(extract(epoch FROM now()) / 86400) + 2)::bigint * 86400000;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.fills'::regclass) = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'fills_before_bound') THEN
    EXECUTE format('ALTER TABLE accounts.fills ADD CONSTRAINT fills_before_bound CHECK (time < %s) NOT VALID', upto);
  END IF;
END $$;
DO $$
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.fills'::regclass) = 'r' THEN
    ALTER TABLE accounts.fills VALIDATE CONSTRAINT fills_before_bound;
  END IF;
END $$;
DO $$
DECLARE
  upto text;
  i text;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.fills'::regclass) = 'r' THEN
    SELECT substring(pg_get_constraintdef(oid) FROM '< \(?''?(\d+)') INTO upto
      FROM pg_constraint WHERE conname = 'fills_before_bound';
    ALTER TABLE accounts.fills RENAME TO fills_before;
    FOREACH i IN ARRAY ARRAY['fills_address_time', 'fills_time', 'fills_coin_time', 'fills_builder_time', 'fills_twap'] LOOP
      EXECUTE format('ALTER INDEX accounts.%I RENAME TO %I', i, replace(i, 'fills_', 'fills_before_'));
    END LOOP;
    CREATE TABLE accounts.fills (LIKE accounts.fills_before INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
      PARTITION BY RANGE (time);
    ALTER TABLE accounts.fills DROP CONSTRAINT fills_before_bound;
    EXECUTE format('ALTER TABLE accounts.fills ATTACH PARTITION accounts.fills_before FOR VALUES FROM (MINVALUE) TO (%s)', upto);
    CREATE TABLE accounts.fills_default PARTITION OF accounts.fills DEFAULT;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS fills_address_time ON accounts.fills (address, time, block_number DESC, event_index DESC, tid DESC);
CREATE INDEX IF NOT EXISTS fills_time ON accounts.fills (time, block_number DESC, event_index DESC, tid DESC);
CREATE INDEX IF NOT EXISTS fills_coin_time ON accounts.fills (coin, time);
CREATE INDEX IF NOT EXISTS fills_builder_time ON accounts.fills (builder, time) WHERE builder IS NOT NULL;
CREATE INDEX IF NOT EXISTS fills_twap ON accounts.fills (address, twap_id, time) WHERE twap_id IS NOT NULL;
