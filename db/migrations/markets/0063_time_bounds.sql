-- Candles keep their first and last open time (migration 0060): their key leads with the coin, and dataCoverage read
-- them whole (0.25 s on a mainnet day, growing with every day held).
SELECT platform.keep_time_bounds('markets.candles', 't');
