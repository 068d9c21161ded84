// The analytics arguments' enums: GraphQL names (no leading digit) over the service's values, so resolvers pass
// the value on as the service takes it.
import { builder } from '../builder.ts';
import { WINDOW_RULE } from '../service/window.ts';

const periodEnding = `The period ending now (or endTime), ${WINDOW_RULE}`;

export const WindowEnum = builder.enumType('PerformanceWindow', {
  description: periodEnding,
  values: { D7: { value: '7d' }, D30: { value: '30d' }, D90: { value: '90d' }, ALL: { value: 'all' } } as const,
});
export const LeaderboardWindowEnum = builder.enumType('LeaderboardWindow', {
  description: periodEnding,
  values: { D7: { value: '7d' }, D30: { value: '30d' }, ALL: { value: 'all' } } as const,
});
export const IntervalEnum = builder.enumType('EquityInterval', {
  values: { H1: { value: '1h' }, D1: { value: '1d' } } as const,
});
export const TradeSortEnum = builder.enumType('TradeSort', {
  values: {
    PNL: { value: 'pnl' },
    PNL_ABS: { value: 'pnl_abs' },
    NOTIONAL: { value: 'notional' },
    LOSS: { value: 'loss' },
  } as const,
});
export const RoundTripStatusEnum = builder.enumType('RoundTripStatus', {
  values: { OPEN: { value: 'open' }, CLOSED: { value: 'closed' } } as const,
});
export const MetricEnum = builder.enumType('LeaderboardMetric', {
  values: {
    VOLUME: { value: 'volume' },
    PNL: { value: 'pnl' },
    TRADES: { value: 'trades' },
    WIN_RATE: { value: 'win_rate' },
    PNL_PCT: { value: 'pnl_pct' },
    UNREALIZED_PNL: { value: 'unrealized_pnl' },
  } as const,
});
export const TimeframeEnum = builder.enumType('ActivityTimeframe', {
  description: periodEnding,
  values: { H1: { value: '1h' }, H24: { value: '24h' }, D7: { value: '7d' }, D30: { value: '30d' } } as const,
});
