// The leaderboard's sums and metrics in one place: the scheduled windows (writer/leaderboard.ts) and the live
// top 100 rank by the same SQL, over the same window rule (window.ts).

/** Ranking metrics (`by`), spec §2.3 "Leaderboard row". */
export const METRICS = ['volume', 'pnl', 'trades', 'win_rate', 'pnl_pct', 'unrealized_pnl'] as const;
export type Metric = (typeof METRICS)[number];

/** The ratio metrics, which rank only accounts with at least `min_trades` closed trips (spec §8). */
export const RATIO_METRICS: readonly Metric[] = ['win_rate', 'pnl_pct'];
export const DEFAULT_MIN_TRADES = 10;

/** What each metric sorts by (descending; nulls last), over the columns of the row alias `t`. */
export function metricOrder(metric: Metric, t: string): string {
  const column = {
    volume: `${t}.volume`,
    pnl: `(${t}.realized_pnl - ${t}.fees + ${t}.funding)`,
    trades: `${t}.trades`,
    win_rate: `${t}.win_rate`,
    pnl_pct: `${t}.pnl_pct`,
    unrealized_pnl: `${t}.unrealized_pnl`,
  };
  return column[metric];
}

/** The `min_trades` a metric ranks under when the request names none: the ratio metrics' 10, else 0. */
export const defaultMinTrades = (metric: Metric): number => (RATIO_METRICS.includes(metric) ? DEFAULT_MIN_TRADES : 0);

/** The leaderboard column holding a row's precomputed rank by `metric` under its default `min_trades`. */
export const rankColumn = (metric: Metric): string => `rank_${metric}`;

/**
 * The rank columns as select expressions over the row alias `t` (a scheduled window's rows): each metric's order
 * (`metricOrder` descending, nulls last, then address, as a page sorts), numbering only rows with at least the
 * metric's default `min_trades` closed trips.
 */
export function rankExpressions(t: string): string {
  return METRICS.map((m) => {
    const min = defaultMinTrades(m);
    const order = `ORDER BY ${metricOrder(m, t)} DESC NULLS LAST, ${t}.address`;
    return min === 0
      ? `row_number() OVER (${order})::int AS ${rankColumn(m)}`
      : `CASE WHEN ${t}.trades >= ${min} THEN row_number() OVER (PARTITION BY ${t}.trades >= ${min} ${order}) END::int
           AS ${rankColumn(m)}`;
  }).join(', ');
}

/**
 * Per address, the sums of `rows` (a window's rows, window.ts `windowRows`), with the ratio metrics: win rate =
 * wins / closed trips (a fraction), pnl_pct = net PnL (realized − fees + funding) / traded volume, in percent.
 */
export function rankingSums(rows: string): string {
  return `SELECT address, sum(fills)::int AS fills, sum(volume) AS volume, sum(realized_pnl) AS realized_pnl,
      sum(fees) AS fees, sum(funding) AS funding, sum(wins)::int AS wins, sum(losses)::int AS losses,
      sum(trips)::int AS trades,
      CASE WHEN sum(trips) > 0 THEN round(sum(wins)::numeric / sum(trips), 6) END AS win_rate,
      CASE WHEN sum(volume) > 0 THEN round((sum(realized_pnl) - sum(fees) + sum(funding)) / sum(volume) * 100, 6) END
        AS pnl_pct
    FROM (${rows}) w GROUP BY address`;
}

/** The latest snapshot's account value and unrealized PnL of each address of `sums` (a lateral join). */
export const LATEST_SNAPSHOT = `LEFT JOIN LATERAL (
    SELECT account_value, unrealized_pnl FROM analytics.account_snapshots sn
    WHERE sn.address = s.address ORDER BY time DESC LIMIT 1) snap ON true`;
