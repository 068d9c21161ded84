-- migrate: no transaction
-- accounts.funding_payments partitioned by week of `time` (from Monday 00:00 UTC; db/partitions.ts): every open
-- position every hour, ~3.5 M rows a day at mainnet, kept for ever, a closed week frozen by the ingest role's upkeep.
-- A week as for fills: a user's newest payments (the `userFundings` snapshot) have no time bound. Reads name the
-- parent as before; ingest appends (COPY, no key to conflict on). The payments stored before become
-- `accounts.funding_payments_before`, renamed and attached, not rewritten (platform.partition_table, migration 0053).
CALL platform.partition_table('accounts.funding_payments');
