-- accounts.order_statuses partitioned by UTC day of `time` (db/partitions.ts): a node writes ~10 000 status rows a
-- second, and a closed day is thinned to the orders that filled, triggered or were liquidated (the ingest role's
-- upkeep), then frozen. Reads name the parent as before.
--
-- The rows stored before become one partition, from MINVALUE to the end of their last day: the table is renamed and
-- attached, not rewritten, and its indexes become the partitions' (matching ones are attached, not built). Finding
-- that end and checking the bound read the table twice, under this migration's lock. New days are made by ingest
-- before it writes them; a DEFAULT partition takes a row no day holds (writers other than ingest, such as tests).
ALTER TABLE accounts.order_statuses RENAME TO order_statuses_before;
ALTER INDEX accounts.order_statuses_address_time RENAME TO order_statuses_before_address_time;
ALTER INDEX accounts.order_statuses_address_oid RENAME TO order_statuses_before_address_oid;
ALTER INDEX accounts.order_statuses_cloid RENAME TO order_statuses_before_cloid;

CREATE TABLE accounts.order_statuses (LIKE accounts.order_statuses_before INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
  PARTITION BY RANGE (time);

DO $$
DECLARE
  upto bigint;
BEGIN
  SELECT coalesce((max(time) / 86400000 + 1) * 86400000, 0) INTO upto FROM accounts.order_statuses_before;
  EXECUTE format('ALTER TABLE accounts.order_statuses_before ADD CONSTRAINT order_statuses_before_bound CHECK (time < %s)', upto);
  EXECUTE format('ALTER TABLE accounts.order_statuses ATTACH PARTITION accounts.order_statuses_before FOR VALUES FROM (MINVALUE) TO (%s)', upto);
END $$;

CREATE TABLE accounts.order_statuses_default PARTITION OF accounts.order_statuses DEFAULT;

CREATE INDEX order_statuses_address_time ON accounts.order_statuses (address, time);
CREATE INDEX order_statuses_address_oid ON accounts.order_statuses (address, oid, time DESC);
CREATE INDEX order_statuses_cloid ON accounts.order_statuses (address, cloid) WHERE cloid IS NOT NULL;
