// Candle intervals: the exchange's 14 plus 5s and 30s, and their buckets (UTC; weeks are epoch-aligned, i.e.
// start on Thursday as the exchange's do; months are calendar months).

export const CANDLE_INTERVALS = [
  '5s',
  '30s',
  '1m',
  '3m',
  '5m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '8h',
  '12h',
  '1d',
  '3d',
  '1w',
  '1M',
] as const;

export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** Intervals whose closed frame is final without being recomputed from storage. */
export const LIVE_ONLY_INTERVALS: ReadonlySet<CandleInterval> = new Set(['5s', '30s']);

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

export const INTERVAL_MS: Readonly<Record<Exclude<CandleInterval, '1M'>, number>> = {
  '5s': 5 * S,
  '30s': 30 * S,
  '1m': M,
  '3m': 3 * M,
  '5m': 5 * M,
  '15m': 15 * M,
  '30m': 30 * M,
  '1h': H,
  '2h': 2 * H,
  '4h': 4 * H,
  '8h': 8 * H,
  '12h': 12 * H,
  '1d': D,
  '3d': 3 * D,
  '1w': 7 * D,
};

export function isCandleInterval(value: unknown): value is CandleInterval {
  return typeof value === 'string' && (CANDLE_INTERVALS as readonly string[]).includes(value);
}

/** Open time of the bucket holding `time`. */
export function bucketStart(interval: CandleInterval, time: number): number {
  if (interval === '1M') {
    const d = new Date(time);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  const len = INTERVAL_MS[interval];
  return Math.floor(time / len) * len;
}

/** Close time of the bucket opening at `t`: the next open minus one millisecond (the exchange's `T`). */
export function bucketClose(interval: CandleInterval, t: number): number {
  if (interval === '1M') {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - 1;
  }
  return t + INTERVAL_MS[interval] - 1;
}

/** SQL expression for the bucket open of an epoch-ms column, matching bucketStart. */
export function bucketSql(interval: CandleInterval, column: string): string {
  if (interval === '1M') {
    return `(extract(epoch FROM date_trunc('month', to_timestamp(${column} / 1000.0) AT TIME ZONE 'UTC')) * 1000)::bigint`;
  }
  return `((${column} / ${INTERVAL_MS[interval]}) * ${INTERVAL_MS[interval]})`;
}
