// Per-user funding payments: userFunding / accountFunding (exchange shape with the spec's top-level additions, paged
// by history-page.ts's rule) and the snapshot of the userFundings WebSocket channel.

import type pg from 'pg';
import type { FundingPaymentRow } from '../../../db/rows/accounts.ts';
import { FUNDING_COVERAGE_START } from '../../../platform/coverage.ts';
import type { Address } from '../../../platform/fields.ts';
import { ZERO_HASH } from '../../../wire/node-lines.ts';
import { type HistoryPage, type HistoryPageQuery, type HistoryTable, historyPage } from './history-page.ts';

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

interface FundingSqlRow {
  time: number;
  coin: string;
  usdc: string;
  szi: string;
  funding_rate: string;
}

const FUNDING_COLUMNS = `time, coin, usdc::text AS usdc, szi::text AS szi, funding_rate::text AS funding_rate`;

/** How a page's cursor is written (its 400 and the input definition state it). */
export const FUNDING_CURSOR_FORM = '"<time>:<block>:<coin>"';

const FUNDING_TABLE: HistoryTable = {
  table: 'accounts.funding_payments',
  columns: FUNDING_COLUMNS,
  // One payment per coin per settlement block for an address.
  key: [
    { sql: 'time', kind: 'bigint' },
    { sql: 'block_number', kind: 'bigint' },
    { sql: 'coin', kind: 'text' },
  ],
  coverageStart: FUNDING_COVERAGE_START,
  cursorForm: FUNDING_CURSOR_FORM,
};

/**
 * userFunding: a page of the user's payments (history-page.ts: a window oldest first, else the newest first). Payments
 * held from before the coverage start (2025-09-27 10:00 UTC) are not complete and never served.
 */
export function userFunding(pool: pg.Pool, q: HistoryPageQuery): Promise<HistoryPage<UserFundingEntry>> {
  return historyPage(pool, FUNDING_TABLE, q, (row) => {
    const r = row as unknown as FundingSqlRow;
    return {
      coin: r.coin,
      usdc: r.usdc,
      szi: r.szi,
      time: r.time,
      hash: ZERO_HASH,
      delta: { type: 'funding', coin: r.coin, usdc: r.usdc, szi: r.szi, fundingRate: r.funding_rate, nSamples: null },
    };
  });
}

/** The userFundings snapshot: the `n` most recent payments, returned oldest first. */
export async function recentFundings(pool: pg.Pool, user: Address, n = 100): Promise<WsFunding[]> {
  const { rows } = await pool.query<FundingSqlRow>(
    `SELECT ${FUNDING_COLUMNS} FROM accounts.funding_payments WHERE address = $1 AND time >= $3
     ORDER BY time DESC, block_number DESC, coin DESC LIMIT $2`,
    [user, n, FUNDING_COVERAGE_START],
  );
  return rows.reverse().map(toWsFunding);
}

/** A payment as the WebSocket channels print it (userFundings items, userEvents `funding`). */
export function toWsFunding(r: Pick<FundingPaymentRow, 'time' | 'coin' | 'usdc' | 'szi' | 'funding_rate'>): WsFunding {
  return { time: r.time, coin: r.coin, usdc: r.usdc, szi: r.szi, fundingRate: r.funding_rate, nSamples: null };
}
