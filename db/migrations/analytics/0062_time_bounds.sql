-- Round trips and account snapshots keep their first and last event time (migration 0060): neither has an index
-- leading with it, and dataCoverage read them whole (0.28 s and 0.54 s on a mainnet day).
SELECT platform.keep_time_bounds('analytics.round_trips', 'opened_at');
SELECT platform.keep_time_bounds('analytics.account_snapshots', 'time');
