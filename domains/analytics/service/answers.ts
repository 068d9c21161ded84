// What the analytics service answers: leaderboard rows and pages, performance, equity history, the PnL calendar,
// round trips and builder activity, as decimal strings and epoch-ms times (each edge shapes them).
import type { AccountSnapshotRow, BuilderHourlyRow, RoundTripRow } from '../../../db/rows/analytics.ts';
import type { EquityInterval, LeaderboardWindow, Timeframe, Window } from './inputs.ts';
import type { Metric } from './ranking.ts';

export interface LeaderboardRow {
  rank: number;
  address: string;
  fills: number;
  trades: number;
  volume: string;
  realized_pnl: string;
  fees: string;
  funding: string;
  /** The `pnl` metric: realized − fees + funding. */
  pnl: string;
  wins: number;
  losses: number;
  win_rate: string | null;
  pnl_pct: string | null;
  account_value: string | null;
  unrealized_pnl: string | null;
  refreshed_at: number;
}

export interface LeaderboardPage {
  window: LeaderboardWindow | null;
  by: Metric;
  rows: LeaderboardRow[];
  totalCount: number;
  hasMore: boolean;
  /** When the window was last recomputed (live mode: now); null when never. */
  refreshedAt: number | null;
}

export interface Performance {
  address: string;
  window: string;
  start_time: number | null;
  end_time: number;
  fills: number;
  volume: string;
  realized_pnl: string;
  total_fees: string;
  total_funding: string;
  net_pnl: string;
  trades: number;
  wins: number;
  losses: number;
  win_rate: string | null;
  longs: number;
  shorts: number;
  long_short_ratio: string | null;
  long_pct: string | null;
  best_trade_pnl: string | null;
  worst_trade_pnl: string | null;
  account_value: string | null;
  /** The drawdown fields: absent from a batch entry without `include_drawdown`. */
  max_drawdown?: string;
  equity_max_drawdown_usd?: string | null;
  equity_max_drawdown_pct?: string | null;
  equity_snapshots?: number;
}

/** A snapshot as equity history shows it (its positions aside). */
export type EquityPoint = Omit<AccountSnapshotRow, 'address' | 'positions'>;

export interface EquityHistory {
  address: string;
  interval: EquityInterval;
  window: Window;
  points: EquityPoint[];
  summary: {
    points: number;
    start_value: string | null;
    end_value: string | null;
    change: string | null;
    change_pct: string | null;
    max_drawdown_usd: string | null;
    max_drawdown_pct: string | null;
  };
}

export interface CalendarDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  realized_pnl: string;
  fees: string;
  funding: string;
  net_pnl: string;
  cumulative_net_pnl: string;
  fills: number;
  volume: string;
  equity_close: string | null;
}

export interface PnlCalendar {
  address: string;
  window: Window;
  days: CalendarDay[];
  totals: {
    days: number;
    profitable_days: number;
    losing_days: number;
    flat_days: number;
    realized_pnl: string;
    fees: string;
    funding: string;
    net_pnl: string;
    fills: number;
    volume: string;
  };
}

export type Trade = Pick<
  RoundTripRow,
  | 'coin'
  | 'direction'
  | 'status'
  | 'leverage'
  | 'fees'
  | 'funding'
  | 'size'
  | 'notional'
  | 'entry_px'
  | 'exit_px'
  | 'fills'
  | 'opened_at'
  | 'closed_at'
> & {
  /** Realized PnL (Σ closedPnl); an open trade adds its unrealized PnL at the last fill price. */
  pnl: string;
  /** Σ closedPnl of its reducing fills so far. */
  realized_pnl: string;
  /** pnl − fees + funding. */
  net_pnl: string;
};

/** A wallet's fills through one builder ('' = none) over the timeframe: the hourly rows summed. */
export type BuilderActivity = Omit<BuilderHourlyRow, 'address' | 'hour'>;

export interface WalletActivity {
  address: string;
  /** Traded through builders other than this one. */
  flagged: boolean;
  external_volume: string;
  externalBuilders: BuilderActivity[];
  /** Fills without a builder; null when `includeNoBuilder` is false or there were none. */
  noBuilder: Omit<BuilderActivity, 'builder'> | null;
  /** Fills through this builder; null when none. */
  own: Omit<BuilderActivity, 'builder'> | null;
}

export interface ExternalActivity {
  builder: string;
  timeframe: Timeframe;
  data: WalletActivity[];
  summary: {
    wallets: number;
    flagged: number;
    own_only: number;
    no_builder_only: number;
    inactive: number;
  };
}
