// The analytics service's inputs: its windows, timeframes, sorts and intervals, the caps and defaults of spec §8,
// a window's bounds, and each capability's input definition, which every caller reads its input through.
import { MAX_WALLETS_PER_CALL } from '../../../access/costs.ts';
import * as In from '../../../kit/input.ts';
import { FieldError } from '../../../platform/fields.ts';
import { DEFAULT_MIN_TRADES, METRICS, RATIO_METRICS } from './ranking.ts';
import { DAY_MS, HOUR_MS, WINDOW_RULE } from './window.ts';

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
export const DEFAULT_ROUND_TRIPS = 100;

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

// ---- what each capability takes (kit/input.ts): the routes, tools and GraphQL fields derive from these ----

const userField = In.address('the account');
const wallets = In.named(
  In.list(In.address('an address'), 'the wallets, answered in this order', {
    min: 1,
    max: MAX_WALLETS,
    rule: `must hold 1 to ${MAX_WALLETS} addresses`,
  }),
  // Every edge calls the wallets `addresses`; the service calls them users.
  { rest: 'addresses', mcp: 'addresses', info: 'addresses', graphql: 'addresses' },
);
const windowField = (defaultWindow: Window) =>
  In.oneOf(
    WINDOWS,
    `the period ending now: ${WINDOWS.join(', ')} (all = since the first fill), ${WINDOW_RULE}; default ${defaultWindow}`,
    defaultWindow,
  );

export const LEADERBOARD = In.defineInput({
  window: In.optional(
    In.oneOf(
      LEADERBOARD_WINDOWS,
      'rank over this scheduled window (paged); omit for the live ranking over the last `hours`',
    ),
  ),
  by: In.oneOf(METRICS, 'the metric to rank by, largest first; default pnl', 'pnl'),
  page: In.int(`page of the scheduled ranking (1 to ${MAX_LEADERBOARD_PAGE}, default 1)`, {
    min: 1,
    max: MAX_LEADERBOARD_PAGE,
    default: 1,
  }),
  limit: In.int(`accounts per page (1 to ${MAX_LEADERBOARD_PAGE_SIZE}, default ${DEFAULT_LEADERBOARD_PAGE_SIZE})`, {
    min: 1,
    max: MAX_LEADERBOARD_PAGE_SIZE,
    default: DEFAULT_LEADERBOARD_PAGE_SIZE,
  }),
  minTrades: In.optional(
    In.int(
      `rank only accounts with at least this many closed trades; default ${DEFAULT_MIN_TRADES} for ` +
        `${RATIO_METRICS.join(' and ')}, 0 for the other metrics`,
      { min: 0, max: MAX_MIN_TRADES },
    ),
  ),
  hours: In.int(
    `live ranking only: the last N hours (1 to ${MAX_LIVE_HOURS}, default ${DEFAULT_LIVE_HOURS}), ${WINDOW_RULE}`,
    {
      min: 1,
      max: MAX_LIVE_HOURS,
      default: DEFAULT_LIVE_HOURS,
    },
  ),
});

export const PERFORMANCE = In.defineInput(
  {
    user: userField,
    window: windowField('7d'),
    startTime: In.optional(In.time('start of a custom period (takes precedence over window)')),
    endTime: In.optional(In.time('end of a custom period; default now')),
  },
  { window: ['startTime', 'endTime'] },
);

export const BATCH_PERFORMANCE = In.defineInput({
  users: wallets,
  window: windowField('7d'),
  includeDrawdown: In.bool("add each wallet's max drawdown (trade and equity based); default false", false),
});

export const PNL_CALENDAR = In.defineInput({ user: userField, window: windowField('30d') });

export const EQUITY_HISTORY = In.defineInput({
  user: userField,
  interval: In.oneOf(EQUITY_INTERVALS, 'one snapshot per hour (1h, default) or the close of each UTC day (1d)', '1h'),
  window: windowField('7d'),
});

export const TOP_TRADES = In.defineInput({
  user: userField,
  sort: In.oneOf(TRADE_SORTS, 'pnl (default), pnl_abs (largest either way), notional, or loss (worst first)', 'pnl'),
  limit: In.int(`how many trades (1 to ${MAX_TOP_TRADES}, default ${DEFAULT_TOP_TRADES})`, {
    min: 1,
    max: MAX_TOP_TRADES,
    default: DEFAULT_TOP_TRADES,
  }),
  includeOpen: In.bool('count open positions as trades (their PnL unrealized); default true', true),
});

export const EXTERNAL_ACTIVITY = In.defineInput({
  builder: In.address('the builder'),
  users: wallets,
  timeframe: In.oneOf(TIMEFRAMES, `the period ending now, ${WINDOW_RULE}; default 7d`, '7d'),
  // The path route's body calls it includeNoBuilder too (spec §4.3).
  includeNoBuilder: In.named(In.bool('add the fills made without any builder; default true', true), {
    rest: 'includeNoBuilder',
  }),
});

/** A builder by its address (Query.builder: the entity its fields hang on). */
export const BUILDER = In.defineInput({ address: In.address('the builder') });

/** A user's rank in a scheduled window's ranking (User.leaderboardRank). */
export const LEADERBOARD_RANK = In.defineInput({
  user: userField,
  window: In.oneOf(LEADERBOARD_WINDOWS, 'the scheduled window whose ranking to read'),
  by: In.oneOf(METRICS, 'the metric ranked by; default pnl', 'pnl'),
});

export const ROUND_TRIP_STATUSES = ['open', 'closed'] as const;

/** A user's round trips opened in a window (User.roundTrips). */
export const ROUND_TRIPS = In.defineInput({
  user: userField,
  status: In.optional(In.oneOf(ROUND_TRIP_STATUSES, 'only open or only closed trips')),
  startTime: In.optional(In.time('opened at or after; default no lower bound')),
  endTime: In.optional(In.time('opened at or before; default now')),
  // GraphQL calls the page size `first`.
  limit: In.named(
    In.int(`how many trips (1 to ${MAX_ROUND_TRIPS}, default ${DEFAULT_ROUND_TRIPS})`, {
      min: 1,
      max: MAX_ROUND_TRIPS,
      default: DEFAULT_ROUND_TRIPS,
    }),
    { graphql: 'first' },
  ),
});
