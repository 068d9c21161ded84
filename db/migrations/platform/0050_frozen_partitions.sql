-- The closed periods of a partitioned table (db/partitions.ts) whose indexes were rebuilt and rows frozen: one row
-- each, written once both are done (a stop between leaves the period to be frozen again).
CREATE TABLE platform.frozen_partitions (
  parent     text NOT NULL,
  partition  text PRIMARY KEY,
  frozen_at  timestamptz NOT NULL DEFAULT now()
);
