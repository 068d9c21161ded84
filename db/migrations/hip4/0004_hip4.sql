-- hip4: outcome (prediction) markets: venues and deployers, questions, outcomes, fills and settlements.
CREATE SCHEMA IF NOT EXISTS hip4;

CREATE TABLE hip4.venues (
  venue          text PRIMARY KEY,
  deployer       text NOT NULL,
  fee_scale      numeric NOT NULL,
  sub_deployers  jsonb NOT NULL DEFAULT '[]',  -- [[action, [addresses]], ...]
  updated_at     bigint NOT NULL
);

CREATE TABLE hip4.questions (
  question_id             integer PRIMARY KEY,
  name                    text NOT NULL,
  description             text NOT NULL,
  fallback_outcome        integer NOT NULL,
  named_outcomes          integer[] NOT NULL DEFAULT '{}',
  settled_named_outcomes  integer[] NOT NULL DEFAULT '{}',
  venue                   text NOT NULL DEFAULT '',  -- '' for oracle-emitted (legacy) questions
  deployer                text NOT NULL DEFAULT '',
  updated_at              bigint NOT NULL
);

CREATE TABLE hip4.outcomes (
  outcome_id       integer PRIMARY KEY,
  name             text NOT NULL,
  description      text NOT NULL,              -- pipe-delimited key:value text
  side_specs       jsonb NOT NULL,
  question_id      integer,
  quote_token      text NOT NULL,
  block_time       bigint NOT NULL,
  venue            text NOT NULL DEFAULT '',
  deployer         text NOT NULL DEFAULT '',
  settled          boolean NOT NULL DEFAULT false,
  settle_fraction  numeric,
  settled_at       bigint
);
CREATE INDEX outcomes_question ON hip4.outcomes (question_id);

-- Fills on outcome coins (#<10*outcome+side>), copied from the fill stream.
CREATE TABLE hip4.fills (
  block_number   bigint NOT NULL,
  time           bigint NOT NULL,
  address        text NOT NULL,
  coin           text NOT NULL,
  outcome_id     integer NOT NULL,
  side_index     integer NOT NULL,
  px             numeric NOT NULL,
  sz             numeric NOT NULL,
  side           char(1) NOT NULL,
  dir            text NOT NULL,
  closed_pnl     numeric NOT NULL,
  hash           text NOT NULL,
  oid            bigint NOT NULL,
  tid            bigint NOT NULL,
  fee            numeric NOT NULL,
  fee_token      text NOT NULL,
  crossed        boolean NOT NULL,
  is_settlement  boolean NOT NULL DEFAULT false
);
CREATE INDEX hip4_fills_coin_time ON hip4.fills (coin, time DESC);
CREATE INDEX hip4_fills_outcome_time ON hip4.fills (outcome_id, time DESC);
CREATE INDEX hip4_fills_address_time ON hip4.fills (address, time DESC);

CREATE TABLE hip4.settlements (
  outcome_id       integer NOT NULL,
  time             bigint NOT NULL,
  block_number     bigint NOT NULL,
  settle_fraction  numeric NOT NULL,
  details          text,
  PRIMARY KEY (outcome_id, time)
);
