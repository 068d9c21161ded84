-- Credits and usage per key (issue 21). A key's `credits` (api_keys, 0001) is charged by one conditional UPDATE
-- per call (access/credits.ts); what each key used is counted per UTC day and interface in platform.usage, which
-- gains the calls refused for credits (a refused call is not charged, but the owner should see it was made).
ALTER TABLE platform.usage ADD COLUMN refused bigint NOT NULL DEFAULT 0;

COMMENT ON COLUMN platform.usage.endpoint IS 'the interface: rest, ws, graphql or mcp';
COMMENT ON COLUMN platform.usage.refused IS 'calls refused for insufficient credits (not charged)';
