-- accounts: everything that happened to one address. Fills and order statuses are append-only, one row per node
-- event; exactly-once loading comes from the ingest checkpoint, not from unique keys (a fill's hash and tid are
-- not unique).
CREATE SCHEMA IF NOT EXISTS accounts;

-- Every field of a node fill.
CREATE TABLE accounts.fills (
  block_number         bigint NOT NULL,
  address              text NOT NULL,
  coin                 text NOT NULL,
  px                   numeric NOT NULL,
  sz                   numeric NOT NULL,
  side                 char(1) NOT NULL CHECK (side IN ('A', 'B')),
  time                 bigint NOT NULL,
  start_position       numeric NOT NULL,
  dir                  text NOT NULL,
  closed_pnl           numeric NOT NULL,
  hash                 text NOT NULL,
  oid                  bigint NOT NULL,
  crossed              boolean NOT NULL,
  fee                  numeric NOT NULL,
  tid                  bigint NOT NULL,
  fee_token            text NOT NULL,
  cloid                text,
  twap_id              bigint,
  builder              text,
  builder_fee          numeric,
  deployer_fee         numeric,
  priority_gas         numeric,
  liquidated_user      text,
  liquidation_mark_px  numeric,
  liquidation_method   text
);
CREATE INDEX fills_address_time ON accounts.fills (address, time DESC, tid DESC);
CREATE INDEX fills_oid ON accounts.fills (oid);
CREATE INDEX fills_coin_time ON accounts.fills (coin, time DESC);
CREATE INDEX fills_time ON accounts.fills (time DESC, tid DESC);
CREATE INDEX fills_twap ON accounts.fills (address, twap_id, time) WHERE twap_id IS NOT NULL;
CREATE INDEX fills_cloid ON accounts.fills (address, cloid) WHERE cloid IS NOT NULL;
CREATE INDEX fills_builder_time ON accounts.fills (builder, time DESC) WHERE builder IS NOT NULL;

-- Every status row of every order: trigger orders appear as open, triggered and filled rows of one oid.
CREATE TABLE accounts.order_statuses (
  block_number       bigint NOT NULL,
  time               bigint NOT NULL,        -- status timestamp (ms)
  address            text NOT NULL,
  status             text NOT NULL,
  hash               text,
  builder            text,
  builder_fee        integer,                -- tenths of a basis point
  oid                bigint NOT NULL,
  cloid              text,
  coin               text NOT NULL,
  side               char(1) NOT NULL CHECK (side IN ('A', 'B')),
  limit_px           numeric NOT NULL,
  sz                 numeric NOT NULL,       -- remaining size
  orig_sz            numeric NOT NULL,
  order_time         bigint NOT NULL,        -- the order's own timestamp (placement, or trigger time once triggered)
  trigger_condition  text NOT NULL,
  is_trigger         boolean NOT NULL,
  trigger_px         numeric NOT NULL,
  is_position_tpsl   boolean NOT NULL,
  reduce_only        boolean NOT NULL,
  order_type         text NOT NULL,
  tif                text,
  children           jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX order_statuses_address_time ON accounts.order_statuses (address, time DESC);
CREATE INDEX order_statuses_address_oid ON accounts.order_statuses (address, oid DESC, time);
CREATE INDEX order_statuses_oid ON accounts.order_statuses (oid, time);
CREATE INDEX order_statuses_cloid ON accounts.order_statuses (address, cloid) WHERE cloid IS NOT NULL;

CREATE TABLE accounts.twap_statuses (
  block_number   bigint NOT NULL,
  time           bigint NOT NULL,
  twap_id        bigint NOT NULL,
  address        text NOT NULL,
  coin           text NOT NULL,
  side           char(1) NOT NULL CHECK (side IN ('A', 'B')),
  sz             numeric NOT NULL,
  executed_sz    numeric NOT NULL,
  executed_ntl   numeric NOT NULL,
  minutes        integer NOT NULL,
  reduce_only    boolean NOT NULL,
  randomize      boolean NOT NULL,
  started_at     bigint NOT NULL,           -- state.timestamp: the TWAP's start
  status         text NOT NULL,             -- activated | finished | terminated | error
  error          text
);
CREATE INDEX twap_statuses_address_time ON accounts.twap_statuses (address, time DESC);
CREATE INDEX twap_statuses_twap ON accounts.twap_statuses (twap_id, time);

-- One row per user per hourly settlement (misc_events Funding.deltas).
CREATE TABLE accounts.funding_payments (
  block_number   bigint NOT NULL,
  time           bigint NOT NULL,
  address        text NOT NULL,
  coin           text NOT NULL,
  usdc           numeric NOT NULL,          -- signed, + = received
  szi            numeric NOT NULL,
  funding_rate   numeric NOT NULL
);
CREATE INDEX funding_payments_address_time ON accounts.funding_payments (address, time DESC);
CREATE INDEX funding_payments_coin_time ON accounts.funding_payments (coin, time DESC);

-- Non-funding ledger updates: one row per event and per address involved (sender and receiver of a send).
CREATE TABLE accounts.ledger_updates (
  block_number   bigint NOT NULL,
  time           bigint NOT NULL,
  hash           text NOT NULL,
  address        text NOT NULL,
  delta_type     text NOT NULL,
  delta          jsonb NOT NULL              -- the node's delta, already in the API's shape
);
CREATE INDEX ledger_updates_address_time ON accounts.ledger_updates (address, time DESC);
CREATE INDEX ledger_updates_type_time ON accounts.ledger_updates (delta_type, time DESC);

-- One row per liquidation fill, seen from the liquidator's (counterparty's) side.
CREATE TABLE accounts.liquidations (
  block_number     bigint NOT NULL,
  time             bigint NOT NULL,
  hash             text NOT NULL,
  tid              bigint NOT NULL,
  coin             text NOT NULL,
  liquidated_user  text NOT NULL,
  liquidator       text NOT NULL,
  side             char(1) NOT NULL,         -- the liquidator's side
  px               numeric NOT NULL,
  sz               numeric NOT NULL,
  notional         numeric NOT NULL,
  mark_px          numeric,
  method           text NOT NULL,            -- market | backstop
  builder          text
);
CREATE INDEX liquidations_time ON accounts.liquidations (time DESC);
CREATE INDEX liquidations_liquidated ON accounts.liquidations (liquidated_user, time DESC);
CREATE INDEX liquidations_liquidator ON accounts.liquidations (liquidator, time DESC);

-- Hourly perp-account snapshots (/users/{user}/account history, equity history).
CREATE TABLE accounts.account_snapshots (
  address           text NOT NULL,
  time              bigint NOT NULL,         -- the hour
  account_value     numeric NOT NULL,
  cash              numeric NOT NULL,
  position_value    numeric NOT NULL,
  unrealized_pnl    numeric NOT NULL,
  account_leverage  numeric,
  n_positions       integer NOT NULL,
  positions         jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (address, time)
);

-- Round-trip trades: a position from open to flat (or still open).
CREATE TABLE accounts.round_trips (
  address       text NOT NULL,
  coin          text NOT NULL,
  opened_at     bigint NOT NULL,
  closed_at     bigint,                      -- NULL while open
  direction     text NOT NULL CHECK (direction IN ('long', 'short')),
  size          numeric NOT NULL,            -- peak absolute size
  entry_px      numeric NOT NULL,
  exit_px       numeric,
  notional      numeric NOT NULL,
  pnl           numeric NOT NULL,
  fees          numeric NOT NULL,
  funding       numeric NOT NULL DEFAULT 0,
  leverage      numeric,
  status        text NOT NULL CHECK (status IN ('open', 'closed')),
  PRIMARY KEY (address, coin, opened_at)
);
CREATE INDEX round_trips_address_closed ON accounts.round_trips (address, closed_at DESC);
