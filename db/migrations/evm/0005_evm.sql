-- evm: HyperEVM blocks, transactions, token transfers and holders, and the core ledger's transfers between dexes
-- (with source and destination dex), plus HIP-3 backstop principal transfers.
CREATE SCHEMA IF NOT EXISTS evm;

CREATE TABLE evm.blocks (
  number     bigint PRIMARY KEY,
  hash       text NOT NULL,
  time       bigint NOT NULL,
  tx_count   integer NOT NULL,
  gas_used   bigint NOT NULL
);
CREATE INDEX blocks_time ON evm.blocks (time);

CREATE TABLE evm.transactions (
  block_number  bigint NOT NULL,
  tx_index      integer NOT NULL,
  hash          text NOT NULL,
  time          bigint NOT NULL,
  tx_type       integer NOT NULL,
  from_addr     text NOT NULL,
  to_addr       text,
  value_wei     numeric NOT NULL,
  gas_limit     bigint NOT NULL,
  gas_used      bigint NOT NULL,
  success       boolean NOT NULL,
  input_len     integer NOT NULL,
  is_system     boolean NOT NULL,
  PRIMARY KEY (block_number, tx_index)
);
CREATE INDEX transactions_time ON evm.transactions (time DESC);
CREATE INDEX transactions_to_time ON evm.transactions (to_addr, time DESC);
CREATE INDEX transactions_hash ON evm.transactions (hash);

CREATE TABLE evm.tokens (
  address    text PRIMARY KEY,
  symbol     text NOT NULL,
  decimals   integer NOT NULL,
  standard   text NOT NULL CHECK (standard IN ('erc20', 'erc721', 'erc1155'))
);

CREATE TABLE evm.token_transfers (
  block_number  bigint NOT NULL,
  log_index     integer NOT NULL,
  tx_hash       text NOT NULL,
  time          bigint NOT NULL,
  token         text NOT NULL,
  from_addr     text NOT NULL,
  to_addr       text NOT NULL,
  value_raw     numeric NOT NULL,             -- raw units (wei-like); 1 per NFT for erc721
  token_id      numeric,                      -- erc721/erc1155
  PRIMARY KEY (block_number, log_index)
);
CREATE INDEX token_transfers_token_time ON evm.token_transfers (token, time DESC);
CREATE INDEX token_transfers_from ON evm.token_transfers (from_addr, time DESC);
CREATE INDEX token_transfers_to ON evm.token_transfers (to_addr, time DESC);

-- Current balance per holder, maintained by ingest from transfers in the same transaction as the checkpoint.
CREATE TABLE evm.token_holders (
  token         text NOT NULL,
  address       text NOT NULL,
  balance_raw   numeric NOT NULL,
  updated_block bigint NOT NULL,
  PRIMARY KEY (token, address)
);
CREATE INDEX token_holders_balance ON evm.token_holders (token, balance_raw DESC, address);

-- Core ledger transfers (send, spotTransfer, ...), with the dexes they move between.
CREATE TABLE evm.ledger_transfers (
  block_number     bigint NOT NULL,
  time             bigint NOT NULL,
  hash             text NOT NULL,
  action_type      text NOT NULL,            -- send (agentSendAsset), spotTransfer, usdSend, ...
  address          text NOT NULL,            -- the sender
  destination      text NOT NULL,
  token            text NOT NULL,
  amount           numeric NOT NULL,
  usdc_value       numeric,
  fee              numeric,
  source_dex       text NOT NULL DEFAULT '',
  destination_dex  text NOT NULL DEFAULT ''
);
CREATE INDEX ledger_transfers_address_time ON evm.ledger_transfers (address, time DESC);
CREATE INDEX ledger_transfers_destination_time ON evm.ledger_transfers (destination, time DESC);
CREATE INDEX ledger_transfers_type_time ON evm.ledger_transfers (action_type, time DESC);

CREATE TABLE evm.backstop_transfers (
  block_number  bigint NOT NULL,
  time          bigint NOT NULL,
  tx_hash       text NOT NULL,
  dex_id        text NOT NULL,
  is_deposit    boolean NOT NULL,
  signer        text NOT NULL,
  amount        numeric NOT NULL
);
CREATE INDEX backstop_transfers_dex_time ON evm.backstop_transfers (dex_id, time DESC);
CREATE INDEX backstop_transfers_signer ON evm.backstop_transfers (signer, time DESC);
