// The lock under which the writers of rows that more than one writer updates take turns: ingest's lanes of one
// stream (Batch.write, the present and a backfill upserting the same registries, balances and rollups) and a domain's
// writer beside them (the HIP-3 rollup's fill of trades stored before it).
import type pg from 'pg';

/** First key of the advisory lock; the second is the name of what is shared (an ingest stream), hashed. */
const SHARED_ROWS_LOCK_CLASS = 0x686c7368; // "hlsh"

/**
 * Takes the transaction lock on the rows `name` shares, waiting for whoever holds it: two writers upserting the same
 * rows in one statement each would otherwise take their locks in different orders and deadlock, and a writer that
 * recomputes a row from what is stored must not interleave with one that adds to it.
 */
export async function lockSharedRows(client: pg.PoolClient, name: string, timeoutMs?: number): Promise<void> {
  await client.query({
    text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
    values: [SHARED_ROWS_LOCK_CLASS, name],
    ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }),
  } as pg.QueryConfig);
}
