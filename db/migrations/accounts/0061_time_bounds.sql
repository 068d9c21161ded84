-- Funding payments and order statuses keep their first and last event time (migration 0060): neither has an index
-- leading with `time`, and dataCoverage read them whole (2.8 s and 1.1 s on a mainnet day).
SELECT platform.keep_time_bounds('accounts.funding_payments', 'time');
SELECT platform.keep_time_bounds('accounts.order_statuses', 'time');
