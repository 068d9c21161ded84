// One address's fill counters over its whole history: what the EVM domain's backstop health reports of the fills
// a HIP-3 dex's backstop address absorbed. One aggregate over the address's index range.

import type pg from 'pg';
import type { Address } from '../../../platform/fields.ts';

export interface FillSummary {
  fill_count: number;
  /** Sum of px × sz, decimal text. */
  notional_traded: string;
  /** Sum of fees (negative = rebates), decimal text. */
  fees_paid: string;
  /** Fills at or after `since`. */
  fills_since: number;
  /** Epoch ms; null without fills. */
  first_fill_time: number | null;
  last_fill_time: number | null;
  /** The coins filled, sorted. */
  coins: string[];
}

export async function fillSummary(pool: pg.Pool, address: Address, since: number): Promise<FillSummary> {
  const { rows } = await pool.query<{
    fill_count: string;
    notional_traded: string;
    fees_paid: string;
    fills_since: string;
    first_fill_time: string | null;
    last_fill_time: string | null;
    coins: string[];
  }>(
    `SELECT count(*) AS fill_count, coalesce(sum(px * sz), 0)::text AS notional_traded,
       coalesce(sum(fee), 0)::text AS fees_paid, count(*) FILTER (WHERE time >= $2) AS fills_since,
       min(time) AS first_fill_time, max(time) AS last_fill_time,
       coalesce(array_agg(DISTINCT coin ORDER BY coin), '{}') AS coins
     FROM accounts.fills WHERE address = $1`,
    [address, since],
  );
  const r = rows[0] as (typeof rows)[number];
  return {
    fill_count: Number(r.fill_count),
    notional_traded: r.notional_traded,
    fees_paid: r.fees_paid,
    fills_since: Number(r.fills_since),
    first_fill_time: r.first_fill_time === null ? null : Number(r.first_fill_time),
    last_fill_time: r.last_fill_time === null ? null : Number(r.last_fill_time),
    coins: r.coins,
  };
}
