// Blocks and transactions: `/evm/transactions` (filters by block, recipient, time window; system transactions only
// when asked) and the Block and Transaction entities.
import type pg from 'pg';
import type { EvmBlockRow, EvmTransactionRow } from '../../../db/rows/evm.ts';
import type { Page } from '../../../kit/page.ts';
import type { TransactionsQuery } from './inputs.ts';
import { pageClause, pageOf, sqlParams, whereClause } from './paging.ts';

export const TX_COLUMNS = `block_number, tx_index, hash, time, tx_type, from_addr, to_addr, value_wei::text AS value_wei,
  gas_limit, gas_used, success, input_len, is_system`;

/** Newest first: by block time, then block and index (the order of `transactions_time_order`). */
export async function transactions(pool: pg.Pool, query: TransactionsQuery): Promise<Page<EvmTransactionRow>> {
  const q = query;
  const { params, param } = sqlParams();
  const where: string[] = [];
  if (q.blockNumber !== undefined) where.push(`block_number = ${param(q.blockNumber)}`);
  if (q.toAddr !== undefined) where.push(`to_addr = ${param(q.toAddr)}`);
  if (!q.includeSystem) where.push('NOT is_system');
  const { rows } = await pool.query<EvmTransactionRow>(
    `SELECT ${TX_COLUMNS} FROM evm.transactions ${whereClause(where, q, param)}
     ORDER BY time DESC, block_number DESC, tx_index DESC ${pageClause(q, param)}`,
    params,
  );
  return pageOf(rows, q);
}

/** Transactions by hash (one per hash; a hash seen twice is the first stored). */
export async function transactionsByHash(pool: pg.Pool, hashes: readonly string[]): Promise<EvmTransactionRow[]> {
  const { rows } = await pool.query<EvmTransactionRow>(
    `SELECT DISTINCT ON (hash) ${TX_COLUMNS} FROM evm.transactions WHERE hash = ANY($1::text[])
     ORDER BY hash, block_number, tx_index`,
    [hashes],
  );
  return rows;
}

export async function blockTransactions(pool: pg.Pool, number: number): Promise<EvmTransactionRow[]> {
  const { rows } = await pool.query<EvmTransactionRow>(
    `SELECT ${TX_COLUMNS} FROM evm.transactions WHERE block_number = $1 ORDER BY tx_index`,
    [number],
  );
  return rows;
}

export async function blocks(pool: pg.Pool, numbers: readonly number[]): Promise<EvmBlockRow[]> {
  const { rows } = await pool.query<EvmBlockRow>(
    'SELECT number, hash, time, tx_count, gas_used FROM evm.blocks WHERE number = ANY($1::bigint[])',
    [numbers],
  );
  return rows;
}

/** The newest `n` blocks, newest first. */
export async function latestBlocks(pool: pg.Pool, n: number): Promise<EvmBlockRow[]> {
  const { rows } = await pool.query<EvmBlockRow>(
    'SELECT number, hash, time, tx_count, gas_used FROM evm.blocks ORDER BY number DESC LIMIT $1',
    [n],
  );
  return rows;
}
