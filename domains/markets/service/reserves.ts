// Borrow/lend reserves: the latest state per token and the history of spec §4.2 (raw one-minute samples, or the
// last sample of each bucket with the bucket start as `time`; `limit` keeps the most recent; oldest first).
import type pg from 'pg';
import type { ReserveEvent } from '../../../wire/node-lines.ts';
import { bucketSql, type CandleInterval } from './intervals.ts';
import { latestPerKey } from './sql.ts';

export const RESERVE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type ReserveInterval = (typeof RESERVE_INTERVALS)[number];

/** A sample as the service prints it: the same shape the reserve stream carries (ingest/FORMATS.md). */
export type ReserveSample = ReserveEvent;

/** The exchange's ReserveState (allBorrowLendReserveStates, borrowLendReserveState). */
export type ReserveState = Omit<ReserveSample, 'time' | 'token' | 'tokenName'>;

export interface ReserveHistory {
  token: number | null;
  interval: ReserveInterval | null;
  history: ReserveSample[];
}

const SAMPLE_COLUMNS = `time, token, token_name AS "tokenName", borrow_yearly_rate::text AS "borrowYearlyRate",
  supply_yearly_rate::text AS "supplyYearlyRate", balance::text AS balance, utilization::text AS utilization,
  oracle_px::text AS "oraclePx", ltv::text AS ltv, total_supplied::text AS "totalSupplied",
  total_borrowed::text AS "totalBorrowed"`;

export async function latestReserves(pool: pg.Pool): Promise<ReserveSample[]> {
  const { rows } = await pool.query<ReserveSample>(
    `${latestPerKey('markets.reserve_samples', 'token', SAMPLE_COLUMNS)} ORDER BY token`,
  );
  return rows;
}

/** `allBorrowLendReserveStates`: `[[tokenIndex, ReserveState], ...]`. */
export async function allReserveStates(pool: pg.Pool): Promise<[number, ReserveState][]> {
  return (await latestReserves(pool)).map(({ time: _t, token, tokenName: _n, ...state }) => [token, state]);
}

export interface ReserveHistoryQuery {
  token?: number;
  startTime: number;
  endTime: number;
  interval?: ReserveInterval;
  limit: number;
}

export async function reserveHistory(pool: pg.Pool, q: ReserveHistoryQuery): Promise<ReserveHistory> {
  const params = [q.token ?? null, q.startTime, q.endTime, q.limit];
  // bigint: any integer >= 0 is a valid `token` (spec §4.2); one past the column's int range is simply no token.
  const filter = '($1::bigint IS NULL OR token = $1) AND time >= $2 AND time <= $3';
  let sql: string;
  if (q.interval) {
    const bucket = bucketSql(q.interval as CandleInterval, 'r.time');
    // The last sample of each bucket, reported at the bucket start. `r.time` is the sample's own time: a bare
    // `time` in ORDER BY would name the output column (the bucket).
    sql = `SELECT * FROM (
        SELECT DISTINCT ON (token, ${bucket}) ${SAMPLE_COLUMNS.replace(/^time,/, `${bucket} AS time,`)}
        FROM markets.reserve_samples r WHERE ${filter}
        ORDER BY token, ${bucket}, r.time DESC
      ) b ORDER BY time DESC, token LIMIT $4`;
  } else {
    sql = `SELECT ${SAMPLE_COLUMNS} FROM markets.reserve_samples WHERE ${filter} ORDER BY time DESC, token LIMIT $4`;
  }
  const { rows } = await pool.query<ReserveSample>(sql, params);
  const history = rows.sort((a, b) => a.time - b.time || a.token - b.token);
  return { token: q.token ?? null, interval: q.interval ?? null, history };
}
