-- analytics: the scheduled boards' keys led by what tells rows apart (issue 39, the `all` refresh).
--
-- A refresh builds its board's indexes on 1.4 M rows every hour (writer/leaderboard.ts). Each index led by
-- `window_name`, which is the same on every row of a board's partition, so every comparison of the build's sort tied on
-- it (no abbreviated key) and went on to the next column: 3-6 s of CPU per index. Each rank index is now its rank alone
-- (a page reads `window_name = $1 AND rank > $2 AND rank <= $3`: the window picks the partition), and the primary key
-- leads with the address (the distribution column stays in it, db/distribution.ts). The boards are rebuilt here, in the
-- migration's transaction: three partitions of at most every address each.
ALTER TABLE analytics.leaderboard DROP CONSTRAINT leaderboard_pkey;
ALTER TABLE analytics.leaderboard ADD PRIMARY KEY (address, window_name);
DROP INDEX analytics.leaderboard_rank_volume;
DROP INDEX analytics.leaderboard_rank_pnl;
DROP INDEX analytics.leaderboard_rank_trades;
DROP INDEX analytics.leaderboard_rank_win_rate;
DROP INDEX analytics.leaderboard_rank_pnl_pct;
DROP INDEX analytics.leaderboard_rank_unrealized_pnl;
CREATE INDEX leaderboard_rank_volume ON analytics.leaderboard (rank_volume) WHERE rank_volume IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl ON analytics.leaderboard (rank_pnl) WHERE rank_pnl IS NOT NULL;
CREATE INDEX leaderboard_rank_trades ON analytics.leaderboard (rank_trades) WHERE rank_trades IS NOT NULL;
CREATE INDEX leaderboard_rank_win_rate ON analytics.leaderboard (rank_win_rate) WHERE rank_win_rate IS NOT NULL;
CREATE INDEX leaderboard_rank_pnl_pct ON analytics.leaderboard (rank_pnl_pct) WHERE rank_pnl_pct IS NOT NULL;
CREATE INDEX leaderboard_rank_unrealized_pnl ON analytics.leaderboard (rank_unrealized_pnl)
  WHERE rank_unrealized_pnl IS NOT NULL;
