-- analytics: builder activity keyed by (address, hour, builder). The reads ask for wallets over a time range
-- (`address = ANY(...) AND hour >= ...`), which the key's prefix now serves, so the separate (address, hour) index
-- goes: one index fewer to maintain for every row the derivation job writes (about one per fill).
ALTER TABLE analytics.builder_hourly DROP CONSTRAINT builder_hourly_pkey;
ALTER TABLE analytics.builder_hourly ADD PRIMARY KEY (address, hour, builder);
DROP INDEX analytics.builder_hourly_address;
