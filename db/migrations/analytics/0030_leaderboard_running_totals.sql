-- analytics: leaderboards from running totals, ranked aside and swapped in (issue 39, item 3).
--
-- 1. Running totals per address (user_totals): the all-time sums of user_daily, kept by the derivation's batch in its
--    own transaction (statements.ts), so the `all` board reads one row per address instead of re-summing every day
--    of history. `first_hour` is the address's first derived hour: a board as of an earlier time leaves it out.
--    Counters are int8: an address's all-time fills pass 2^31 within years at a market maker's rate. Updated by every
--    batch that touches the address and never by an indexed column: room left on each page for HOT updates.
CREATE TABLE analytics.user_totals (
  address       text PRIMARY KEY,
  first_hour    bigint NOT NULL,
  fills         bigint NOT NULL,
  volume        numeric NOT NULL,
  realized_pnl  numeric NOT NULL,
  fees          numeric NOT NULL,
  funding       numeric NOT NULL,
  wins          bigint NOT NULL,
  losses        bigint NOT NULL,
  trips         bigint NOT NULL,
  longs         bigint NOT NULL,
  shorts        bigint NOT NULL
) WITH (fillfactor = 80);

INSERT INTO analytics.user_totals (address, first_hour, fills, volume, realized_pnl, fees, funding, wins, losses, trips,
  longs, shorts)
SELECT d.address, coalesce(h.first_hour, (extract(epoch FROM d.first_day) * 1000)::int8), d.fills, d.volume,
  d.realized_pnl, d.fees, d.funding, d.wins, d.losses, d.trips, d.longs, d.shorts
FROM (SELECT address, min(day) AS first_day, sum(fills) AS fills, sum(volume) AS volume,
        sum(realized_pnl) AS realized_pnl, sum(fees) AS fees, sum(funding) AS funding, sum(wins) AS wins,
        sum(losses) AS losses, sum(trips) AS trips, sum(longs) AS longs, sum(shorts) AS shorts
      FROM analytics.user_daily GROUP BY address) d
LEFT JOIN (SELECT address, min(hour) AS first_hour FROM analytics.user_hourly GROUP BY address) h USING (address);

-- 2. The latest snapshot's unrealized PnL beside its account value in the job's running state: the boards read the
--    current value per address from here (a join) instead of probing account_snapshots once per address.
ALTER TABLE analytics.account_state ADD COLUMN snapshot_unrealized numeric;
UPDATE analytics.account_state st SET snapshot_value = sn.account_value, snapshot_unrealized = sn.unrealized_pnl
FROM (SELECT DISTINCT ON (address) address, account_value, unrealized_pnl FROM analytics.account_snapshots
      ORDER BY address, time DESC) sn
WHERE sn.address = st.address;

-- 3. The scheduled boards partitioned by window: a refresh builds the window's next board in a table of its own, with
--    its indexes, and swaps it in (detach, drop, attach) in its last milliseconds. Readers see the old board or the new
--    one, never half of either, and nothing is deleted row by row (the DELETE + INSERT of ~1.5 M rows left as many
--    dead tuples in the table and its 7 indexes every hour).
ALTER TABLE analytics.leaderboard RENAME TO leaderboard_unpartitioned;
CREATE TABLE analytics.leaderboard (
  window_name          text NOT NULL,
  address              text NOT NULL,
  fills                integer NOT NULL,
  volume               numeric NOT NULL,
  realized_pnl         numeric NOT NULL,
  fees                 numeric NOT NULL,
  wins                 integer NOT NULL,
  losses               integer NOT NULL,
  win_rate             numeric,
  pnl_pct              numeric,
  account_value        numeric,
  unrealized_pnl       numeric,
  refreshed_at         timestamptz NOT NULL,
  funding              numeric NOT NULL DEFAULT 0,
  trades               integer NOT NULL DEFAULT 0,
  rank_volume          integer,
  rank_pnl             integer,
  rank_trades          integer,
  rank_win_rate        integer,
  rank_pnl_pct         integer,
  rank_unrealized_pnl  integer
) PARTITION BY LIST (window_name);
CREATE TABLE analytics.leaderboard_7d PARTITION OF analytics.leaderboard FOR VALUES IN ('7d');
CREATE TABLE analytics.leaderboard_30d PARTITION OF analytics.leaderboard FOR VALUES IN ('30d');
CREATE TABLE analytics.leaderboard_all PARTITION OF analytics.leaderboard FOR VALUES IN ('all');
INSERT INTO analytics.leaderboard (window_name, address, fills, volume, realized_pnl, fees, wins, losses, win_rate,
  pnl_pct, account_value, unrealized_pnl, refreshed_at, funding, trades, rank_volume, rank_pnl, rank_trades,
  rank_win_rate, rank_pnl_pct, rank_unrealized_pnl)
SELECT window_name, address, fills, volume, realized_pnl, fees, wins, losses, win_rate, pnl_pct, account_value,
  unrealized_pnl, refreshed_at, funding, trades, rank_volume, rank_pnl, rank_trades, rank_win_rate, rank_pnl_pct,
  rank_unrealized_pnl
FROM analytics.leaderboard_unpartitioned;
DROP TABLE analytics.leaderboard_unpartitioned;
-- The same indexes as before (0015), now one per partition.
ALTER TABLE analytics.leaderboard ADD PRIMARY KEY (window_name, address);
CREATE INDEX leaderboard_rank_volume ON analytics.leaderboard (window_name, rank_volume) WHERE rank_volume IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl ON analytics.leaderboard (window_name, rank_pnl) WHERE rank_pnl IS NOT NULL;
CREATE INDEX leaderboard_rank_trades ON analytics.leaderboard (window_name, rank_trades) WHERE rank_trades IS NOT NULL;
CREATE INDEX leaderboard_rank_win_rate ON analytics.leaderboard (window_name, rank_win_rate)
  WHERE rank_win_rate IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl_pct ON analytics.leaderboard (window_name, rank_pnl_pct) WHERE rank_pnl_pct IS NOT NULL;
CREATE INDEX leaderboard_rank_unrealized_pnl ON analytics.leaderboard (window_name, rank_unrealized_pnl)
  WHERE rank_unrealized_pnl IS NOT NULL;

-- 4. The live top 100 (no `window`) of the hours the writer keeps warm, every metric, numbered once a minute
--    (writer/leaderboard.ts LIVE_HOURS): a request for one of them reads its 100 rows by key instead of summing every
--    address's hours and probing a snapshot per address. A board (live_boards) names the whole hours it counts, when
--    it was numbered and up to which event the derivation had got (a board is read only while the derivation is at
--    most 2 minutes of events past it), and how many accounts each metric ranks; its rows (live_leaderboard) are the
--    top 100 per metric.
--    Both replaced whole in one transaction (at most 600 rows per board).
CREATE TABLE analytics.live_boards (
  hours         integer PRIMARY KEY,
  window_from   bigint NOT NULL,
  window_to     bigint NOT NULL,
  refreshed_at  bigint NOT NULL,
  derived_until bigint,                      -- the derivation's checkpoint it was numbered at
  totals        jsonb NOT NULL               -- metric -> accounts ranked under its default min_trades
);
CREATE TABLE analytics.live_leaderboard (
  hours           integer NOT NULL,
  metric          text NOT NULL,
  rank            integer NOT NULL,
  address         text NOT NULL,
  fills           integer NOT NULL,
  trades          integer NOT NULL,
  volume          numeric NOT NULL,
  realized_pnl    numeric NOT NULL,
  fees            numeric NOT NULL,
  funding         numeric NOT NULL,
  wins            integer NOT NULL,
  losses          integer NOT NULL,
  win_rate        numeric,
  pnl_pct         numeric,
  account_value   numeric,
  unrealized_pnl  numeric,
  PRIMARY KEY (hours, metric, rank)
);
