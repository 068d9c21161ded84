-- The days of a day-partitioned table (db/partitions.ts) thinned to their retention class: one row each, written in
-- the transaction that swaps the day for its kept rows (so a day is thinned once), with what it held and kept.
CREATE TABLE platform.thinned_partitions (
  parent      text NOT NULL,
  partition   text PRIMARY KEY,
  rows_before bigint NOT NULL,
  rows_kept   bigint NOT NULL,
  thinned_at  timestamptz NOT NULL DEFAULT now()
);
