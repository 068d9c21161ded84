-- migrate: no transaction
-- accounts.order_statuses partitioned by UTC day of `time` (db/partitions.ts): a node writes ~10 000 status rows a
-- second, and a closed day is thinned to the orders that filled, triggered or were liquidated (the ingest role's
-- upkeep), then frozen. Reads name the parent as before.
--
-- The rows stored before become one partition, from MINVALUE to the end of tomorrow (by the database's clock: rows
-- written while this runs fit): the table is renamed and attached, not rewritten, and its indexes become the
-- partitions' (matching ones are attached, not built). Its bound is checked first with a constraint validated while
-- ingest keeps writing (SHARE UPDATE EXCLUSIVE), so the attach, under the lock, reads nothing. Each step is
-- re-runnable. New days are made by ingest before it writes them; a DEFAULT partition takes a row no day holds
-- (writers other than ingest, such as tests).
DO $$
DECLARE
  upto bigint := (floor(extract(epoch FROM now()) / 86400) + 2)::bigint * 86400000;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.order_statuses'::regclass) = 'r'
     AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'order_statuses_before_bound') THEN
    EXECUTE format('ALTER TABLE accounts.order_statuses ADD CONSTRAINT order_statuses_before_bound CHECK (time < %s) NOT VALID', upto);
  END IF;
END $$;
DO $$
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.order_statuses'::regclass) = 'r' THEN
    ALTER TABLE accounts.order_statuses VALIDATE CONSTRAINT order_statuses_before_bound;
  END IF;
END $$;
DO $$
DECLARE
  upto text;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'accounts.order_statuses'::regclass) = 'r' THEN
    SELECT substring(pg_get_constraintdef(oid) FROM '< \(?''?(\d+)') INTO upto
      FROM pg_constraint WHERE conname = 'order_statuses_before_bound';
    ALTER TABLE accounts.order_statuses RENAME TO order_statuses_before;
    ALTER INDEX accounts.order_statuses_address_time RENAME TO order_statuses_before_address_time;
    ALTER INDEX accounts.order_statuses_address_oid RENAME TO order_statuses_before_address_oid;
    ALTER INDEX accounts.order_statuses_cloid RENAME TO order_statuses_before_cloid;
    CREATE TABLE accounts.order_statuses (LIKE accounts.order_statuses_before INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
      PARTITION BY RANGE (time);
    ALTER TABLE accounts.order_statuses DROP CONSTRAINT order_statuses_before_bound;
    EXECUTE format('ALTER TABLE accounts.order_statuses ATTACH PARTITION accounts.order_statuses_before FOR VALUES FROM (MINVALUE) TO (%s)', upto);
    CREATE TABLE accounts.order_statuses_default PARTITION OF accounts.order_statuses DEFAULT;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS order_statuses_address_time ON accounts.order_statuses (address, time);
CREATE INDEX IF NOT EXISTS order_statuses_address_oid ON accounts.order_statuses (address, oid, time DESC);
CREATE INDEX IF NOT EXISTS order_statuses_cloid ON accounts.order_statuses (address, cloid) WHERE cloid IS NOT NULL;
