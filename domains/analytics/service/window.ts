// The one window rule of the analytics domain, shared by the service (performance, batch performance, PnL calendar,
// the live leaderboard, builder external activity) and the leaderboard refresh (writer/leaderboard.ts).
//
// A window is [start, end] (start = end − span, or the caller's start_time). The derived sums are kept per UTC hour
// (user_hourly, builder_hourly; user_daily holds the same sums per day), so a window counts **every UTC hour that
// overlaps it, whole**: the hours from the one holding `start` through the one holding `end`. A window ending now
// is exact at its end (nothing later is stored) and reaches up to an hour before `start`: every event of the last
// `span` counts, never fewer. Round trips count by the hour of their close, the same rule. Equity points
// (snapshots, instants at hour closes) count when their time is inside [start, end].

/** The rule in a phrase, for the interfaces' descriptions. */
export const WINDOW_RULE = 'counted by whole UTC hours: every hour overlapping the period';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** The hours a window counts: [from, to), whole UTC hours. */
export interface WindowHours {
  from: number;
  to: number;
}

/** Every UTC hour overlapping [start, end] (start null: from the beginning). */
export function windowHours(start: number | null, end: number): WindowHours {
  return {
    from: start === null ? 0 : Math.floor(start / HOUR_MS) * HOUR_MS,
    to: Math.floor(end / HOUR_MS) * HOUR_MS + HOUR_MS,
  };
}

/**
 * The four parameters `windowRows` reads, in order: the first hour, the first whole UTC day, the end of the whole
 * days, the end of the hours (epoch ms). Without a whole day inside, every hour is read from the hourly rows.
 */
export function windowParams(h: WindowHours): [number, number, number, number] {
  let dayFrom = Math.ceil(h.from / DAY_MS) * DAY_MS;
  let dayTo = Math.floor(h.to / DAY_MS) * DAY_MS;
  if (dayTo <= dayFrom) dayFrom = dayTo = h.to;
  return [h.from, dayFrom, dayTo, h.to];
}

const asDate = (param: string) => `(to_timestamp(${param}::float8 / 1000) AT TIME ZONE 'UTC')::date`;

/**
 * The per-user sums of a window's hours, one row per address and UTC day (`day`): the whole days from user_daily,
 * the hours at either edge from user_hourly (a 30-day window reads about 30 + 48 rows per wallet, not 720). `$p` to
 * `$p+3` are `windowParams`; `where` filters addresses (both tables have `address`).
 */
export function windowRows(p: number, where: string): string {
  const [from, dayFrom, dayTo, to] = [p, p + 1, p + 2, p + 3].map((i) => `$${i}`) as [string, string, string, string];
  const columns = 'fills, volume, realized_pnl, fees, funding, wins, losses, trips, longs, shorts';
  return `SELECT address, ${asDate(`hour`)} AS day, ${columns} FROM analytics.user_hourly
      WHERE ${where} AND ((hour >= ${from} AND hour < ${dayFrom}) OR (hour >= ${dayTo} AND hour < ${to}))
    UNION ALL
    SELECT address, day, ${columns} FROM analytics.user_daily
      WHERE ${where} AND day >= ${asDate(dayFrom)} AND day < ${asDate(dayTo)}`;
}

/**
 * Equity drawdown over a series `v` with running peak `peak` (aggregates): `dd_usd` the largest peak-to-trough
 * fall; `dd_pct` the largest fall as a percent of its peak, bounded to [0, 100]: a trough below zero counts as zero
 * (the whole peak lost), and points whose running peak is not positive (no equity to fall from) are left out, so it
 * is null when equity was never positive.
 */
export function drawdownAggregates(v: string, peak: string): string {
  return `max(${peak} - ${v}) AS dd_usd,
    round(max(CASE WHEN ${peak} > 0 THEN (${peak} - greatest(${v}, 0)) / ${peak} END) * 100, 6) AS dd_pct`;
}
