-- analytics: precomputed leaderboard ranks. A page of a window used to sort the whole window by its metric at every
-- request (an expression for pnl, O(accounts) per page); the refresh now numbers each row once per metric, under the
-- metric's default `min_trades` (NULL where the row is left out), so a page with the default filter is an index range
-- of `limit` rows. Another `min_trades` still sorts at request time.
ALTER TABLE analytics.leaderboard
  ADD COLUMN rank_volume integer,
  ADD COLUMN rank_pnl integer,
  ADD COLUMN rank_trades integer,
  ADD COLUMN rank_win_rate integer,
  ADD COLUMN rank_pnl_pct integer,
  ADD COLUMN rank_unrealized_pnl integer;
CREATE INDEX leaderboard_rank_volume ON analytics.leaderboard (window_name, rank_volume) WHERE rank_volume IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl ON analytics.leaderboard (window_name, rank_pnl) WHERE rank_pnl IS NOT NULL;
CREATE INDEX leaderboard_rank_trades ON analytics.leaderboard (window_name, rank_trades) WHERE rank_trades IS NOT NULL;
CREATE INDEX leaderboard_rank_win_rate ON analytics.leaderboard (window_name, rank_win_rate)
  WHERE rank_win_rate IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl_pct ON analytics.leaderboard (window_name, rank_pnl_pct) WHERE rank_pnl_pct IS NOT NULL;
CREATE INDEX leaderboard_rank_unrealized_pnl ON analytics.leaderboard (window_name, rank_unrealized_pnl)
  WHERE rank_unrealized_pnl IS NOT NULL;
-- Neither served a page (the order is `metric DESC NULLS LAST, address`); they only slowed the refresh.
DROP INDEX IF EXISTS analytics.leaderboard_volume;
DROP INDEX IF EXISTS analytics.leaderboard_pnl;
