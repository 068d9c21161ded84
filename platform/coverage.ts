// dataCoverage: for every dataset, the start of its complete coverage, the latest event time held and the delay
// behind now. Reads only the time columns' min and max (index-backed), never the rows themselves.
import type pg from 'pg';

/** Per-user funding is complete from 2025-09-27 10:00 UTC (spec §8). */
export const FUNDING_COVERAGE_START = Date.UTC(2025, 8, 27, 10, 0, 0);
/** The native ledger is complete from 2025-09-27 09:29 UTC (spec §8). */
export const LEDGER_COVERAGE_START = Date.UTC(2025, 8, 27, 9, 29, 0);

interface Dataset {
  table: string;
  /** The epoch-ms column its events are timed by. */
  column: string;
  /** Where the dataset is documented complete only from some time on, that time: older rows held don't count. */
  completeFrom?: number;
}

export const DATASETS: Readonly<Record<string, Dataset>> = {
  fills: { table: 'accounts.fills', column: 'time' },
  orders: { table: 'accounts.order_statuses', column: 'time' },
  twaps: { table: 'accounts.twap_statuses', column: 'time' },
  funding: { table: 'accounts.funding_payments', column: 'time', completeFrom: FUNDING_COVERAGE_START },
  ledger: { table: 'accounts.ledger_updates', column: 'time', completeFrom: LEDGER_COVERAGE_START },
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
  /** The first event held, or the dataset's documented start when older events are held too. */
  start: number | null;
  latest: number | null;
  delaySeconds: number | null;
}

export async function dataCoverage(pool: pg.Pool, now: number): Promise<Record<string, DatasetCoverage>> {
  const names = Object.keys(DATASETS);
  const { rows } = await pool.query<{ name: string; start: number | null; latest: number | null }>(
    names
      .map((name, i) => {
        const { table, column } = DATASETS[name] as Dataset;
        return `SELECT $${i + 1}::text AS name, min(${column}) AS start, max(${column}) AS latest FROM ${table}`;
      })
      .join(' UNION ALL '),
    names,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.name,
      {
        start: r.start === null ? null : Math.max(r.start, DATASETS[r.name]?.completeFrom ?? r.start),
        latest: r.latest,
        delaySeconds: r.latest === null ? null : Math.max(0, Math.round((now - r.latest) / 1000)),
      },
    ]),
  );
}
