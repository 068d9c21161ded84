// The markets tables `npm run export` and GET /export/<dataset>/<day>.parquet publish (export/datasets.ts names
// them): for each, its columns with the Parquet type each becomes, the order of its rows and the key of a row's
// position. Described here, beside the tables, so that a change of their columns is seen where it is made.
import { col, type ExportedTable } from '../../../kit/export-table.ts';

// One row per match (markets.trades): time, then the block and the match's place in it.
export const TRADES_EXPORT: ExportedTable = {
  table: 'markets.trades',
  time: 'time',
  columns: [
    col('time', 'time'),
    col('block_number', 'bigint'),
    col('seq', 'int'),
    col('coin', 'text'),
    col('side', 'text'),
    col('px', 'decimal'),
    col('sz', 'decimal'),
    col('hash', 'text'),
    col('tid', 'bigint'),
    col('buyer', 'text'),
    col('seller', 'text'),
    col('fees', 'decimal'),
  ],
  order: ['time', 'block_number', 'seq', 'tid'],
  position: ['time', 'block_number', 'seq', 'tid'],
  schemaVersion: 1,
};

// Every stored candle opening in the day, of every interval (markets.candles), as it stands when exported.
export const CANDLES_EXPORT: ExportedTable = {
  table: 'markets.candles',
  time: 't',
  columns: [
    col('t', 'time'),
    col('coin', 'text'),
    col('interval', 'text'),
    col('close_time', 'time'),
    col('o', 'decimal'),
    col('h', 'decimal'),
    col('l', 'decimal'),
    col('c', 'decimal'),
    col('v', 'decimal'),
    col('n', 'int'),
    col('closed', 'bool'),
    col('reconciled', 'bool'),
  ],
  order: ['t', 'coin', 'interval'],
  position: ['t', 'coin', 'interval'],
  schemaVersion: 1,
};

// The recorded books (markets.history_book: the sampler's top 20 levels a side, or imported archive books).
export const BOOKS_EXPORT: ExportedTable = {
  table: 'markets.history_book',
  time: 'time',
  columns: [
    col('time', 'time'),
    col('coin', 'text'),
    col('bids', 'levels', 'levels->0'),
    col('asks', 'levels', 'levels->1'),
  ],
  order: ['time', 'coin'],
  position: ['time', 'coin'],
  schemaVersion: 1,
};
