-- Requests admitted per key and minute, shared by every api instance (issue 23): each counts locally and adds its
-- count here every second, reading back the total; an instance's first request of a key in a minute reads the
-- total first. So a key's rate limit holds across instances (within one second of traffic), not once per instance.
CREATE UNLOGGED TABLE platform.rate_windows (
  key_id bigint NOT NULL REFERENCES platform.api_keys (id) ON DELETE CASCADE,
  minute bigint NOT NULL,
  admitted bigint NOT NULL,
  PRIMARY KEY (key_id, minute)
);

COMMENT ON TABLE platform.rate_windows IS 'requests admitted per key and UTC minute (epoch ms / 60000), all instances';
