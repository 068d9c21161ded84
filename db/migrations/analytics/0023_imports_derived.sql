-- analytics: the archive imports the derivation includes (platform.backfills rows with loaded_from_ms): per lane, the
-- completion it has accounted for. A later completion that loaded events before the derivation's checkpoint has the
-- derivation start again from the first stored event (domains/analytics/writer/index.ts includeImports).
CREATE TABLE analytics.imports_derived (
  lane          text PRIMARY KEY,
  completed_at  bigint NOT NULL
);
