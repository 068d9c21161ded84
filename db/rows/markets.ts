// Row types of the markets schema: trades, asset contexts, funding rates, reserve samples, the live book diffs and the
// market-history series (see db/rows/table.ts).
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

/**
 * The market-history archive's series (/market/*), one row per coin and sample time: written by the live sampler
 * (domains/markets/service/history.ts) and by `npm run import` from the public l2Book recordings.
 */
export interface HistoryBboRow {
  coin: string;
  time: number;
  bid_px: string | null;
  bid_sz: string | null;
  bid_n: number | null;
  ask_px: string | null;
  ask_sz: string | null;
  ask_n: number | null;
}
export const historyBboTable = table<HistoryBboRow>(
  'markets.history_bbo',
  ['coin', 'time', 'bid_px', 'bid_sz', 'bid_n', 'ask_px', 'ask_sz', 'ask_n'],
  'ignore',
);

export interface HistoryDepthRow {
  coin: string;
  time: number;
  mid_px: string;
  /** `{"10": {"bidDepthUsd", "askDepthUsd"}, ...}` per band in bps. */
  bands: Record<string, { bidDepthUsd: string; askDepthUsd: string }>;
}
export const historyDepthTable = table<HistoryDepthRow>(
  'markets.history_depth',
  ['coin', 'time', 'mid_px', 'bands'],
  'ignore',
);

export interface HistorySlippageRow {
  coin: string;
  time: number;
  notional: string;
  buy_bps: string | null;
  sell_bps: string | null;
}
export const historySlippageTable = table<HistorySlippageRow>(
  'markets.history_slippage',
  ['coin', 'time', 'notional', 'buy_bps', 'sell_bps'],
  'ignore',
);

export interface HistoryBookRow {
  coin: string;
  time: number;
  /** `[[bids best first], [asks best first]]`, each level `{px, sz, n}` as the exchange prints it. */
  levels: [{ px: string; sz: string; n: number }[], { px: string; sz: string; n: number }[]];
}
export const historyBookTable = table<HistoryBookRow>('markets.history_book', ['coin', 'time', 'levels'], 'ignore');
