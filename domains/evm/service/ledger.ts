// The core ledger's transfers between accounts and dexes (`/evm/ledger/transfers`): filtered by action type, token,
// user (either side), source and destination dex and time, newest first.

import type pg from 'pg';
import type { LedgerTransferRow } from '../../../db/rows/evm.ts';
import type { Page } from '../../../kit/page.ts';
import type { LedgerTransfersQuery } from './inputs.ts';
import { pageClause, pageOf, sqlParams, whereClause } from './paging.ts';

/**
 * The action types a caller names → the node's delta type stored. `agentSendAsset` (and the user's own
 * `sendAsset`) arrive as the ledger delta `send`, the one that carries `sourceDex` and `destinationDex`.
 */
export const LEDGER_ACTION_TYPES = {
  agentSendAsset: 'send',
  spotTransfer: 'spotTransfer',
  internalTransfer: 'internalTransfer',
  subAccountTransfer: 'subAccountTransfer',
} as const;
export type LedgerActionType = keyof typeof LEDGER_ACTION_TYPES;
const ACTION_OF_DELTA = new Map<string, string>(
  Object.entries(LEDGER_ACTION_TYPES).map(([action, delta]) => [delta, action]),
);

/** The action type a caller names for a stored transfer (its delta type when no action names it). */
export const actionTypeOf = (r: LedgerTransferRow): string => ACTION_OF_DELTA.get(r.action_type) ?? r.action_type;

/** Whether a transfer (stored or live) matches the filters other than time and paging. */
export function transferMatches(r: LedgerTransferRow, q: Omit<LedgerTransfersQuery, 'limit' | 'offset'>): boolean {
  return (
    (q.actionType === undefined || r.action_type === LEDGER_ACTION_TYPES[q.actionType]) &&
    (q.token === undefined || r.token === q.token) &&
    (q.user === undefined || r.address === q.user || r.destination === q.user) &&
    (q.sourceDex === undefined || r.source_dex === q.sourceDex) &&
    (q.destinationDex === undefined || r.destination_dex === q.destinationDex)
  );
}

export async function ledgerTransfers(pool: pg.Pool, query: LedgerTransfersQuery): Promise<Page<LedgerTransferRow>> {
  const q = query;
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (q.actionType !== undefined) where.push(`action_type = ${param(LEDGER_ACTION_TYPES[q.actionType])}`);
  if (q.token !== undefined) where.push(`token = ${param(q.token)}`);
  if (q.user !== undefined) {
    const u = param(q.user);
    where.push(`(address = ${u} OR destination = ${u})`);
  }
  if (q.sourceDex !== undefined) where.push(`source_dex = ${param(q.sourceDex)}`);
  if (q.destinationDex !== undefined) where.push(`destination_dex = ${param(q.destinationDex)}`);
  const { rows } = await pool.query<LedgerTransferRow>(
    `SELECT block_number, time, hash, action_type, address, destination, token, amount::text AS amount,
       usdc_value::text AS usdc_value, fee::text AS fee, source_dex, destination_dex
     FROM evm.ledger_transfers ${whereClause(where, q, param)}
     ORDER BY time DESC, block_number DESC, hash DESC, address DESC, destination DESC ${pageClause(q, param)}`,
    params,
  );
  return pageOf(rows, q);
}
