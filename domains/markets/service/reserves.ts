// Borrow/lend reserves: the latest state per token and the history of spec §4.2 (raw one-minute samples, or the
// last sample of each bucket with the bucket start as `time`; `limit` keeps the most recent; oldest first).
import type pg from 'pg';
import type { ReserveSampleRow } from '../../../db/rows/markets.ts';
import { describeRecord, type RecordOf } from '../../../kit/record-fields.ts';
import * as R from '../../../kit/response-schema.ts';
import { bucketSql, type CandleInterval } from './intervals.ts';
import { latestPerKey } from './sql.ts';

export const RESERVE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const;
export type ReserveInterval = (typeof RESERVE_INTERVALS)[number];

/** The exchange's ReserveState (spec §3.1: allBorrowLendReserveStates' values, borrowLendReserveState)'s fields. */
const STATE_FIELDS = {
  borrowYearlyRate: { columns: ['borrow_yearly_rate'], schema: R.decimal },
  supplyYearlyRate: { columns: ['supply_yearly_rate'], schema: R.decimal },
  balance: { columns: ['balance'], schema: R.decimal },
  utilization: { columns: ['utilization'], schema: R.decimal },
  oraclePx: { columns: ['oracle_px'], schema: R.decimal },
  ltv: { columns: ['ltv'], schema: R.decimal },
  totalSupplied: { columns: ['total_supplied'], schema: R.decimal },
  totalBorrowed: { columns: ['total_borrowed'], schema: R.decimal },
} as const;

/**
 * A reserve's state and a sample of it (borrowLendReserveHistory's samples, GraphQL's ReserveSample: the state's
 * time, token and token name first), each described once: its object, the columns it reads, its OpenAPI schema and
 * its GraphQL fields derive from it. A sample has the shape the reserve stream carries (ingest/FORMATS.md).
 */
export const RESERVE_STATE = describeRecord<ReserveSampleRow>()(STATE_FIELDS);
export const RESERVE_SAMPLE = describeRecord<ReserveSampleRow>()({
  time: { columns: ['time'], schema: R.ms },
  token: { columns: ['token'], schema: R.int },
  tokenName: { columns: ['token_name'], schema: R.str },
  ...STATE_FIELDS,
});
export type ReserveSample = RecordOf<ReserveSampleRow, typeof RESERVE_SAMPLE.fields>;
export type ReserveState = RecordOf<ReserveSampleRow, typeof RESERVE_STATE.fields>;

export interface ReserveHistory {
  token: number | null;
  interval: ReserveInterval | null;
  history: ReserveSample[];
}

/** A sample's columns, `time` first (a bucketed history states its own). */
const SAMPLE_COLUMNS = [...RESERVE_SAMPLE.columns].join(', ');

export async function latestReserves(pool: pg.Pool): Promise<ReserveSample[]> {
  const { rows } = await pool.query<ReserveSampleRow>(
    `${latestPerKey('markets.reserve_samples', 'token', SAMPLE_COLUMNS)} ORDER BY token`,
  );
  return rows.map(RESERVE_SAMPLE.of);
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
  const { rows } = await pool.query<ReserveSampleRow>(sql, params);
  const history = rows.sort((a, b) => a.time - b.time || a.token - b.token).map(RESERVE_SAMPLE.of);
  return { token: q.token ?? null, interval: q.interval ?? null, history };
}
