-- migrate: no transaction
-- accounts.fills' two time-led indexes keyed on what their reads bound, without most of the execution-order
-- tie-breaks (issue 39: ≤ 520 B a stored fill). `(address, time, block_number DESC, event_index DESC, tid DESC)`
-- becomes `(address, time)`: 24 B less per entry in the index whose pages inserts keep ~60 % full. A user's
-- newest-first page reads it backward and puts the few fills tied on (address, time) in execution order with an
-- incremental sort, which its LIMIT still stops. `(time, ...)` becomes `(time, block_number DESC)`, 16 B less per entry:
-- `(time)` alone was smaller still, but then the planner took it, with the user as a filter, over the address-led
-- index for a user holding a few % of the fills (2-3x slower, measured: it reads every user's fills of the span).
--
-- Built on a large partitioned table without blocking ingest: each new index made on the parent alone (ON ONLY:
-- invalid, nothing built), then on each partition concurrently and attached (the parent is valid once all are), then
-- swapped in for the old one under its name. Re-runnable at every step: a partition's build stopped half way (left
-- invalid) is dropped and built again, an attached one is left, and once swapped nothing is made again. A partition
-- made meanwhile (db/partitions.ts) gets the new index with the parent's others.
DO $$
DECLARE
  k record;
BEGIN
  FOR k IN SELECT * FROM (VALUES ('fills_address_time', 'address, time'), ('fills_time', 'time, block_number DESC')) v (name, cols) LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                    WHERE i.oid = to_regclass('accounts.' || k.name)
                      AND pg_get_indexdef(i.oid) LIKE '%USING btree (' || replace(k.cols, 'time', '"time"') || ')') THEN
      EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON ONLY accounts.fills (%s)', k.name || '_key', k.cols);
    END IF;
  END LOOP;
END $$;
SELECT CASE WHEN built.indisvalid IS NOT TRUE THEN format('DROP INDEX CONCURRENTLY IF EXISTS %I.%I', p.nspname, p.idx) END,
       CASE WHEN built.indisvalid IS NOT TRUE
            THEN format('CREATE INDEX CONCURRENTLY %I ON %I.%I (%s)', p.idx, p.nspname, p.relname, p.cols) END,
       format('ALTER INDEX accounts.%I ATTACH PARTITION %I.%I', p.parent, p.nspname, p.idx)
  FROM (SELECT n.nspname, c.relname, c.oid, v.cols, v.parent, c.relname || v.suffix AS idx
          FROM (VALUES ('fills_address_time_key', 'address, time', '_by_address_time'),
                       ('fills_time_key', 'time, block_number DESC', '_by_time')) v (parent, cols, suffix)
          JOIN pg_inherits h ON h.inhparent = 'accounts.fills'::regclass
          JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE to_regclass('accounts.' || v.parent) IS NOT NULL
           AND NOT EXISTS (SELECT 1 FROM pg_inherits a JOIN pg_index x ON x.indexrelid = a.inhrelid
                            WHERE a.inhparent = to_regclass('accounts.' || v.parent) AND x.indrelid = c.oid)) p
  LEFT JOIN pg_index built ON built.indexrelid = to_regclass(format('%I.%I', p.nspname, p.idx))
 ORDER BY p.relname, p.parent
\gexec
-- The swap, in one transaction, once every partition's index is attached (the parent then valid): the old index
-- dropped (brief: its files unlinked, under the table's lock) and the new one given its name.
DO $$
DECLARE
  k text;
BEGIN
  FOREACH k IN ARRAY ARRAY['fills_address_time', 'fills_time'] LOOP
    IF to_regclass('accounts.' || k || '_key') IS NOT NULL THEN
      IF NOT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass('accounts.' || k || '_key')) THEN
        RAISE EXCEPTION 'accounts.%_key: a partition of accounts.fills has no index attached to it yet', k;
      END IF;
      EXECUTE format('DROP INDEX IF EXISTS accounts.%I', k);
      EXECUTE format('ALTER INDEX accounts.%I RENAME TO %I', k || '_key', k);
    END IF;
  END LOOP;
END $$;
