-- hip4 fill statistics per outcome coin and UTC hour: what /hip4/analytics answers a coin's 1h buckets from instead
-- of aggregating its fills (30 days of 10 coins is 7 200 rows of an index here against ~25 000 fills at a million
-- fills). Settlement fills are left out, as analytics leaves them out. Kept by triggers on hip4.fills, so a row
-- changes in the same transaction as the fills it counts (ingest's COPY, which commits with its checkpoint, fires
-- them too): exactly once, whoever writes the fills.
CREATE TABLE hip4.fill_hours (
  coin         text NOT NULL,
  hour         bigint NOT NULL,    -- epoch ms of the hour's start
  outcome_id   integer NOT NULL,   -- the coin's outcome (#<10*outcome+side>)
  fills        integer NOT NULL,
  volume       numeric NOT NULL,   -- notional of the matches (the taker's fills)
  buy_volume   numeric NOT NULL,
  sell_volume  numeric NOT NULL,
  fees         numeric NOT NULL,
  users        integer NOT NULL,   -- distinct addresses
  -- Every column in the index, so a coin's hours are read from it alone (they are scattered over the heap in
  -- arrival order).
  PRIMARY KEY (coin, hour) INCLUDE (outcome_id, fills, volume, buy_volume, sell_volume, fees, users)
);
CREATE INDEX hip4_fill_hours_outcome ON hip4.fill_hours (outcome_id, hour);

-- The statistics of a set of fill rows per coin and hour: the one definition the trigger, the backfill and the
-- partial hours at the edges of an analytics window use.
CREATE FUNCTION hip4.fill_hours_of(rows hip4.fills[]) RETURNS SETOF hip4.fill_hours
LANGUAGE sql STABLE AS $$
  SELECT f.coin, (f.time / 3600000) * 3600000, min(f.outcome_id), count(*)::int,
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed), 0),
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'B'), 0),
    coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed AND f.side = 'A'), 0),
    coalesce(sum(f.fee), 0), count(DISTINCT f.address)::int
  FROM unnest(rows) f
  WHERE NOT f.is_settlement
  GROUP BY 1, 2
$$;

-- Sums add up; distinct users do not, so an hour that already has a row counts its users again from the fills (one
-- coin's hour, on the (coin, time) index), which this statement's rows are already among.
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
    users = (
      SELECT count(DISTINCT f.address)::int FROM hip4.fills f
      WHERE f.coin = h.coin AND f.time >= h.hour AND f.time < h.hour + 3600000 AND NOT f.is_settlement
    );
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
