// dataCoverage: for every dataset, the start of its complete coverage, the latest event time held and the delay
// behind now. Reads each time column's min and max from an index leading with it, or, for the tables without one,
// the bounds their writers keep (platform.time_bounds, migration 0060): never the rows themselves, so its cost does
// not grow with history. Each domain declares its own datasets (`datasets` in domains/<name>/domain.ts); domains.ts
// assembles them.
import type pg from 'pg';

/** Per-user funding is complete from 2025-09-27 10:00 UTC (spec §8). */
export const FUNDING_COVERAGE_START = Date.UTC(2025, 8, 27, 10, 0, 0);
/** The native ledger is complete from 2025-09-27 09:29 UTC (spec §8). */
export const LEDGER_COVERAGE_START = Date.UTC(2025, 8, 27, 9, 29, 0);

/**
 * The other documented starts of complete coverage (spec §8's "Data coverage starts"): rows held from before them
 * are kept and served, but a dataset is complete only from its start (orders before it lack their order type,
 * fills before it their builder or a true `crossed`, and so on).
 */
export const DOCUMENTED_COVERAGE_STARTS = {
  borrowLendReserves: Date.UTC(2026, 8, 23),
  builderAttribution: Date.UTC(2025, 9, 10),
  roundTrips: Date.UTC(2025, 8, 10),
  accountSnapshots: Date.UTC(2026, 8, 5),
  orders: Date.UTC(2026, 5, 27),
  crossed: Date.UTC(2026, 8, 24, 15, 53),
  candles: Date.UTC(2026, 9, 1),
  /** The book endpoints' archive is continuous from here. */
  marketHistory: Date.UTC(2026, 8, 23),
} as const;

export interface Dataset {
  table: string;
  /** The epoch-ms column its events are timed by. */
  column: string;
  /** Where the dataset is documented complete only from some time on, that time: older rows held don't count. */
  completeFrom?: number;
}

export interface DatasetCoverage {
  /**
   * Where complete coverage begins: the first event held, or the dataset's documented start when older events are
   * held too; while a backfill loads, where it ends (see dataCoverage).
   */
  start: number | null;
  /**
   * The first event held, complete or not: older than `start` when history from before the documented start is held
   * (an imported archive day, say), which answers for its days but is not complete coverage.
   */
  earliest: number | null;
  latest: number | null;
  delaySeconds: number | null;
}

/** A backfill lane still loading: where its history ends, and how far each of its streams has come. */
export interface BackfillCoverage {
  lane: string;
  /** The present's lane holds everything from here on; the backfill, what comes before. */
  until: number;
  /** Per stream, the start of the hour its loading has reached (every older hour of it is loaded). */
  loadedThrough: Record<string, number>;
}

/** The backfills still loading (platform.backfills, the lanes' checkpoints). */
export async function backfillsLoading(pool: pg.Pool): Promise<BackfillCoverage[]> {
  const { rows } = await pool.query<{ lane: string; until_ms: number; stream: string | null; file: string | null }>(
    `SELECT b.lane, b.until_ms, c.stream, c.file FROM platform.backfills b
     LEFT JOIN platform.ingest_checkpoints c ON c.stream LIKE b.lane || '/%'
     WHERE NOT b.complete ORDER BY b.lane, c.stream`,
  );
  const lanes = new Map<string, BackfillCoverage>();
  for (const r of rows) {
    let lane = lanes.get(r.lane);
    if (!lane) {
      lane = { lane: r.lane, until: Number(r.until_ms), loadedThrough: {} };
      lanes.set(r.lane, lane);
    }
    const hour = r.file ? /(?:^|\/)hourly\/(\d{4})(\d{2})(\d{2})\/(\d{1,2})/.exec(r.file) : null;
    if (r.stream && hour) {
      lane.loadedThrough[r.stream.slice(r.lane.length + 1)] = Date.UTC(
        Number(hour[1]),
        Number(hour[2]) - 1,
        Number(hour[3]),
        Number(hour[4]),
      );
    }
  }
  return [...lanes.values()];
}

/**
 * Every dataset's coverage. While a backfill loads (oldest first), the rows held are its older part and the present
 * with a hole between: complete coverage starts where the backfill ends, until it is complete.
 */
export async function dataCoverage(
  pool: pg.Pool,
  now: number,
  datasets: Readonly<Record<string, Dataset>>,
): Promise<Coverage> {
  const [backfills, held] = await Promise.all([backfillsLoading(pool), heldCoverage(pool, now, datasets)]);
  const region = process.env.REGION ?? 'local';
  const incompleteUntil = Math.max(Number.NEGATIVE_INFINITY, ...backfills.map((b) => b.until));
  if (!Number.isFinite(incompleteUntil)) return { region, datasets: held, backfills };
  const completeFrom = (c: DatasetCoverage) =>
    c.start === null || c.latest === null ? c.start : Math.min(c.latest, Math.max(c.start, incompleteUntil));
  return {
    region,
    datasets: Object.fromEntries(Object.entries(held).map(([name, c]) => [name, { ...c, start: completeFrom(c) }])),
    backfills,
  };
}

/** What dataCoverage answers: the region (`REGION`), each dataset, and the backfills still loading (none once complete). */
export interface Coverage {
  region: string;
  datasets: Record<string, DatasetCoverage>;
  backfills: BackfillCoverage[];
}

type Bounds = { start: number | null; latest: number | null };

async function heldCoverage(
  pool: pg.Pool,
  now: number,
  datasets: Readonly<Record<string, Dataset>>,
): Promise<Record<string, DatasetCoverage>> {
  // The bounds kept as rows are written (migration 0060), where a table keeps them and they are known; the rest read
  // from their tables' time indexes.
  const { rows: kept } = await pool.query<{ tbl: string; col: string } & Bounds>(
    'SELECT tbl, col, earliest AS start, latest FROM platform.time_bounds WHERE complete',
  );
  const keptOf = (d: Dataset) => kept.find((k) => k.tbl === d.table && k.col === d.column);
  const names = Object.keys(datasets);
  const read = names.filter((name) => !keptOf(datasets[name] as Dataset));
  const { rows: scanned } = read.length
    ? await pool.query<{ name: string; start: number | null; latest: number | null }>(
        read
          .map((name, i) => {
            const { table, column } = datasets[name] as Dataset;
            return `SELECT $${i + 1}::text AS name, min(${column}) AS start, max(${column}) AS latest FROM ${table}`;
          })
          .join(' UNION ALL '),
        read,
      )
    : { rows: [] };
  const rows = names.map(
    (name) => scanned.find((r) => r.name === name) ?? { name, ...(keptOf(datasets[name] as Dataset) as Bounds) },
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.name,
      {
        start: r.start === null ? null : Math.max(r.start, datasets[r.name]?.completeFrom ?? r.start),
        earliest: r.start,
        latest: r.latest,
        delaySeconds: r.latest === null ? null : Math.max(0, Math.round((now - r.latest) / 1000)),
      },
    ]),
  );
}
