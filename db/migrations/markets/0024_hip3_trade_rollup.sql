-- markets: HIP-3 trades summed per coin and UTC hour, and per coin since its first trade, so that /hip3/snapshots and
-- /hip3/top-movers read a day of hours and one row per coin instead of summing every HIP-3 trade stored (at mainnet
-- size that sum outlasted the statement timeout). Kept by the loader that writes markets.trades, in the same
-- transaction and from the same rows (ingest/formats/fills.ts): a trade counts as often as it is stored, once.
CREATE TABLE markets.hip3_trade_hours (
  coin    text NOT NULL,
  hour    bigint NOT NULL,     -- epoch ms of the hour's start
  trades  integer NOT NULL,
  volume  numeric NOT NULL,    -- Σ px × sz
  fees    numeric NOT NULL,    -- Σ trades.fees (both sides')
  -- The key alone: the sums change with every batch, and updates that touch no indexed column stay on their page.
  PRIMARY KEY (coin, hour)
);

-- The running totals: one row per coin, so that the cumulative figures cost one row however long the coin has traded.
CREATE TABLE markets.hip3_trade_totals (
  coin    text PRIMARY KEY,
  trades  bigint NOT NULL,
  volume  numeric NOT NULL,
  fees    numeric NOT NULL
);

-- The trades stored before this migration are summed after it, in steps of a few hours of one coin, by the markets
-- writer (domains/markets/writer/): a migration that read them all would hold ingest back for as long as that
-- takes. This row says how far it got, and is deleted when it is done; until then the snapshots are summed from the
-- trades as before. `coin`: the coin being filled (NULL: none yet; every coin before it, in the trades index's
-- order, is done); `hour`: its hours before this one are done (NULL: none yet).
CREATE TABLE markets.hip3_trade_fill (
  single  boolean PRIMARY KEY DEFAULT true CHECK (single),
  coin    text,
  hour    bigint
);
-- An empty table has nothing to fill (a new database); this reads its first row, not the table.
INSERT INTO markets.hip3_trade_fill (single) SELECT true WHERE EXISTS (SELECT 1 FROM markets.trades);
