// dataCoverage: for every dataset, the start of its complete coverage, the latest event time held and the delay
// behind now. Reads only the time columns' min and max (index-backed), never the rows themselves. Each domain
// declares its own datasets (`datasets` in subgraphs/<name>/domain.ts); domains.ts assembles them.
import type pg from 'pg';

/** Per-user funding is complete from 2025-09-27 10:00 UTC (spec §8). */
export const FUNDING_COVERAGE_START = Date.UTC(2025, 8, 27, 10, 0, 0);
/** The native ledger is complete from 2025-09-27 09:29 UTC (spec §8). */
export const LEDGER_COVERAGE_START = Date.UTC(2025, 8, 27, 9, 29, 0);

export interface Dataset {
  table: string;
  /** The epoch-ms column its events are timed by. */
  column: string;
  /** Where the dataset is documented complete only from some time on, that time: older rows held don't count. */
  completeFrom?: number;
}

export interface DatasetCoverage {
  /** The first event held, or the dataset's documented start when older events are held too. */
  start: number | null;
  latest: number | null;
  delaySeconds: number | null;
}

export async function dataCoverage(
  pool: pg.Pool,
  now: number,
  datasets: Readonly<Record<string, Dataset>>,
): Promise<Record<string, DatasetCoverage>> {
  const names = Object.keys(datasets);
  const { rows } = await pool.query<{ name: string; start: number | null; latest: number | null }>(
    names
      .map((name, i) => {
        const { table, column } = datasets[name] as Dataset;
        return `SELECT $${i + 1}::text AS name, min(${column}) AS start, max(${column}) AS latest FROM ${table}`;
      })
      .join(' UNION ALL '),
    names,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.name,
      {
        start: r.start === null ? null : Math.max(r.start, datasets[r.name]?.completeFrom ?? r.start),
        latest: r.latest,
        delaySeconds: r.latest === null ? null : Math.max(0, Math.round((now - r.latest) / 1000)),
      },
    ]),
  );
}
