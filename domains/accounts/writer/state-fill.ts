// The perp account state (migration 0028: accounts.perp_cash, perp_positions) of rows stored before ingest kept it,
// set address by address from those rows (resumable from accounts.account_state_fill, deleted once every address is
// done), and the positions a late fill made stale walked again from their open. Ingest adds what it stores meanwhile
// to the same rows (ingest/formats/fills.ts, misc.ts); both take the account state's lock, so they take turns.
import type pg from 'pg';
import { inTransaction, WRITE_STATEMENT_TIMEOUT_MS } from '../../../db/pool.ts';
import { add, ZERO } from '../../../platform/decimal.ts';
import { CASH_TYPES, exactDecimal, ledgerCash } from '../service/cash.ts';

/**
 * The address after `address` among the rows the account state sums (the first with null; null after the last): one
 * probe of each table's (address, time) index.
 */
async function nextAddress(pool: pg.Pool, address: string | null): Promise<string | null> {
  const after = (table: string) =>
    `(SELECT min(address) FROM accounts.${table} WHERE $1::text IS NULL OR address > $1)`;
  const { rows } = await pool.query<{ address: string | null }>(
    `SELECT least(${after('fills')}, ${after('funding_payments')}, ${after('ledger_updates')}) AS address`,
    [address],
  );
  return rows[0]?.address ?? null;
}

/**
 * One address of the fill; null when there is nothing (left) to fill. The address's rows are read under the lock, so
 * a batch ingest commits before counts in them, and one after adds to what this step set.
 */
export async function fillStep(pool: pg.Pool): Promise<{ address: string } | null> {
  const { rows } = await pool.query<{ address: string | null }>('SELECT address FROM accounts.account_state_fill');
  const marker = rows[0];
  if (!marker) return null;
  const address = await nextAddress(pool, marker.address);
  if (address === null) {
    await pool.query('DELETE FROM accounts.account_state_fill');
    return null;
  }
  return inTransaction(pool, async (client) => {
    await client.query(`SET LOCAL statement_timeout = ${WRITE_STATEMENT_TIMEOUT_MS}`);
    await client.query('SELECT accounts.lock_account_state()');
    const { rows: ledger } = await client.query<{ delta_type: string; delta: Record<string, unknown> }>(
      'SELECT delta_type, delta FROM accounts.ledger_updates WHERE address = $1 AND delta_type = ANY($2)',
      [address, CASH_TYPES],
    );
    let cash = ZERO;
    for (const r of ledger) cash = add(cash, ledgerCash(address, r.delta_type, r.delta));
    await client.query('SELECT accounts.refold_address($1, $2)', [address, exactDecimal(cash)]);
    await client.query('UPDATE accounts.account_state_fill SET address = $1', [address]);
    return { address };
  });
}

/**
 * Walks the stale positions again from their open, up to `limit` of them, an address's together (one read of its fills
 * for all of them); how many it walked.
 */
export async function refoldStale(pool: pg.Pool, limit = 100): Promise<number> {
  const { rows } = await pool.query<{ address: string; coins: string[] }>(
    `SELECT address, array_agg(coin) AS coins
     FROM (SELECT address, coin FROM accounts.perp_positions WHERE stale ORDER BY address, coin LIMIT $1) s
     GROUP BY address`,
    [limit],
  );
  for (const r of rows) await pool.query('SELECT accounts.refold_positions($1, $2)', [r.address, r.coins]);
  return rows.reduce((n, r) => n + r.coins.length, 0);
}
