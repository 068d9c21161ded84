-- markets: trades, candles, asset contexts, funding rates, borrow/lend reserves, the market-history archive and
-- HIP-3 dexes. Prices and sizes are numeric (scale as received, so "93604.0" reads back as "93604.0"); times are
-- epoch-ms bigint.
CREATE SCHEMA IF NOT EXISTS markets;

-- One row per matched trade, paired from the two fills sharing (block_number, coin, tid).
CREATE TABLE markets.trades (
  block_number   bigint NOT NULL,
  seq            integer NOT NULL,          -- execution order inside the block (candle open/close)
  time           bigint NOT NULL,
  coin           text NOT NULL,
  side           char(1) NOT NULL CHECK (side IN ('A', 'B')),  -- aggressor side
  px             numeric NOT NULL,
  sz             numeric NOT NULL,
  hash           text NOT NULL,
  tid            bigint NOT NULL,
  buyer          text,
  seller         text,
  fees           numeric NOT NULL           -- both sides' fees (maker rebates negative)
);
CREATE INDEX trades_coin_time ON markets.trades (coin, time DESC);
CREATE INDEX trades_time ON markets.trades (time);

-- Every interval of the exchange (1m..1M) plus 5s and 30s; `t` is the bucket open, `close_time` = next open - 1.
CREATE TABLE markets.candles (
  coin           text NOT NULL,
  interval       text NOT NULL CHECK (interval IN ('5s','30s','1m','3m','5m','15m','30m','1h','2h','4h','8h','12h','1d','3d','1w','1M')),
  t              bigint NOT NULL,
  close_time     bigint NOT NULL,
  o              numeric NOT NULL,
  h              numeric NOT NULL,
  l              numeric NOT NULL,
  c              numeric NOT NULL,
  v              numeric NOT NULL,
  n              integer NOT NULL,
  closed         boolean NOT NULL DEFAULT false,
  reconciled     boolean NOT NULL DEFAULT false,
  PRIMARY KEY (coin, interval, t)
);

-- Per-minute asset contexts (the archive's asset_ctxs columns).
CREATE TABLE markets.asset_ctxs (
  coin           text NOT NULL,
  time           bigint NOT NULL,
  funding        numeric,
  open_interest  numeric,
  prev_day_px    numeric,
  day_ntl_vlm    numeric,
  day_base_vlm   numeric,
  premium        numeric,
  oracle_px      numeric,
  mark_px        numeric,
  mid_px         numeric,
  impact_bid_px  numeric,
  impact_ask_px  numeric,
  circulating_supply numeric,               -- spot coins
  total_supply   numeric,                   -- spot coins
  PRIMARY KEY (coin, time)
);
CREATE INDEX asset_ctxs_time ON markets.asset_ctxs (time);

-- Hourly funding rates (fundingHistory).
CREATE TABLE markets.funding_rates (
  coin           text NOT NULL,
  time           bigint NOT NULL,
  funding_rate   numeric NOT NULL,
  premium        numeric,
  PRIMARY KEY (coin, time)
);

-- Borrow/lend reserve samples, one per token per minute (borrowLendReserveHistory, allBorrowLendReserveStates).
CREATE TABLE markets.reserve_samples (
  token              integer NOT NULL,
  time               bigint NOT NULL,
  token_name         text NOT NULL,
  borrow_yearly_rate numeric NOT NULL,
  supply_yearly_rate numeric NOT NULL,
  balance            numeric NOT NULL,
  utilization        numeric NOT NULL,
  oracle_px          numeric NOT NULL,
  ltv                numeric NOT NULL,
  total_supplied     numeric NOT NULL,
  total_borrowed     numeric NOT NULL,
  PRIMARY KEY (token, time)
);
CREATE INDEX reserve_samples_time ON markets.reserve_samples (time);

-- Market-history archive (/market/*): sampled from the live book, or imported from the public l2Book archive.
CREATE TABLE markets.history_bbo (
  coin     text NOT NULL,
  time     bigint NOT NULL,
  bid_px   numeric,
  bid_sz   numeric,
  bid_n    integer,
  ask_px   numeric,
  ask_sz   numeric,
  ask_n    integer,
  PRIMARY KEY (coin, time)
);
CREATE VIEW markets.history_spread AS
  SELECT coin, time, bid_px, ask_px, ask_px - bid_px AS spread,
         CASE WHEN bid_px + ask_px > 0 THEN (ask_px - bid_px) / ((ask_px + bid_px) / 2) * 10000 END AS spread_bps
  FROM markets.history_bbo;

-- Cumulative notional per basis-point band around the mid: {"10": {"bidDepthUsd": "...", "askDepthUsd": "..."}, ...}
CREATE TABLE markets.history_depth (
  coin     text NOT NULL,
  time     bigint NOT NULL,
  mid_px   numeric NOT NULL,
  bands    jsonb NOT NULL,
  PRIMARY KEY (coin, time)
);

-- Price impact of a market order of `notional` USD, in basis points from the mid.
CREATE TABLE markets.history_slippage (
  coin      text NOT NULL,
  time      bigint NOT NULL,
  notional  numeric NOT NULL,
  buy_bps   numeric,
  sell_bps  numeric,
  PRIMARY KEY (coin, time, notional)
);

-- L2 snapshots: levels = [[{px, sz, n}...bids], [...asks]] as the exchange prints them.
CREATE TABLE markets.history_book (
  coin     text NOT NULL,
  time     bigint NOT NULL,
  levels   jsonb NOT NULL,
  PRIMARY KEY (coin, time)
);

-- HIP-3 builder-deployed perp dexes (perpDexs) and their per-coin price/volume snapshots.
CREATE TABLE markets.hip3_dexes (
  name               text PRIMARY KEY,
  dex_index          integer NOT NULL UNIQUE,
  full_name          text,
  deployer           text,
  oracle_updater     text,
  fee_recipient      text,
  deployer_fee_scale numeric,
  backstop_address   text NOT NULL,
  updated_at         bigint NOT NULL
);

CREATE TABLE markets.hip3_snapshots (
  dex_id                   text NOT NULL,
  coin                     text NOT NULL,
  time                     bigint NOT NULL,
  mark_px                  numeric,
  oracle_px                numeric,
  funding_rate             numeric,
  open_interest            numeric,
  volume_24h               numeric,
  fees_24h                 numeric,
  trades_24h               integer,
  total_volume_cumulative  numeric,
  total_fees_cumulative    numeric,
  is_halted                boolean NOT NULL DEFAULT false,
  PRIMARY KEY (coin, time)
);
CREATE INDEX hip3_snapshots_dex_time ON markets.hip3_snapshots (dex_id, time DESC);
