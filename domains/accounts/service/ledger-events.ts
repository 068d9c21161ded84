// A user's ledger events by kind (the EVM domain's `/evm/user/{address}/ledger-events` and User.ledgerEvents):
// each stored non-funding ledger update classified into one event type — deposits, withdrawals, transfers in and
// out, class and sub-account transfers, vault moves and `send` (agentSendAsset / sendAsset, which carries the
// source and destination dex). The classification is written once here, for SQL (filter) and JS (live events).

import type pg from 'pg';
import type { LedgerUpdateRow } from '../../../db/rows/accounts.ts';
import { LEDGER_COVERAGE_START } from '../../../platform/coverage.ts';
import type { Address } from '../../../platform/fields.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';

export const LEDGER_EVENT_TYPES = [
  'deposit',
  'withdrawal',
  'transfer_in',
  'transfer_out',
  'class_transfer',
  'sub_account',
  'vault',
  'agent_send',
  'other',
] as const;
export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];

/** Delta types with one event type whatever the direction. */
const UNDIRECTED: Readonly<Record<string, LedgerEventType>> = {
  deposit: 'deposit',
  withdraw: 'withdrawal',
  send: 'agent_send',
  accountClassTransfer: 'class_transfer',
  subAccountTransfer: 'sub_account',
  vaultCreate: 'vault',
  vaultDeposit: 'vault',
  vaultWithdraw: 'vault',
  vaultDistribution: 'vault',
  vaultLeaderCommission: 'vault',
};
/** Delta types between two accounts: `transfer_in` for the destination's row, `transfer_out` for the sender's. */
const DIRECTED = ['internalTransfer', 'spotTransfer', 'usdSend', 'spotSend'];

export interface LedgerEvent {
  /** Naive UTC ISO. */
  time: string;
  time_ms: number;
  hash: string;
  event_type: LedgerEventType;
  /** The node's delta type (`send`, `deposit`, ...). */
  delta_type: string;
  delta: Record<string, unknown>;
  /** On `agent_send`: the dexes the value moved between ('' = the native perp dex, `spot`, or a HIP-3 dex name). */
  source_dex?: string;
  destination_dex?: string;
}

export function ledgerEventType(address: string, deltaType: string, delta: Record<string, unknown>): LedgerEventType {
  const undirected = UNDIRECTED[deltaType];
  if (undirected) return undirected;
  if (DIRECTED.includes(deltaType)) {
    return String(delta.destination ?? '').toLowerCase() === address ? 'transfer_in' : 'transfer_out';
  }
  return 'other';
}

/** A stored (or live) ledger update of `address` as its event. */
export function toLedgerEvent(
  r: Pick<LedgerUpdateRow, 'address' | 'time' | 'hash' | 'delta_type' | 'delta'>,
): LedgerEvent {
  const delta = r.delta as Record<string, unknown>;
  const event_type = ledgerEventType(r.address, r.delta_type, delta);
  const event: LedgerEvent = {
    time: naiveIso(r.time),
    time_ms: r.time,
    hash: r.hash,
    event_type,
    delta_type: r.delta_type,
    delta,
  };
  if (event_type === 'agent_send') {
    event.source_dex = typeof delta.sourceDex === 'string' ? delta.sourceDex : '';
    event.destination_dex = typeof delta.destinationDex === 'string' ? delta.destinationDex : '';
  }
  return event;
}

export interface LedgerEventsQuery {
  user: Address;
  /** Any of these; absent or empty = every type. */
  eventTypes?: readonly LedgerEventType[];
  startTime?: number;
  endTime?: number;
  limit: number;
  offset: number;
}

/**
 * The SQL condition selecting the event types (on alias `l`), with its parameters from `param`: the undirected
 * delta types by name, the directed ones by whether the row's address is the destination.
 */
function typeCondition(types: readonly LedgerEventType[], param: (v: unknown) => string): string {
  const wanted = new Set(types);
  const parts: string[] = [];
  const named = Object.entries(UNDIRECTED)
    .filter(([, t]) => wanted.has(t))
    .map(([d]) => d);
  if (named.length) parts.push(`l.delta_type = ANY(${param(named)}::text[])`);
  // Only a parameter the statement uses may be sent: Postgres cannot type an unused one.
  const directed = () => `l.delta_type = ANY(${param(DIRECTED)}::text[])`;
  const isIn = `lower(l.delta->>'destination') = l.address`;
  if (wanted.has('transfer_in') && wanted.has('transfer_out')) parts.push(directed());
  else if (wanted.has('transfer_in')) parts.push(`(${directed()} AND ${isIn})`);
  else if (wanted.has('transfer_out')) parts.push(`(${directed()} AND ${isIn} IS NOT TRUE)`);
  if (wanted.has('other')) {
    parts.push(`NOT (l.delta_type = ANY(${param([...Object.keys(UNDIRECTED), ...DIRECTED])}::text[]))`);
  }
  return parts.length ? `(${parts.join(' OR ')})` : 'false';
}

/**
 * A page of the user's events, newest first, from the ledger's coverage start on; `hasMore` when another row
 * follows. Ties in time break on block, hash and delta type, so offsets page without loss or repeat.
 */
export async function ledgerEvents(
  pool: pg.Pool,
  q: LedgerEventsQuery,
): Promise<{ rows: LedgerEvent[]; hasMore: boolean }> {
  const params: unknown[] = [];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = [
    `l.address = ${param(q.user)}`,
    `l.time >= ${param(Math.max(q.startTime ?? 0, LEDGER_COVERAGE_START))}`,
  ];
  if (q.endTime !== undefined) where.push(`l.time <= ${param(q.endTime)}`);
  if (q.eventTypes?.length) where.push(typeCondition(q.eventTypes, param));
  const { rows } = await pool.query<LedgerUpdateRow>(
    `SELECT l.address, l.time, l.hash, l.delta_type, l.delta FROM accounts.ledger_updates l WHERE ${where.join(' AND ')}
     ORDER BY l.time DESC, l.block_number DESC, l.hash DESC, l.delta_type DESC
     LIMIT ${param(q.limit + 1)} OFFSET ${param(q.offset)}`,
    params,
  );
  return { rows: rows.slice(0, q.limit).map(toLedgerEvent), hasMore: rows.length > q.limit };
}
