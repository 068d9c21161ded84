-- migrate: no transaction
-- The book sampler's series (history_bbo, history_depth, history_slippage, history_book: every coin every 10 s, ~14 GB
-- a day at mainnet's ~550 coins) partitioned by UTC day of `time` (db/partitions.ts): a closed day is thinned to one
-- sample a coin a minute, and dropped after HISTORY_SAMPLES_KEEP_DAYS. Reads name the parents as before; the view
-- `history_spread` is made again over the partitioned `history_bbo`.
--
-- As accounts/0035: the rows stored before become one partition per table, from MINVALUE to the end of tomorrow,
-- renamed and attached (their primary keys become the partitions'), the bound checked first by a constraint validated
-- while the sampler keeps writing. Each step is re-runnable.
DO $$
DECLARE
  upto bigint := (floor(extract(epoch FROM now()) / 86400) + 2)::bigint * 86400000;
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['history_bbo', 'history_depth', 'history_slippage', 'history_book'] LOOP
    IF (SELECT relkind FROM pg_class WHERE oid = ('markets.' || t)::regclass) = 'r'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = t || '_before_bound') THEN
      EXECUTE format('ALTER TABLE markets.%I ADD CONSTRAINT %I CHECK (time < %s) NOT VALID', t, t || '_before_bound', upto);
    END IF;
  END LOOP;
END $$;
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['history_bbo', 'history_depth', 'history_slippage', 'history_book'] LOOP
    IF (SELECT relkind FROM pg_class WHERE oid = ('markets.' || t)::regclass) = 'r' THEN
      EXECUTE format('ALTER TABLE markets.%I VALIDATE CONSTRAINT %I', t, t || '_before_bound');
    END IF;
  END LOOP;
END $$;
DO $$
DECLARE
  t text;
  upto text;
  key text;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = 'markets.history_bbo'::regclass) = 'r' THEN
    DROP VIEW IF EXISTS markets.history_spread;
  END IF;
  FOREACH t IN ARRAY ARRAY['history_bbo', 'history_depth', 'history_slippage', 'history_book'] LOOP
    IF (SELECT relkind FROM pg_class WHERE oid = ('markets.' || t)::regclass) = 'r' THEN
      SELECT substring(pg_get_constraintdef(oid) FROM '< \(?''?(\d+)') INTO upto FROM pg_constraint WHERE conname = t || '_before_bound';
      SELECT pg_get_constraintdef(oid) INTO key FROM pg_constraint WHERE conname = t || '_pkey';
      EXECUTE format('ALTER TABLE markets.%I RENAME TO %I', t, t || '_before');
      EXECUTE format('ALTER INDEX markets.%I RENAME TO %I', t || '_pkey', t || '_before_pkey');
      EXECUTE format('CREATE TABLE markets.%I (LIKE markets.%I INCLUDING DEFAULTS) PARTITION BY RANGE (time)', t, t || '_before');
      EXECUTE format('ALTER TABLE markets.%I ATTACH PARTITION markets.%I FOR VALUES FROM (MINVALUE) TO (%s)', t, t || '_before', upto);
      EXECUTE format('ALTER TABLE markets.%I ADD CONSTRAINT %I %s', t, t || '_pkey', key);
      EXECUTE format('CREATE TABLE markets.%I PARTITION OF markets.%I DEFAULT', t || '_default', t);
    END IF;
  END LOOP;
END $$;
CREATE OR REPLACE VIEW markets.history_spread AS
  SELECT coin, time, bid_px, ask_px, ask_px - bid_px AS spread,
         CASE WHEN bid_px + ask_px > 0 THEN (ask_px - bid_px) / ((ask_px + bid_px) / 2) * 10000 END AS spread_bps
  FROM markets.history_bbo;
