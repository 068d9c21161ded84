// HIP-3 backstops: principal transfers (deposits and withdrawals a dex's deployer makes through CoreWriter), their
// per-dex summary, and the principal side of a dex's health. The fills side (what the backstop address absorbed)
// is the accounts domain's; index.ts joins the two.

import type pg from 'pg';
import type { BackstopTransferRow } from '../../../db/rows/evm.ts';
import type { Page } from '../../../kit/page.ts';
import { trimDecimal } from '../../../platform/decimal.ts';
import type { BackstopTransferFilter, BackstopTransfersQuery, SummaryQuery } from './inputs.ts';
import { pageClause, pageOf, sqlParams, whereClause } from './paging.ts';

/** Whether a transfer (stored or live) matches the filters other than time and paging. */
export function backstopTransferMatches(r: BackstopTransferRow, q: BackstopTransferFilter) {
  return (
    (q.dex === undefined || r.dex_id === q.dex) &&
    (q.signer === undefined || r.signer === q.signer) &&
    (q.isDeposit === undefined || r.is_deposit === q.isDeposit)
  );
}

export async function backstopTransfers(
  pool: pg.Pool,
  query: BackstopTransfersQuery,
): Promise<Page<BackstopTransferRow>> {
  const q = query;
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (q.dex !== undefined) where.push(`dex_id = ${param(q.dex)}`);
  if (q.signer !== undefined) where.push(`signer = ${param(q.signer)}`);
  if (q.isDeposit !== undefined) where.push(`is_deposit = ${param(q.isDeposit)}`);
  const { rows } = await pool.query<BackstopTransferRow>(
    `SELECT block_number, time, tx_hash, dex_id, is_deposit, signer, amount::text AS amount
     FROM evm.backstop_transfers ${whereClause(where, q, param)}
     ORDER BY time DESC, block_number DESC, tx_hash DESC, dex_id DESC ${pageClause(q, param)}`,
    params,
  );
  return pageOf(rows, q);
}

/** A dex's principal summary (spec §2.3): USDC totals as decimal text (exact, as money is everywhere), counters as integers. */
export interface PrincipalSummary {
  dex_id: string;
  total_deposited_usdc: string;
  total_withdrawn_usdc: string;
  net_principal_usdc: string;
  unique_signers: number;
  transfer_count: number;
}

/** One summary per dex with transfers in the window, by dex name. */
export async function principalSummaries(pool: pg.Pool, q: SummaryQuery): Promise<PrincipalSummary[]> {
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (q.dex !== undefined) where.push(`dex_id = ${param(q.dex)}`);
  const { rows } = await pool.query<{
    dex_id: string;
    deposited: string;
    withdrawn: string;
    net: string;
    unique_signers: number;
    transfer_count: number;
  }>(
    `SELECT dex_id, coalesce(sum(amount) FILTER (WHERE is_deposit), 0)::text AS deposited,
       coalesce(sum(amount) FILTER (WHERE NOT is_deposit), 0)::text AS withdrawn,
       (coalesce(sum(amount) FILTER (WHERE is_deposit), 0) - coalesce(sum(amount) FILTER (WHERE NOT is_deposit), 0))::text
         AS net,
       count(DISTINCT signer)::int AS unique_signers, count(*)::int AS transfer_count
     FROM evm.backstop_transfers ${whereClause(where, q, param)}
     GROUP BY dex_id ORDER BY dex_id`,
    params,
  );
  return rows.map((r) => ({
    dex_id: r.dex_id,
    total_deposited_usdc: trimDecimal(r.deposited),
    total_withdrawn_usdc: trimDecimal(r.withdrawn),
    // Subtracted in decimal by Postgres: exact.
    net_principal_usdc: trimDecimal(r.net),
    unique_signers: r.unique_signers,
    transfer_count: r.transfer_count,
  }));
}
