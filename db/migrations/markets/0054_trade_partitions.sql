-- migrate: no transaction
-- markets.trades partitioned by week of `time` (from Monday 00:00 UTC; db/partitions.ts): ~3.2 M trades a day at
-- mainnet, kept for ever, a closed week frozen by the ingest role's upkeep. A week, not a day, as for fills: a coin's
-- newest trades (`recentTrades`, `Market.trades`) and its last price have no time bound, and a read without one opens
-- every partition (~52 a year by week, 365 by day). Reads name the parent as before; ingest appends (COPY, no key to
-- conflict on), so nothing it writes changes. The trades stored before become `markets.trades_before`, renamed and
-- attached, not rewritten (platform.partition_table, migration 0053).
CALL platform.partition_table('markets.trades');
