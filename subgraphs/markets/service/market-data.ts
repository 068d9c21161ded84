// Stored market history: recent trades, funding-rate history and candle snapshots (stored closed candles overlaid
// with the aggregator's live ones).
import type pg from 'pg';
import type { CandleFrame } from './candles.ts';
import { bucketStart, type CandleInterval } from './intervals.ts';

/** The exchange's Trade (recentTrades, WS trades). */
export interface WireTrade {
  coin: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  time: number;
  hash: string;
  tid: number;
  users: [string, string];
}

const TRADE_COLUMNS = `coin, side, px::text AS px, sz::text AS sz, time, hash, tid,
  ARRAY[coalesce(buyer, ''), coalesce(seller, '')] AS users`;

export interface TradesQuery {
  coin: string;
  limit: number;
  startTime?: number;
  endTime?: number;
}

/** Trades of a coin, newest first. */
export async function tradesOf(pool: pg.Pool, q: TradesQuery): Promise<WireTrade[]> {
  const { rows } = await pool.query<WireTrade>(
    `SELECT ${TRADE_COLUMNS} FROM markets.trades
     WHERE coin = $1 AND ($2::bigint IS NULL OR time >= $2) AND ($3::bigint IS NULL OR time <= $3)
     ORDER BY time DESC, block_number DESC, seq DESC LIMIT $4`,
    [q.coin, q.startTime ?? null, q.endTime ?? null, q.limit],
  );
  return rows;
}

export interface FundingRate {
  coin: string;
  fundingRate: string;
  premium: string;
  time: number;
}

/** fundingHistory: hourly rates, oldest first, at most `limit` (the exchange caps time ranges at 500). */
export async function fundingHistory(
  pool: pg.Pool,
  coin: string,
  startTime: number,
  endTime: number,
  limit = 500,
): Promise<FundingRate[]> {
  const { rows } = await pool.query<FundingRate>(
    `SELECT coin, funding_rate::text AS "fundingRate", coalesce(premium, 0)::text AS premium, time
     FROM markets.funding_rates WHERE coin = $1 AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4`,
    [coin, startTime, endTime, limit],
  );
  return rows;
}

/** The exchange's candle shape. */
export interface WireCandle {
  t: number;
  T: number;
  s: string;
  i: CandleInterval;
  o: string;
  c: string;
  h: string;
  l: string;
  v: string;
  n: number;
}

export const MAX_CANDLES = 5000;

/**
 * candleSnapshot: candles opening in [startTime, endTime], oldest first, the `MAX_CANDLES` most recent of them.
 * Stored closed candles are overlaid with `live` ones (the open bucket and those whose final frame is pending).
 */
export async function candleSnapshot(
  pool: pg.Pool,
  q: { coin: string; interval: CandleInterval; startTime: number; endTime: number },
  live: readonly CandleFrame[] = [],
): Promise<WireCandle[]> {
  const { rows } = await pool.query<WireCandle>(
    `SELECT t, close_time AS "T", coin AS s, interval AS i, o::text AS o, c::text AS c, h::text AS h, l::text AS l,
       v::text AS v, n
     FROM markets.candles WHERE coin = $1 AND interval = $2 AND t >= $3 AND t <= $4
     ORDER BY t DESC LIMIT ${MAX_CANDLES}`,
    [q.coin, q.interval, bucketStart(q.interval, q.startTime), q.endTime],
  );
  const byT = new Map(rows.map((r) => [r.t, r]));
  for (const f of live) {
    if (f.t < bucketStart(q.interval, q.startTime) || f.t > q.endTime) continue;
    byT.set(f.t, { t: f.t, T: f.T, s: f.s, i: f.i, o: f.o, c: f.c, h: f.h, l: f.l, v: f.v, n: f.n });
  }
  return [...byT.values()].sort((a, b) => a.t - b.t).slice(-MAX_CANDLES);
}
