-- platform.partition_table(parent, key): a table partitioned by range of `key` (epoch ms; db/partitions.ts makes its
-- days or weeks), its rows kept where they are. What migrations 0035, 0036 and 0051 each wrote out, once; later
-- conversions are one CALL each, in a `-- migrate: no transaction` migration (the procedure commits between its
-- steps, which Postgres allows only from a CALL outside a transaction block):
--
-- 1. a constraint bounds the rows stored before: `key` < the end of tomorrow (by the database's clock: rows written
--    while this runs fit), added NOT VALID (nothing read) and committed;
-- 2. validated while ingest keeps writing (SHARE UPDATE EXCLUSIVE), and committed;
-- 3. under the table's lock, briefly: the table renamed `<table>_before` with its indexes (`<table>_before_...`), a
--    partitioned parent made under the old name (its columns, defaults, NOT NULL and CHECK constraints), the old table
--    attached from MINVALUE to the bound (the validated constraint implies it: nothing read, nothing rewritten), a
--    DEFAULT partition made (a row no period holds yet: a writer other than ingest), then the old table's primary and
--    unique keys and indexes declared on the parent (the old table's matching ones attached, not built).
--
-- Re-runnable: a stop after 1 or 2 resumes from the constraint kept; a table already partitioned is left as it is.
-- Refused (nothing changed by step 3): a primary or unique key without `key` (Postgres needs the partition key in
-- it), an exclusion or foreign key on the table or referring to it, a view over it (drop the view before the CALL and
-- make it again after, as 0036 did for `markets.history_spread`).
CREATE OR REPLACE PROCEDURE platform.partition_table(parent text, key text DEFAULT 'time')
LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := parent::regclass;
  sch text;
  tbl text;
  bound text;
  upto text;
  r record;
  keys text[] := '{}';
  indexes text[] := '{}';
  statement text;
BEGIN
  SELECT n.nspname, c.relname INTO sch, tbl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.oid = rel;
  IF (SELECT relkind FROM pg_class WHERE oid = rel) <> 'r' THEN
    RETURN;
  END IF;
  -- What cannot be carried over is refused before anything is changed.
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE confrelid = rel) THEN
    RAISE EXCEPTION '%.%: a foreign key refers to it', sch, tbl;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid
              WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid = rel AND w.ev_class <> rel) THEN
    RAISE EXCEPTION '%.%: a view reads it (drop it before, make it again after)', sch, tbl;
  END IF;
  FOR r IN SELECT conname, contype, pg_get_constraintdef(c.oid) AS def,
                  (SELECT attnum FROM pg_attribute WHERE attrelid = rel AND attname = key) = ANY (conkey) AS keyed
             FROM pg_constraint c WHERE conrelid = rel AND contype IN ('p', 'u', 'x', 'f') ORDER BY conname LOOP
    IF r.contype IN ('x', 'f') OR NOT r.keyed THEN
      -- A unique key must hold the partition key; a foreign or exclusion key is not carried.
      RAISE EXCEPTION '%.%: its key % (%) cannot be carried to partitions by %', sch, tbl, r.conname, r.def, key;
    END IF;
    keys := keys || format('ALTER TABLE %I.%I ADD CONSTRAINT %I %s', sch, tbl, r.conname, r.def);
  END LOOP;
  bound := tbl || '_before_bound';
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = rel AND conname = bound) THEN
    EXECUTE format('ALTER TABLE %I.%I ADD CONSTRAINT %I CHECK (%I < %s) NOT VALID', sch, tbl, bound, key,
      (floor(extract(epoch FROM now()) / 86400) + 2)::bigint * 86400000);
  END IF;
  COMMIT;
  EXECUTE format('ALTER TABLE %I.%I VALIDATE CONSTRAINT %I', sch, tbl, bound);
  COMMIT;
  EXECUTE format('LOCK TABLE %I.%I IN ACCESS EXCLUSIVE MODE', sch, tbl);
  SELECT substring(pg_get_constraintdef(oid) FROM '< \(?''?(\d+)') INTO upto
    FROM pg_constraint WHERE conrelid = rel AND conname = bound;
  -- Every index, a key's too, renamed as the old table's: `<table>_x` becomes `<table>_before_x`; the valid ones
  -- declared on the parent (one a concurrent build left invalid stays the old table's).
  FOR r IN SELECT i.indexrelid::regclass AS idx, c.relname AS name, pg_get_indexdef(i.indexrelid) AS def,
                  EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = rel) AS keyed,
                  i.indisvalid AS valid
             FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = rel ORDER BY c.relname LOOP
    IF NOT r.keyed AND r.valid THEN
      indexes := indexes || r.def;
    END IF;
    EXECUTE format('ALTER INDEX %s RENAME TO %I', r.idx,
      left(CASE WHEN starts_with(r.name, tbl || '_') THEN tbl || '_before' || substr(r.name, length(tbl) + 1)
                ELSE r.name || '_before' END, 63));
  END LOOP;
  EXECUTE format('ALTER TABLE %I.%I RENAME TO %I', sch, tbl, tbl || '_before');
  EXECUTE format('CREATE TABLE %I.%I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (%I)',
    sch, tbl, sch, tbl || '_before', key);
  EXECUTE format('ALTER TABLE %I.%I DROP CONSTRAINT %I', sch, tbl, bound);
  EXECUTE format('ALTER TABLE %I.%I ATTACH PARTITION %I.%I FOR VALUES FROM (MINVALUE) TO (%s)', sch, tbl, sch,
    tbl || '_before', upto);
  EXECUTE format('CREATE TABLE %I.%I PARTITION OF %I.%I DEFAULT', sch, tbl || '_default', sch, tbl);
  -- pg_get_indexdef named the table by its name, now the parent's.
  FOREACH statement IN ARRAY keys || indexes LOOP
    EXECUTE statement;
  END LOOP;
END $$;
