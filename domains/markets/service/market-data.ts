// Stored market history: recent trades, funding-rate history and candle snapshots (stored closed candles overlaid
// with the aggregator's live ones).
import type pg from 'pg';
import { TEXT_TYPES } from '../../../db/pool.ts';
import type { FundingRateRow, TradeRow } from '../../../db/rows/markets.ts';
import { describeRecord, type RecordOf } from '../../../kit/record-fields.ts';
import * as R from '../../../kit/response-schema.ts';
import { jsonArrayBytes, jsonString } from '../../../platform/json-text.ts';
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

/** A stored trade as the exchange prints it (the shape of /ws trades and the Trade type). */
export function toWireTrade(t: TradeRow): WireTrade {
  return {
    coin: t.coin,
    side: t.side,
    px: t.px,
    sz: t.sz,
    time: t.time,
    hash: t.hash,
    tid: t.tid,
    users: [t.buyer ?? '', t.seller ?? ''],
  };
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

/**
 * A perp's funding rate of an hour (fundingHistory's items, GraphQL's FundingRate), described once: its object, its
 * OpenAPI schema and its GraphQL fields derive from this. A premium the node did not give is 0.
 */
export const FUNDING_RATE = describeRecord<FundingRateRow>()({
  coin: { columns: ['coin'], schema: R.str },
  fundingRate: { columns: ['funding_rate'], schema: R.decimal },
  premium: { columns: ['premium'], schema: R.decimal, of: (r) => r.premium ?? '0' },
  time: { columns: ['time'], schema: R.ms },
});
export type FundingRate = RecordOf<FundingRateRow, typeof FUNDING_RATE.fields>;

/** fundingHistory: hourly rates, oldest first, at most `limit` (the exchange caps time ranges at 500). */
export async function fundingHistory(
  pool: pg.Pool,
  coin: string,
  startTime: number,
  endTime: number,
  limit = 500,
): Promise<FundingRate[]> {
  const { rows } = await pool.query<FundingRateRow>(
    `SELECT ${[...FUNDING_RATE.columns].join(', ')}
     FROM markets.funding_rates WHERE coin = $1 AND time >= $2 AND time <= $3 ORDER BY time LIMIT $4`,
    [coin, startTime, endTime, limit],
  );
  return rows.map(FUNDING_RATE.of);
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

/** The stored candles behind candleSnapshot, newest first; the bench times this same statement as its baseline. */
export const CANDLE_SNAPSHOT_SQL = `SELECT t, close_time, o::text, c::text, h::text, l::text, v::text, n, closed,
       reconciled
     FROM markets.candles WHERE coin = $1 AND interval = $2 AND t >= $3 AND t <= $4
     ORDER BY t DESC LIMIT ${MAX_CANDLES}`;

/** A stored candle as Postgres prints it: t, T, o, c, h, l, v, n, closed, reconciled ('t' or 'f'). */
type StoredCandle = [string, string, string, string, string, string, string, string, string, string];

export interface CandleQuery {
  coin: string;
  interval: CandleInterval;
  startTime: number;
  endTime: number;
}

/**
 * Candles opening in [startTime, endTime], oldest first, the `MAX_CANDLES` most recent of them: stored closed
 * candles overlaid with `live` ones (the open bucket and those whose final frame is pending).
 */
async function snapshotCandles(
  pool: pg.Pool,
  q: CandleQuery,
  live: readonly CandleFrame[],
): Promise<(StoredCandle | CandleFrame)[]> {
  const from = bucketStart(q.interval, q.startTime);
  const { rows } = await pool.query<StoredCandle>({
    text: CANDLE_SNAPSHOT_SQL,
    values: [q.coin, q.interval, from, q.endTime],
    rowMode: 'array',
    types: TEXT_TYPES,
  });
  const overlay = live.filter((f) => f.t >= from && f.t <= q.endTime);
  if (!overlay.length) return rows.reverse();
  const byT = new Map<number, StoredCandle | CandleFrame>(rows.map((r) => [Number(r[0]), r]));
  for (const f of overlay) byT.set(f.t, f);
  return [...byT.entries()]
    .sort((a, b) => a[0] - b[0])
    .slice(-MAX_CANDLES)
    .map((e) => e[1]);
}

function wireCandle(c: StoredCandle | CandleFrame, q: CandleQuery): WireCandle {
  if (!Array.isArray(c)) return { t: c.t, T: c.T, s: c.s, i: c.i, o: c.o, c: c.c, h: c.h, l: c.l, v: c.v, n: c.n };
  const [t, T, o, close, h, l, v, n] = c;
  return { t: Number(t), T: Number(T), s: q.coin, i: q.interval, o, c: close, h, l, v, n: Number(n) };
}

/**
 * candleSnapshot as candle frames (the GraphQL resolvers): each with its `closed` and `reconciled` as stored or
 * live (a stored 5s or 30s bucket is final unreconciled, spec §6).
 */
export async function candleSnapshot(
  pool: pg.Pool,
  q: CandleQuery,
  live: readonly CandleFrame[] = [],
): Promise<CandleFrame[]> {
  return (await snapshotCandles(pool, q, live)).map((c) => {
    if (!Array.isArray(c)) return c;
    // Assigned, not spread into a copy (a copy per candle is most of the cost for thousands of them).
    const frame = wireCandle(c, q) as CandleFrame;
    frame.closed = c[8] === 't';
    frame.reconciled = c[9] === 't';
    return frame;
  });
}

/**
 * candleSnapshot as the JSON bytes the exchange sends, written straight from Postgres's text: for 5 000 candles
 * this skips building 5 000 objects and serializing them again. Same keys, same order, as `candleSnapshot`.
 */
export async function candleSnapshotJson(
  pool: pg.Pool,
  q: CandleQuery,
  live: readonly CandleFrame[] = [],
): Promise<Buffer> {
  const names = `"s":${jsonString(q.coin)},"i":${jsonString(q.interval)}`;
  return jsonArrayBytes(await snapshotCandles(pool, q, live), (c) =>
    Array.isArray(c)
      ? `{"t":${c[0]},"T":${c[1]},${names},"o":"${c[2]}","c":"${c[3]}","h":"${c[4]}","l":"${c[5]}","v":"${c[6]}","n":${c[7]}}`
      : JSON.stringify(wireCandle(c, q)),
  );
}
