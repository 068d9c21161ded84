-- hip4 fill statistics per outcome coin and UTC hour: what /hip4/analytics sums instead of scanning the fills
-- (30 days of 10 coins is 7 200 rows here against ~25 000 fills at a million fills). Settlement fills are left
-- out, as analytics leaves them out. Kept by triggers on hip4.fills, so a row is added in the same transaction as
-- the fills it counts (ingest's COPY, which commits with its checkpoint, fires them too): exactly once, whoever
-- writes the fills. 4h and 1d buckets are sums of whole hours; unique users come from the hour's distinct
-- addresses, so a bucket of several hours or coins counts each address once.
CREATE TABLE hip4.fill_hours (
  coin         text NOT NULL,
  hour         bigint NOT NULL,    -- epoch ms of the hour's start
  outcome_id   integer NOT NULL,   -- the coin's outcome (#<10*outcome+side>)
  fills        integer NOT NULL,
  volume       numeric NOT NULL,   -- notional of the matches (the taker's fills)
  buy_volume   numeric NOT NULL,
  sell_volume  numeric NOT NULL,
  fees         numeric NOT NULL,
  addresses    text[] NOT NULL,    -- distinct, sorted
  PRIMARY KEY (coin, hour)
);
CREATE INDEX hip4_fill_hours_outcome ON hip4.fill_hours (outcome_id, hour);
CREATE INDEX hip4_fill_hours_hour ON hip4.fill_hours (hour);

-- The statistics of a set of fill rows per coin and hour; the one definition both the trigger and the backfill use.
CREATE FUNCTION hip4.fill_hours_of(rows hip4.fills[]) RETURNS SETOF hip4.fill_hours
LANGUAGE sql STABLE AS $$
  SELECT f.coin, (f.time / 3600000) * 3600000, min(f.outcome_id), count(*)::int,
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed), 0),
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'B'), 0),
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'A'), 0),
    coalesce(sum(f.fee), 0), array_agg(DISTINCT f.address ORDER BY f.address)
  FROM unnest(rows) f
  WHERE NOT f.is_settlement
  GROUP BY 1, 2
$$;

CREATE FUNCTION hip4.fill_hours_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO hip4.fill_hours AS h
  SELECT * FROM hip4.fill_hours_of(ARRAY(SELECT ROW(n.*)::hip4.fills FROM new_fills n))
  ON CONFLICT (coin, hour) DO UPDATE SET
    fills = h.fills + EXCLUDED.fills,
    volume = h.volume + EXCLUDED.volume,
    buy_volume = h.buy_volume + EXCLUDED.buy_volume,
    sell_volume = h.sell_volume + EXCLUDED.sell_volume,
    fees = h.fees + EXCLUDED.fees,
    addresses = ARRAY(SELECT DISTINCT a FROM unnest(h.addresses || EXCLUDED.addresses) a ORDER BY a);
  RETURN NULL;
END $$;

CREATE TRIGGER fill_hours_add AFTER INSERT ON hip4.fills
  REFERENCING NEW TABLE AS new_fills FOR EACH STATEMENT EXECUTE FUNCTION hip4.fill_hours_add();

-- Rows are never deleted from hip4.fills one by one (append-only); emptying it empties the rollup.
CREATE FUNCTION hip4.fill_hours_clear() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE hip4.fill_hours;
  RETURN NULL;
END $$;

CREATE TRIGGER fill_hours_clear AFTER TRUNCATE ON hip4.fills
  FOR EACH STATEMENT EXECUTE FUNCTION hip4.fill_hours_clear();

-- The fills already held, a day at a time (a day holds whole hours; one array of every fill would not fit).
DO $$
DECLARE
  d bigint;
BEGIN
  FOR d IN SELECT DISTINCT f.time / 86400000 FROM hip4.fills f LOOP
    INSERT INTO hip4.fill_hours
    SELECT * FROM hip4.fill_hours_of(
      ARRAY(SELECT f FROM hip4.fills f WHERE f.time >= d * 86400000 AND f.time < (d + 1) * 86400000));
  END LOOP;
END $$;
