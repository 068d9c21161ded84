-- platform: API keys (stored hashed), usage accounting and the ingest pipeline's checkpoints.
CREATE SCHEMA IF NOT EXISTS platform;

CREATE TABLE platform.api_keys (
  id             bigserial PRIMARY KEY,
  key_hash       text NOT NULL UNIQUE,            -- sha256 hex of the key; the key itself is never stored
  key_prefix     text NOT NULL,                   -- first characters, shown by `keys list`
  scope          text NOT NULL CHECK (scope IN ('data', 'mcp')),
  label          text,
  rate_limit_per_min integer NOT NULL DEFAULT 1200 CHECK (rate_limit_per_min > 0),
  credits        bigint CHECK (credits IS NULL OR credits >= 0), -- NULL = unlimited
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);

CREATE TABLE platform.usage (
  key_id         bigint NOT NULL REFERENCES platform.api_keys (id),
  day            date NOT NULL,
  endpoint       text NOT NULL,
  requests       bigint NOT NULL DEFAULT 0,
  credits_used   bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, day, endpoint)
);

-- One row per input stream: the last fully loaded line (file + byte offset) and block.
CREATE TABLE platform.ingest_checkpoints (
  stream         text PRIMARY KEY,
  file           text NOT NULL,                   -- path relative to the stream dir, e.g. hourly/20261122/7
  byte_offset    bigint NOT NULL,                 -- offset just past the last loaded line
  line_no        bigint NOT NULL,                 -- lines consumed in `file`
  last_block     bigint,
  rows_loaded    bigint NOT NULL DEFAULT 0,
  malformed      bigint NOT NULL DEFAULT 0,
  updated_at     timestamptz NOT NULL DEFAULT now()
);

-- Malformed lines, kept so that nothing is silently dropped.
CREATE TABLE platform.ingest_errors (
  id             bigserial PRIMARY KEY,
  stream         text NOT NULL,
  file           text NOT NULL,
  line_no        bigint NOT NULL,
  error          text NOT NULL,
  sample         text NOT NULL,                   -- the line, truncated
  at             timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream, file, line_no)
);
