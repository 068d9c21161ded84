-- analytics: what leaderboards and performance read. Daily per-user aggregates are maintained incrementally;
-- leaderboard windows are recomputed from them on a schedule (7d/30d every 5 minutes, all every hour).
CREATE SCHEMA IF NOT EXISTS analytics;

CREATE TABLE analytics.user_daily (
  address       text NOT NULL,
  day           date NOT NULL,
  fills         integer NOT NULL DEFAULT 0,
  volume        numeric NOT NULL DEFAULT 0,
  realized_pnl  numeric NOT NULL DEFAULT 0,
  fees          numeric NOT NULL DEFAULT 0,
  funding       numeric NOT NULL DEFAULT 0,
  wins          integer NOT NULL DEFAULT 0,
  losses        integer NOT NULL DEFAULT 0,
  longs         integer NOT NULL DEFAULT 0,
  shorts        integer NOT NULL DEFAULT 0,
  PRIMARY KEY (address, day)
);
CREATE INDEX user_daily_day ON analytics.user_daily (day);

CREATE TABLE analytics.leaderboard (
  window_name     text NOT NULL CHECK (window_name IN ('7d', '30d', 'all')),
  address         text NOT NULL,
  fills           integer NOT NULL,
  volume          numeric NOT NULL,
  realized_pnl    numeric NOT NULL,
  fees            numeric NOT NULL,
  wins            integer NOT NULL,
  losses          integer NOT NULL,
  win_rate        numeric,
  pnl_pct         numeric,                    -- net PnL / traded volume
  account_value   numeric,
  unrealized_pnl  numeric,
  refreshed_at    timestamptz NOT NULL,
  PRIMARY KEY (window_name, address)
);
CREATE INDEX leaderboard_volume ON analytics.leaderboard (window_name, volume DESC);
CREATE INDEX leaderboard_pnl ON analytics.leaderboard (window_name, realized_pnl DESC);

-- Per-builder activity per wallet and hour (external activity).
CREATE TABLE analytics.builder_hourly (
  builder     text NOT NULL,                  -- '' = no builder
  address     text NOT NULL,
  hour        bigint NOT NULL,
  fills       integer NOT NULL,
  notional    numeric NOT NULL,
  coins       text[] NOT NULL,
  first_fill  bigint NOT NULL,
  last_fill   bigint NOT NULL,
  PRIMARY KEY (builder, address, hour)
);
CREATE INDEX builder_hourly_address ON analytics.builder_hourly (address, hour);
