// The leaderboard's sums and metrics in one place: the scheduled windows and the live boards numbered ahead
// (writer/leaderboard.ts) and the live top 100 summed at request time rank by the same SQL, over the same window rule
// (window.ts).

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

/**
 * The live boards numbered ahead (writer/leaderboard.ts refreshLiveBoards): their `hours` (the default, the shortest
 * and the longest) → how often, in ms (168 h sums ~6 days of rows: every 5 minutes, as the 7d board). A request
 * reads one while it counts the same hours and the derivation has got at most twice that of events past it (event
 * time, not the clock: a board numbered before a catch-up is not read after it), else sums at request time.
 */
export const LIVE_BOARDS: ReadonlyMap<number, number> = new Map([
  [1, 60_000],
  [24, 60_000],
  [168, 5 * 60_000],
]);

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
 * `sums` (rankingSums or rankingRows: one row per address) with each address's current value (`withCurrentValue`)
 * and its rank columns: the ranks `rankExpressions` numbers, with fewer and cheaper sorts (issue 39: the `all` board
 * sorts 1.4 M rows per metric). A ratio metric numbers only the rows with its default `min_trades`, so those are sorted
 * apart (a tenth of the board, or less) and joined back, instead of every row sorted under a partition key that all
 * but two comparisons tie on; the other metrics number every row, one sort each.
 */
export function rankedRows(sums: string): string {
  const number = (m: Metric, t: string) =>
    `row_number() OVER (ORDER BY ${metricOrder(m, t)} DESC NULLS LAST, ${t}.address)::int AS ${rankColumn(m)}`;
  const plain = METRICS.filter((m) => !RATIO_METRICS.includes(m));
  return `WITH board_sums AS (${sums}),
      ratio_ranks AS (SELECT s.address, ${RATIO_METRICS.map((m) => number(m, 's')).join(', ')}
                      FROM board_sums s WHERE s.trades >= ${DEFAULT_MIN_TRADES})
    SELECT r.*, ${RATIO_METRICS.map((m) => `q.${rankColumn(m)}`).join(', ')}
    FROM (SELECT r.*, ${plain.map((m) => number(m, 'r')).join(', ')}
          FROM (${withCurrentValue('SELECT * FROM board_sums')}) r) r
    LEFT JOIN ratio_ranks q ON q.address = r.address`;
}

/**
 * Per address, the sums of `rows` (a window's rows, window.ts `windowRows`), with the ratio metrics (`rankingRows`).
 */
export function rankingSums(rows: string): string {
  return rankingRows(`SELECT address, sum(fills) AS fills, sum(volume) AS volume, sum(realized_pnl) AS realized_pnl,
      sum(fees) AS fees, sum(funding) AS funding, sum(wins) AS wins, sum(losses) AS losses, sum(trips) AS trips
    FROM (${rows}) w GROUP BY address`);
}

/**
 * The row a board ranks, from `sums` (one row per address: fills, volume, realized_pnl, fees, funding, wins, losses,
 * trips), with the ratio metrics: win rate = wins / closed trips (a fraction), pnl_pct = net PnL (realized − fees +
 * funding) / traded volume, in percent.
 */
export function rankingRows(sums: string): string {
  return `SELECT address, fills::int AS fills, volume, realized_pnl, fees, funding, wins::int AS wins,
      losses::int AS losses, trips::int AS trades,
      CASE WHEN trips > 0 THEN round(wins::numeric / trips, 6) END AS win_rate,
      CASE WHEN volume > 0 THEN round((realized_pnl - fees + funding) / volume * 100, 6) END AS pnl_pct
    FROM (${sums}) s`;
}

/**
 * `rows` (rankingSums or rankingRows) with each address's current account value and unrealized PnL: its latest
 * snapshot's, which the derivation keeps in its running state (a join, not a probe of the snapshots per address).
 */
export function withCurrentValue(rows: string): string {
  return `SELECT s.*, st.snapshot_value AS account_value, st.snapshot_unrealized AS unrealized_pnl
    FROM (${rows}) s LEFT JOIN analytics.account_state st ON st.address = s.address`;
}
