// Row types of the hip4 schema: outcome-market fills and settlements (see db/rows/table.ts).
import { table } from './table.ts';

export interface Hip4FillRow {
  block_number: number;
  time: number;
  address: string;
  coin: string;
  outcome_id: number;
  side_index: number;
  px: string;
  sz: string;
  side: 'A' | 'B';
  dir: string;
  closed_pnl: string;
  hash: string;
  oid: number;
  tid: number;
  fee: string;
  fee_token: string;
  crossed: boolean;
  is_settlement: boolean;
}
export const hip4FillsTable = table<Hip4FillRow>(
  'hip4.fills',
  [
    'block_number',
    'time',
    'address',
    'coin',
    'outcome_id',
    'side_index',
    'px',
    'sz',
    'side',
    'dir',
    'closed_pnl',
    'hash',
    'oid',
    'tid',
    'fee',
    'fee_token',
    'crossed',
    'is_settlement',
  ],
  'append',
);

export interface Hip4SettlementRow {
  outcome_id: number;
  time: number;
  block_number: number;
  settle_fraction: string;
  details: string | null;
}
export const hip4SettlementsTable = table<Hip4SettlementRow>(
  'hip4.settlements',
  ['outcome_id', 'time', 'block_number', 'settle_fraction', 'details'],
  'ignore',
);
