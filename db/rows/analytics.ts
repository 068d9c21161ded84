// Row types of the analytics schema as the service reads them back (numeric columns as decimal strings, epoch-ms
// columns as numbers). Written only by the analytics writer (domains/analytics/writer/).

export interface RoundTripRow {
  address: string;
  coin: string;
  opened_at: number;
  open_seq: number;
  closed_at: number | null;
  direction: 'long' | 'short';
  size: string;
  position: string;
  entry_px: string;
  exit_px: string | null;
  notional: string;
  pnl: string;
  fees: string;
  funding: string;
  leverage: string | null;
  fills: number;
  status: 'open' | 'closed';
}

export interface AccountSnapshotRow {
  address: string;
  time: number;
  account_value: string;
  cash: string;
  position_value: string;
  unrealized_pnl: string;
  account_leverage: string | null;
  n_positions: number;
  positions: SnapshotPosition[];
}

export interface SnapshotPosition {
  coin: string;
  szi: string;
  entry_px: string;
  mark_px: string;
  unrealized_pnl: string;
}

export interface BuilderHourlyRow {
  builder: string;
  address: string;
  hour: number;
  fills: number;
  notional: string;
  coins: string[];
  first_fill: number;
  last_fill: number;
}
