-- The closed candles a gap in the events (a backfill's trades, loaded without being published) left to write: a row
-- each, recorded as the markets service hears of the gap and deleted in the transaction that writes them. A refill cut
-- short by a stop (a week's candles take minutes) is finished at the next start, instead of leaving its hole for good
-- (the backfill's lane is complete by then and is not read again).
CREATE TABLE markets.candle_refills (
  from_ms   bigint NOT NULL,
  until_ms  bigint NOT NULL,
  PRIMARY KEY (from_ms, until_ms)
);
