-- migrate: no transaction
-- analytics.account_snapshots partitioned by UTC day of `time` (db/partitions.ts): ~60 k snapshots an hour at mainnet
-- (every account with an event in the hour). A day closed ACCOUNT_SNAPSHOTS_HOURLY_DAYS ago is thinned by the ingest
-- role's upkeep to the rows the daily reads use (each address's last snapshot of the day, and the one at midnight:
-- the day before's close), then its month merged. The key (address, time) holds the partition key. The snapshots
-- stored before become `analytics.account_snapshots_before` (platform.partition_table, migration 0053), thinned as a
-- closed day once its bound is that old.
CALL platform.partition_table('analytics.account_snapshots');
