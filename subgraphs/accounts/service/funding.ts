// Per-user funding payments: userFunding / accountFunding (exchange shape with the spec's top-level additions, oldest
// first) and the snapshot of the userFundings WebSocket channel.
import type pg from 'pg';
import type { FundingPaymentRow } from '../../../db/rows/accounts.ts';
import { FUNDING_COVERAGE_START } from '../../../platform/coverage.ts';
import { ZERO_HASH } from './shared.ts';

/** The exchange caps time-ranged answers at 500 elements. */
export const MAX_FUNDING_PAYMENTS = 500;

export interface FundingDelta {
  type: 'funding';
  coin: string;
  usdc: string;
  szi: string;
  fundingRate: string;
  nSamples: null;
}

/**
 * An element of userFunding: settlement time, the zero hash, the payment (usdc + = received), in the exchange's
 * shape, plus the spec's top-level `coin`, `usdc` and `szi` (§2.3; the same values as in `delta`).
 */
export interface UserFundingEntry {
  coin: string;
  usdc: string;
  szi: string;
  time: number;
  hash: string;
  delta: FundingDelta;
}

/** An item of the userFundings channel (and of userEvents `{funding}`): the delta without `type`, with `time`. */
export interface WsFunding {
  time: number;
  coin: string;
  usdc: string;
  szi: string;
  fundingRate: string;
  nSamples: null;
}

export interface UserFundingQuery {
  user: string;
  /** Inclusive epoch-ms bounds on the settlement time; no start = from the beginning. */
  startTime?: number;
  endTime?: number;
  /** Capped at 500, as the exchange does. */
  limit: number;
}

interface FundingSqlRow {
  time: number;
  coin: string;
  usdc: string;
  szi: string;
  funding_rate: string;
}

const FUNDING_COLUMNS = `time, coin, usdc::text AS usdc, szi::text AS szi, funding_rate::text AS funding_rate`;

/**
 * userFunding: the first `limit` payments of the window, oldest first. Payments held from before the coverage start
 * (2025-09-27 10:00 UTC) are not complete and never served: the window starts there at the earliest.
 */
export async function userFunding(pool: pg.Pool, q: UserFundingQuery): Promise<UserFundingEntry[]> {
  const startTime = Math.max(q.startTime ?? 0, FUNDING_COVERAGE_START);
  if (q.endTime !== undefined && q.endTime < startTime) return [];
  const limit = Math.max(1, Math.min(Math.floor(q.limit), MAX_FUNDING_PAYMENTS));
  const { rows } = await pool.query<FundingSqlRow>(
    `SELECT ${FUNDING_COLUMNS} FROM accounts.funding_payments
     WHERE address = $1 AND time >= $2 AND ($3::bigint IS NULL OR time <= $3)
     ORDER BY time, block_number, coin LIMIT $4`,
    [q.user.toLowerCase(), startTime, q.endTime ?? null, limit],
  );
  return rows.map((r) => ({
    coin: r.coin,
    usdc: r.usdc,
    szi: r.szi,
    time: r.time,
    hash: ZERO_HASH,
    delta: { type: 'funding', coin: r.coin, usdc: r.usdc, szi: r.szi, fundingRate: r.funding_rate, nSamples: null },
  }));
}

/** The userFundings snapshot: the `n` most recent payments, returned oldest first. */
export async function recentFundings(pool: pg.Pool, user: string, n = 100): Promise<WsFunding[]> {
  const { rows } = await pool.query<FundingSqlRow>(
    `SELECT ${FUNDING_COLUMNS} FROM accounts.funding_payments WHERE address = $1 AND time >= $3
     ORDER BY time DESC, block_number DESC, coin DESC LIMIT $2`,
    [user.toLowerCase(), n, FUNDING_COVERAGE_START],
  );
  return rows.reverse().map(toWsFunding);
}

/** A payment as the WebSocket channels print it (userFundings items, userEvents `funding`). */
export function toWsFunding(r: Pick<FundingPaymentRow, 'time' | 'coin' | 'usdc' | 'szi' | 'funding_rate'>): WsFunding {
  return { time: r.time, coin: r.coin, usdc: r.usdc, szi: r.szi, fundingRate: r.funding_rate, nSamples: null };
}
