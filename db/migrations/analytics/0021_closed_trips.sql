-- analytics: closed round trips per address and day/hour, whatever their result. `trades` (the leaderboard's metric,
-- the ratio metrics' `min_trades` and the denominator of `win_rate`) counted wins + losses, which leaves out a trip
-- closed at exactly zero net PnL; a user's own stats count every closed trip, so the two disagreed. The derivation
-- job now counts each close here. Rows derived before this column get wins + losses (the breakevens among them were
-- not kept); `npm run derive -- rebuild` derives them again exactly.
ALTER TABLE analytics.user_daily ADD COLUMN trips integer NOT NULL DEFAULT 0;
ALTER TABLE analytics.user_hourly ADD COLUMN trips integer NOT NULL DEFAULT 0;
UPDATE analytics.user_daily SET trips = wins + losses WHERE wins + losses > 0;
UPDATE analytics.user_hourly SET trips = wins + losses WHERE wins + losses > 0;
