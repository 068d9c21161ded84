// The accounts tables `npm run export` and GET /export/<dataset>/<day>.parquet publish (export/datasets.ts names
// them): for each, its columns with the Parquet type each becomes, the order of its rows and the key of a row's
// position. Described here, beside the tables, so that a change of their columns is seen where it is made.
import { col, type ExportedTable } from '../../../kit/export-table.ts';

// Every node fill, one row per side (accounts.fills). In execution order: time, then the block, the fill's place
// in the block's events, tid, and address (the two sides of a trade stored before event_index existed share it).
export const FILLS_EXPORT: ExportedTable = {
  table: 'accounts.fills',
  time: 'time',
  columns: [
    col('time', 'time'),
    col('block_number', 'bigint'),
    col('event_index', 'int'),
    col('tid', 'bigint'),
    col('address', 'text'),
    col('coin', 'text'),
    col('px', 'decimal'),
    col('sz', 'decimal'),
    col('side', 'text'),
    col('start_position', 'decimal'),
    col('dir', 'text'),
    col('closed_pnl', 'decimal'),
    col('hash', 'text'),
    col('oid', 'bigint'),
    col('crossed', 'bool'),
    col('fee', 'decimal'),
    col('fee_token', 'text'),
    col('cloid', 'text'),
    col('twap_id', 'bigint'),
    col('builder', 'text'),
    col('builder_fee', 'decimal'),
    col('deployer_fee', 'decimal'),
    col('priority_gas', 'decimal'),
    col('liquidated_user', 'text'),
    col('liquidation_mark_px', 'decimal'),
    col('liquidation_method', 'text'),
  ],
  order: ['time', 'block_number', 'event_index', 'tid', 'address'],
  position: ['time', 'block_number', 'event_index', 'tid', 'address'],
  schemaVersion: 1,
};

// Each account's hourly funding payment (accounts.funding_payments), with the coin's rate of that hour.
export const FUNDING_EXPORT: ExportedTable = {
  table: 'accounts.funding_payments',
  time: 'time',
  columns: [
    col('time', 'time'),
    col('block_number', 'bigint'),
    col('address', 'text'),
    col('coin', 'text'),
    col('usdc', 'decimal'),
    col('szi', 'decimal'),
    col('funding_rate', 'decimal'),
  ],
  order: ['time', 'block_number', 'address', 'coin'],
  position: ['time', 'block_number', 'address', 'coin'],
  schemaVersion: 1,
};

// Non-funding ledger events, one row per event and address involved (accounts.ledger_updates); `delta` as stored.
export const LEDGER_EXPORT: ExportedTable = {
  table: 'accounts.ledger_updates',
  time: 'time',
  columns: [
    col('time', 'time'),
    col('block_number', 'bigint'),
    col('hash', 'text'),
    col('address', 'text'),
    col('delta_type', 'text'),
    col('delta', 'json', 'delta::text'),
  ],
  // The delta's text last: one hash may move funds for one address twice.
  order: ['time', 'block_number', 'hash', 'address', 'delta'],
  position: ['time', 'block_number', 'hash', 'address'],
  schemaVersion: 1,
};
