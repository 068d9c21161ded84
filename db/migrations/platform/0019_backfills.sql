-- A backfill lane loading older node files beside the present (npm start's simulated history, an archive): where its
-- history ends (the present's lane holds everything from there on) and whether it is complete. dataCoverage reads
-- it: until a backfill is complete, complete coverage starts where it ends.
CREATE TABLE platform.backfills (
  lane           text PRIMARY KEY,
  until_ms       bigint NOT NULL,
  complete       boolean NOT NULL DEFAULT false,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
