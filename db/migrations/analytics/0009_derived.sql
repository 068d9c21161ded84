-- analytics: the derivation jobs' own tables (ingest/derive/). Round trips and hourly account snapshots are derived by
-- this domain, so they move here from accounts (where they were created empty and never filled): the analytics
-- subgraph reads only its own schema. Everything below is written by one job, in one transaction per batch together
-- with its checkpoint (exactly once, as ingest does).
DROP TABLE IF EXISTS accounts.round_trips;
DROP TABLE IF EXISTS accounts.account_snapshots;

-- Round-trip trades per address and perp coin: open (from flat) → flat, or → a flip, which closes one and opens the
-- next in the same fill. The sums behind the VWAPs are kept exact so the next batch can continue an open trip.
CREATE TABLE analytics.round_trips (
  address       text NOT NULL,
  coin          text NOT NULL,
  opened_at     bigint NOT NULL,
  open_seq      integer NOT NULL,            -- the n-th trip of the address and coin opened in that millisecond (from 0)
  closed_at     bigint,                      -- NULL while open
  direction     text NOT NULL CHECK (direction IN ('long', 'short')),
  size          numeric NOT NULL,            -- peak absolute size
  position      numeric NOT NULL,            -- signed size now (0 once closed)
  entry_px      numeric NOT NULL,            -- VWAP of the fills that opened or increased it
  exit_px       numeric,                     -- VWAP of the fills that reduced or closed it
  notional      numeric NOT NULL,            -- entry_px × size
  pnl           numeric NOT NULL,            -- Σ closedPnl of its reducing fills (gross of fees and funding)
  fees          numeric NOT NULL,
  funding       numeric NOT NULL DEFAULT 0,  -- + = received, while open
  leverage      numeric,                     -- opening notional / account value of the snapshot before the open
  fills         integer NOT NULL,
  entry_sz      numeric NOT NULL,
  entry_ntl     numeric NOT NULL,
  exit_sz       numeric NOT NULL,
  exit_ntl      numeric NOT NULL,
  status        text NOT NULL CHECK (status IN ('open', 'closed')),
  PRIMARY KEY (address, coin, opened_at, open_seq)
);
CREATE INDEX round_trips_address_closed ON analytics.round_trips (address, closed_at DESC);
CREATE INDEX round_trips_open ON analytics.round_trips (address, coin) WHERE status = 'open';

-- Hourly perp-account snapshots of every account with activity (a fill, funding or a ledger update) in the hour,
-- valued at the close of the hour (`time`) at the coin's last fill price.
CREATE TABLE analytics.account_snapshots (
  address           text NOT NULL,
  time              bigint NOT NULL,
  account_value     numeric NOT NULL,
  cash              numeric NOT NULL,
  position_value    numeric NOT NULL,
  unrealized_pnl    numeric NOT NULL,
  account_leverage  numeric,
  n_positions       integer NOT NULL,
  positions         jsonb NOT NULL DEFAULT '[]',
  PRIMARY KEY (address, time)
);

-- The same aggregates as user_daily per hour: the live leaderboard (no window, the last `hours`).
CREATE TABLE analytics.user_hourly (
  address       text NOT NULL,
  hour          bigint NOT NULL,
  fills         integer NOT NULL DEFAULT 0,
  volume        numeric NOT NULL DEFAULT 0,
  realized_pnl  numeric NOT NULL DEFAULT 0,
  fees          numeric NOT NULL DEFAULT 0,
  funding       numeric NOT NULL DEFAULT 0,
  wins          integer NOT NULL DEFAULT 0,
  losses        integer NOT NULL DEFAULT 0,
  longs         integer NOT NULL DEFAULT 0,
  shorts        integer NOT NULL DEFAULT 0,
  PRIMARY KEY (address, hour)
);
CREATE INDEX user_hourly_hour ON analytics.user_hourly (hour);

-- The job's running state per account: perp cash (ledger + realized − fees + funding), the last event, and the
-- account value of its latest snapshot (the leverage of a trip at open).
CREATE TABLE analytics.account_state (
  address         text PRIMARY KEY,
  cash            numeric NOT NULL,
  last_event      bigint NOT NULL,
  snapshot_value  numeric
);
CREATE INDEX account_state_last_event ON analytics.account_state (last_event);

-- Last fill price per coin: the mark snapshots and open trips are valued at.
CREATE TABLE analytics.marks (
  coin  text PRIMARY KEY,
  px    numeric NOT NULL,
  time  bigint NOT NULL
);

-- Where the job stands: every event (fill, funding payment, ledger update) before `cursor_time` is derived.
CREATE TABLE analytics.derive_checkpoint (
  job          text PRIMARY KEY,
  cursor_time  bigint NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE analytics.leaderboard ADD COLUMN funding numeric NOT NULL DEFAULT 0;
ALTER TABLE analytics.leaderboard ADD COLUMN trades integer NOT NULL DEFAULT 0;
