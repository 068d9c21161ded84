// Row types of the markets schema: trades, asset contexts, funding rates, reserve samples, and the live book diffs (see db/rows/table.ts).
import { table } from './table.ts';

export interface TradeRow {
  block_number: number;
  /** Execution order inside the block. */
  seq: number;
  time: number;
  coin: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  hash: string;
  tid: number;
  buyer: string | null;
  seller: string | null;
  /** Fees of both sides (maker rebates negative). */
  fees: string;
}
export const tradesTable = table<TradeRow>(
  'markets.trades',
  ['block_number', 'seq', 'time', 'coin', 'side', 'px', 'sz', 'hash', 'tid', 'buyer', 'seller', 'fees'],
  'append',
);

export interface AssetCtxRow {
  coin: string;
  time: number;
  funding: string | null;
  open_interest: string | null;
  prev_day_px: string | null;
  day_ntl_vlm: string | null;
  day_base_vlm: string | null;
  premium: string | null;
  oracle_px: string | null;
  mark_px: string | null;
  mid_px: string | null;
  impact_bid_px: string | null;
  impact_ask_px: string | null;
  circulating_supply: string | null;
  total_supply: string | null;
}
export const assetCtxsTable = table<AssetCtxRow>(
  'markets.asset_ctxs',
  [
    'coin',
    'time',
    'funding',
    'open_interest',
    'prev_day_px',
    'day_ntl_vlm',
    'day_base_vlm',
    'premium',
    'oracle_px',
    'mark_px',
    'mid_px',
    'impact_bid_px',
    'impact_ask_px',
    'circulating_supply',
    'total_supply',
  ],
  'ignore',
);

export interface FundingRateRow {
  coin: string;
  time: number;
  funding_rate: string;
  premium: string | null;
}
export const fundingRatesTable = table<FundingRateRow>(
  'markets.funding_rates',
  ['coin', 'time', 'funding_rate', 'premium'],
  'ignore',
);

export interface ReserveSampleRow {
  token: number;
  time: number;
  token_name: string;
  borrow_yearly_rate: string;
  supply_yearly_rate: string;
  balance: string;
  utilization: string;
  oracle_px: string;
  ltv: string;
  total_supplied: string;
  total_borrowed: string;
}
export const reserveSamplesTable = table<ReserveSampleRow>(
  'markets.reserve_samples',
  [
    'token',
    'time',
    'token_name',
    'borrow_yearly_rate',
    'supply_yearly_rate',
    'balance',
    'utilization',
    'oracle_px',
    'ltv',
    'total_supplied',
    'total_borrowed',
  ],
  'ignore',
);

/** A raw book diff; not stored, carried live for the order books. */
export interface BookDiffRow {
  block_number: number;
  time: number;
  address: string;
  oid: number;
  coin: string;
  side: 'A' | 'B';
  px: string;
  kind: 'new' | 'update' | 'remove';
  sz: string | null; // new: size; update: new size
  orig_sz: string | null; // update only
}
