// dataCoverage: for every dataset, the first and the latest event time held and the delay behind now. Reads only
// the time columns' min and max (index-backed), never the rows themselves.
import type pg from 'pg';

/** Dataset → the table and epoch-ms column its events are timed by. */
export const DATASETS: Readonly<Record<string, { table: string; column: string }>> = {
  fills: { table: 'accounts.fills', column: 'time' },
  orders: { table: 'accounts.order_statuses', column: 'time' },
  twaps: { table: 'accounts.twap_statuses', column: 'time' },
  funding: { table: 'accounts.funding_payments', column: 'time' },
  ledger: { table: 'accounts.ledger_updates', column: 'time' },
  liquidations: { table: 'accounts.liquidations', column: 'time' },
  accountSnapshots: { table: 'accounts.account_snapshots', column: 'time' },
  roundTrips: { table: 'accounts.round_trips', column: 'opened_at' },
  trades: { table: 'markets.trades', column: 'time' },
  candles: { table: 'markets.candles', column: 't' },
  assetCtxs: { table: 'markets.asset_ctxs', column: 'time' },
  fundingRates: { table: 'markets.funding_rates', column: 'time' },
  borrowLendReserves: { table: 'markets.reserve_samples', column: 'time' },
  marketHistory: { table: 'markets.history_bbo', column: 'time' },
  hip4: { table: 'hip4.fills', column: 'time' },
  evm: { table: 'evm.blocks', column: 'time' },
};

export interface DatasetCoverage {
  start: number | null;
  latest: number | null;
  delaySeconds: number | null;
}

export async function dataCoverage(pool: pg.Pool, now: number): Promise<Record<string, DatasetCoverage>> {
  const names = Object.keys(DATASETS);
  const { rows } = await pool.query<{ name: string; start: number | null; latest: number | null }>(
    names
      .map((name, i) => {
        const { table, column } = DATASETS[name] as { table: string; column: string };
        return `SELECT $${i + 1}::text AS name, min(${column}) AS start, max(${column}) AS latest FROM ${table}`;
      })
      .join(' UNION ALL '),
    names,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.name,
      {
        start: r.start,
        latest: r.latest,
        delaySeconds: r.latest === null ? null : Math.max(0, Math.round((now - r.latest) / 1000)),
      },
    ]),
  );
}
