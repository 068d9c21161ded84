// The analytics service's inputs: its windows, timeframes, sorts and intervals, the caps and defaults of spec §8,
// and the rules that check an address, a choice, a wallet list and a window's bounds.
import { MAX_WALLETS_PER_CALL, walletCount } from '../../../access/costs.ts';
import { FieldError, isAddress } from '../../../platform/fields.ts';
import { DAY_MS, HOUR_MS } from './window.ts';

/** Performance, equity and calendar windows (spec §4.3). */
export const WINDOWS = ['7d', '30d', '90d', 'all'] as const;
export type Window = (typeof WINDOWS)[number];
export const WINDOW_MS: Record<Window, number | null> = {
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
  '90d': 90 * DAY_MS,
  all: null,
};

/** Leaderboard windows, refreshed on a schedule (spec §8). */
export const LEADERBOARD_WINDOWS = ['7d', '30d', 'all'] as const;
export type LeaderboardWindow = (typeof LEADERBOARD_WINDOWS)[number];

export const TIMEFRAMES = ['1h', '24h', '7d', '30d'] as const;
export type Timeframe = (typeof TIMEFRAMES)[number];
export const TIMEFRAME_MS: Record<Timeframe, number> = {
  '1h': HOUR_MS,
  '24h': DAY_MS,
  '7d': 7 * DAY_MS,
  '30d': 30 * DAY_MS,
};

export const TRADE_SORTS = ['pnl', 'pnl_abs', 'notional', 'loss'] as const;
export type TradeSort = (typeof TRADE_SORTS)[number];
export const EQUITY_INTERVALS = ['1h', '1d'] as const;
export type EquityInterval = (typeof EQUITY_INTERVALS)[number];

/** Spec §8 limits. */
export const MAX_LEADERBOARD_PAGE_SIZE = 500;
export const DEFAULT_LEADERBOARD_PAGE_SIZE = 100;
export const MAX_LEADERBOARD_PAGE = 10_000;
export const LIVE_TOP = 100;
export const MAX_LIVE_HOURS = 168;
/** The largest `min_trades` a leaderboard takes. */
export const MAX_MIN_TRADES = 1_000_000;
export const DEFAULT_LIVE_HOURS = 24;
/** Spec §8's wallets per batch call, as the router checks them before charging (access/costs.ts). */
export const MAX_WALLETS = MAX_WALLETS_PER_CALL;
export const MAX_TOP_TRADES = 50;
export const DEFAULT_TOP_TRADES = 5;
export const MAX_ROUND_TRIPS = 500;

export function address(value: string, field: string): string {
  if (!isAddress(value))
    throw new FieldError(`${field}: must be a 0x address (40 hex digits), got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

export function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new FieldError(`${field}: must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

/** 1 to 500 addresses, each a 0x address (lowercased, submission order kept). */
export function walletList(values: readonly string[], field = 'addresses'): string[] {
  walletCount(values, field);
  return values.map((v, i) => address(v, `${field}[${i}]`));
}

/** A window's bounds: `startTime`/`endTime` take precedence over `window` (spec §4.3). */
export function windowBounds(
  window: Window,
  now: number,
  startTime?: number,
  endTime?: number,
): { start: number | null; end: number } {
  const end = endTime ?? now;
  const span = WINDOW_MS[window];
  const start = startTime ?? (span === null ? null : end - span);
  if (start !== null && start > end) throw new FieldError(`start_time: must not be after end_time`);
  return { start, end };
}
