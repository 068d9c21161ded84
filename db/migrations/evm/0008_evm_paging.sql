-- evm: /evm/transactions pages newest first by (time, block, index) within a time window; one index holds that
-- order (the time-only index it replaces needed a sort of the whole window).
DROP INDEX IF EXISTS evm.transactions_time;
CREATE INDEX transactions_time_order ON evm.transactions (time DESC, block_number DESC, tx_index DESC);
