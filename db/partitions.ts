// Tables partitioned by UTC day (or week) of their `time` (epoch ms), and what the one writer does with their
// partitions: makes them before rows arrive (ahead of the present, and for the periods a batch holds), thins a closed
// day to what its retention class keeps, freezes a closed week, drops what retention no longer keeps. Reads do not
// change: they name the parent table, and Postgres prunes the partitions a time bound excludes.
//
// A day is `<table>_pYYYYMMDD`, for [day, day + 24 h); a week `<table>_wYYYYMMDD`, from its Monday 00:00 UTC. The
// history a table held before it was partitioned is one partition from MINVALUE (`<table>_before`), and the period it
// ends in starts where it ends; a DEFAULT partition catches a row no partition holds yet (a writer other than ingest,
// such as a test), and stays empty while ingest makes the partitions first.
import type pg from 'pg';
import type { Retention } from '../platform/config.ts';
import { inTransaction } from './pool.ts';

export const DAY_MS = 86_400_000;

export interface Partitioned {
  /** The parent, `schema.table`. */
  table: string;
  /** A partition's span: a UTC day (the default) or a week from Monday. */
  period?: 'day' | 'week';
  /**
   * A week closed a day ago is frozen: its indexes rebuilt (REINDEX CONCURRENTLY: pages full, ~15 % smaller for
   * fills' address-led index, which inserts keep half full) and its rows frozen (VACUUM FREEZE: no anti-wraparound
   * vacuum ever reads it again).
   */
  freeze?: boolean;
  /**
   * Its retention class: a day closed `after` days ago keeps only the rows `kept` selects from it (SQL over the day's
   * table); null keeps every row.
   */
  thin: { after: (r: Retention) => number; kept: (day: string) => string } | null;
  /** Days after which a closed day is dropped whole (0: never); none: never. */
  dropAfter?: (r: Retention) => number;
  /** A statement run once days were dropped (what refers to the rows they held). */
  afterDrop?: string;
}

/**
 * Order statuses arrive at ~10 000 rows/s from a node (~560 GB a day stored whole): a day is kept whole for
 * ORDER_STATUSES_FULL_DAYS, then only the orders (`address`, `oid`) that filled (whole or in part: `sz` below
 * `orig_sz`), triggered or were liquidated, every row of each.
 */
export const ORDER_STATUSES: Partitioned = {
  table: 'accounts.order_statuses',
  thin: {
    after: (r) => r.orderStatusesFullDays,
    kept: (day) => `SELECT * FROM ${day} WHERE (address, oid) IN (SELECT address, oid FROM ${day}
      WHERE status IN ('filled', 'triggered', 'liquidatedCanceled') OR sz < orig_sz)`,
  },
};

/**
 * The book sampler's series (markets/service/history.ts: BBO, depth bands, slippage, top-20 book of every coin every
 * 10 s; ~14 GB a day at mainnet's ~550 coins): a day at the sampler's rate for HISTORY_SAMPLES_FULL_DAYS, then the
 * first sample of each coin's minute, dropped after HISTORY_SAMPLES_KEEP_DAYS.
 */
const sampled = (table: string, afterDrop?: string): Partitioned => ({
  table,
  ...(afterDrop ? { afterDrop } : {}),
  thin: {
    after: (r) => r.samplesFullDays,
    kept: (day) => `SELECT * FROM ${day} WHERE (coin, time) IN (SELECT coin, min(time) FROM ${day}
      GROUP BY coin, time / 60000)`,
  },
  dropAfter: (r) => r.samplesKeepDays,
});

/**
 * Fills (~6.5 M a day at mainnet, kept for ever) by week: a user's newest fills have no time bound, and a query
 * without one opens every partition (365 daily ones: ~100 ms for 2 000 fills, measured; ~52 a year by week).
 */
export const FILLS: Partitioned = { table: 'accounts.fills', period: 'week', thin: null, freeze: true };

/**
 * Trades (~3.2 M a day at mainnet, kept for ever; migration 0054) by week, as fills: a coin's newest trades and its
 * last price have no time bound.
 */
export const TRADES: Partitioned = { table: 'markets.trades', period: 'week', thin: null, freeze: true };

/**
 * Funding payments (every open position every hour, ~3.5 M a day at mainnet, kept for ever; migration 0055) by week,
 * as fills: a user's newest payments (the `userFundings` snapshot) have no time bound.
 */
export const FUNDING_PAYMENTS: Partitioned = {
  table: 'accounts.funding_payments',
  period: 'week',
  thin: null,
  freeze: true,
};

/**
 * Account snapshots (every account with an event in the hour, at the hour's close: ~60 k an hour at mainnet;
 * migration 0056): a day hourly for ACCOUNT_SNAPSHOTS_HOURLY_DAYS closed days, then, per address, the rows the daily
 * reads use: the day's last snapshot (the `1d` equity point) and the one at 00:00, the close of the day before (the
 * PnL calendar's `equity_close` is the last snapshot at or before the next midnight). Grouped by day, not by
 * partition: the history before partitioning, and a month merged (or a rebuild's rows in it), keep one a day too.
 */
export const ACCOUNT_SNAPSHOTS: Partitioned = {
  table: 'analytics.account_snapshots',
  thin: {
    after: (r) => r.snapshotsHourlyDays,
    kept: (day) => `SELECT * FROM ${day} WHERE time % ${DAY_MS} = 0 OR (address, time) IN
      (SELECT address, max(time) FROM ${day} GROUP BY address, time / ${DAY_MS})`,
  },
};

export const PARTITIONED: readonly Partitioned[] = [
  FILLS,
  TRADES,
  FUNDING_PAYMENTS,
  ORDER_STATUSES,
  ACCOUNT_SNAPSHOTS,
  // The archive's list of coins (migration 0037) loses a coin once its last BBO sample is dropped.
  sampled(
    'markets.history_bbo',
    `DELETE FROM markets.history_coins h WHERE NOT EXISTS (SELECT 1 FROM markets.history_bbo b WHERE b.coin = h.coin)`,
  ),
  ...['markets.history_depth', 'markets.history_slippage', 'markets.history_book'].map((t) => sampled(t)),
];

const byTable = new Map(PARTITIONED.map((p) => [p.table, p]));

export const isPartitioned = (table: string) => byTable.has(table);

export const dayOf = (timeMs: number) => Math.floor(timeMs / DAY_MS) * DAY_MS;

const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, the first Monday after the epoch. */
const MONDAY = 4 * DAY_MS;

/** The start of the period `timeMs` falls in, and the next's. */
export function periodOf(table: string, timeMs: number): { start: number; end: number } {
  if (byTable.get(table)?.period !== 'week') return { start: dayOf(timeMs), end: dayOf(timeMs) + DAY_MS };
  const start = Math.floor((timeMs - MONDAY) / WEEK_MS) * WEEK_MS + MONDAY;
  return { start, end: start + WEEK_MS };
}

/** A period's partition: `<table>_pYYYYMMDD` for a day, `<table>_wYYYYMMDD` for the week from that Monday. */
export function partitionName(table: string, start: number): string {
  const kind = byTable.get(table)?.period === 'week' ? 'w' : 'p';
  return `${table}_${kind}${new Date(start).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/**
 * Per database (its pool), the partitions seen made (or held by another partition), and per table where the history
 * before partitioning ends: asked of Postgres once each.
 */
const madeIn = new WeakMap<pg.Pool, Map<string, number>>();

const DUPLICATE_TABLE = '42P07';
const UNIQUE_VIOLATION = '23505'; // two sessions creating one name at once
const OVERLAP = '42P17'; // another partition (the history before partitioning) holds the range
const DEFAULT_HOLDS_ROWS = '23514'; // the DEFAULT partition holds rows of the day: they stay there
const LOCK_NOT_AVAILABLE = '55P03';
/** How long making a partition waits for its table's lock (readers of the table queue behind the wait). */
const MAKE_LOCK_WAIT_MS = 500;

/**
 * Makes the partitions of these spans (table → earliest and latest time) that do not exist yet: each period's, or,
 * for the period the history before partitioning ends in, the rest of it. Runs outside any transaction (creating a
 * partition locks its parent until it commits): ingest calls it before a batch's.
 */
export async function makePartitions(
  pool: pg.Pool,
  spans: ReadonlyMap<string, { min: number; max: number }>,
): Promise<void> {
  let made = madeIn.get(pool);
  if (!made) {
    made = new Map();
    madeIn.set(pool, made);
  }
  for (const [table, { min, max }] of spans) {
    let floor = made.get(table);
    if (floor === undefined) {
      const before = (await partitionsOf(pool, table)).find((part) => part.lower === null && part.upper !== null);
      floor = before?.upper ?? Number.NEGATIVE_INFINITY;
      made.set(table, floor);
    }
    for (let period = periodOf(table, min); period.start <= max; period = periodOf(table, period.end)) {
      const { start, end } = period;
      const name = partitionName(table, start);
      const from = Math.max(start, floor);
      if (made.has(name) || from >= end) continue;
      try {
        await inTransaction(pool, async (client) => {
          // Making a partition locks its table whole, behind every transaction reading it (a derivation's batch):
          // waited for briefly, as every read of the table queues behind the wait; else tried again next time.
          await client.query(`SET LOCAL lock_timeout = ${MAKE_LOCK_WAIT_MS}`);
          await client.query(
            `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM (${from}) TO (${end})`,
          );
        });
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === LOCK_NOT_AVAILABLE) continue; // its rows go to the DEFAULT partition meanwhile
        if (code !== DUPLICATE_TABLE && code !== UNIQUE_VIOLATION && code !== OVERLAP && code !== DEFAULT_HOLDS_ROWS) {
          throw err;
        }
      }
      made.set(name, from);
    }
  }
}

/** A range partition of a table: its name, bound and ends (null: MINVALUE, or the DEFAULT partition). */
interface Partition {
  name: string;
  bound: string;
  lower: number | null;
  upper: number | null;
}

async function partitionsOf(pool: pg.Pool, table: string): Promise<Partition[]> {
  const { rows } = await pool.query<{ name: string; bound: string }>(
    `SELECT c.oid::regclass::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [table],
  );
  const end = (re: RegExp, bound: string) => {
    const v = re.exec(bound)?.[1];
    return v === undefined ? null : Number(v);
  };
  return rows.map((r) => ({
    name: r.name,
    bound: r.bound,
    lower: end(/FROM \('?(-?\d+)'?\)/, r.bound),
    upper: end(/TO \('?(-?\d+)'?\)$/, r.bound),
  }));
}

export interface Thinned {
  partition: string;
  rowsBefore: number;
  rowsKept: number;
}

export interface Upkeep {
  thinned: Thinned[];
  /** Closed periods whose indexes were rebuilt and rows frozen. */
  frozen: string[];
  /** Months whose thinned days became one partition. */
  merged: string[];
  dropped: string[];
}

/**
 * A table's upkeep, by its class:
 * - the partitions closed `dropAfter` days before `now` dropped (DETACH, DROP: no row deleted);
 * - those closed `thin.after` days before it and not thinned yet thinned: the kept rows replace the day (`swap`),
 *   then frozen (VACUUM FREEZE: a closed day is never written again);
 * - the thinned days of a month closed as long merged into one partition of the month: a lookup without a time bound
 *   (a user's orders) opens the days of this month and one partition per month before, not one per day.
 */
export async function keepRetention(
  pool: pg.Pool,
  p: Partitioned,
  { now, retention }: { now: number; retention: Retention },
): Promise<Upkeep> {
  const out: Upkeep = { thinned: [], frozen: [], merged: [], dropped: [] };
  const parts = await partitionsOf(pool, p.table);
  const cutoff = (days: number) => dayOf(now) - days * DAY_MS;
  const closed = (days: number) => (part: Partition) => part.upper !== null && part.upper <= cutoff(days);
  const dropDays = p.dropAfter?.(retention) ?? 0;
  const kept = dropDays > 0 ? parts.filter((part) => !closed(dropDays)(part)) : parts;
  for (const part of parts) {
    if (kept.includes(part)) continue;
    await inTransaction(pool, async (client) => {
      await client.query(`ALTER TABLE ${p.table} DETACH PARTITION ${part.name}`);
      await client.query(`DROP TABLE ${part.name}`);
      await client.query('DELETE FROM platform.thinned_partitions WHERE partition = $1', [part.name]);
      await client.query('DELETE FROM platform.frozen_partitions WHERE partition = $1', [part.name]);
      await client.query('SELECT platform.forget_time_bounds($1)', [p.table]);
    });
    out.dropped.push(part.name);
  }
  if (p.afterDrop && out.dropped.length) await pool.query(p.afterDrop);
  if (p.freeze) out.frozen = await freezeClosed(pool, p.table, kept.filter(closed(1)));
  if (!p.thin) return out;
  const { rows: done } = await pool.query<{ partition: string }>(
    'SELECT partition FROM platform.thinned_partitions WHERE parent = $1',
    [p.table],
  );
  const thinned = new Set(done.map((r) => r.partition));
  const thinAfter = p.thin.after(retention);
  for (const part of kept.filter(closed(thinAfter))) {
    if (thinned.has(part.name)) continue;
    out.thinned.push(await swap(pool, p.table, [part], part, p.thin.kept(part.name)));
    thinned.add(part.name);
    await pool.query(`VACUUM (FREEZE) ${part.name}`);
  }
  for (const [month, days] of thinnedDaysByMonth(p.table, kept, thinned, cutoff(thinAfter))) {
    const merged = await swap(
      pool,
      p.table,
      days,
      month,
      days.map((d) => `SELECT * FROM ${d.name}`).join(' UNION ALL '),
    ).catch((err: unknown) => {
      // The DEFAULT partition holds rows of the month (a writer other than ingest): its days stay apart.
      if ((err as { code?: string }).code === DEFAULT_HOLDS_ROWS) return null;
      throw err;
    });
    if (merged) out.merged.push(merged.partition);
  }
  return out;
}

/**
 * Rebuilds the indexes of the closed periods not frozen yet (not the history before partitioning: its size is
 * unbounded), CONCURRENTLY, while ingest writes on, then freezes their rows; each recorded once done.
 */
async function freezeClosed(pool: pg.Pool, table: string, closed: Partition[]): Promise<string[]> {
  const { rows } = await pool.query<{ partition: string }>(
    'SELECT partition FROM platform.frozen_partitions WHERE parent = $1',
    [table],
  );
  const done = new Set(rows.map((r) => r.partition));
  const frozen: string[] = [];
  for (const part of closed) {
    if (part.lower === null || done.has(part.name)) continue;
    // A rebuild cut short leaves its new indexes invalid (`..._ccnew`): dropped before it runs again.
    const { rows: invalid } = await pool.query<{ name: string }>(
      'SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = $1::regclass AND NOT indisvalid',
      [part.name],
    );
    for (const { name } of invalid) await pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    await pool.query(`REINDEX TABLE CONCURRENTLY ${part.name}`);
    await pool.query(`VACUUM (FREEZE, ANALYZE) ${part.name}`);
    await pool.query(
      'INSERT INTO platform.frozen_partitions (parent, partition) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [table, part.name],
    );
    frozen.push(part.name);
  }
  return frozen;
}

/** The day partitions (thinned) of each month that ended before `before`, by the month's partition. */
function thinnedDaysByMonth(
  table: string,
  parts: Partition[],
  thinned: ReadonlySet<string>,
  before: number,
): Map<Partition, Partition[]> {
  const months = new Map<string, { month: Partition; days: Partition[] }>();
  for (const part of parts) {
    if (!/_p\d{8}$/.test(part.name) || !thinned.has(part.name) || part.lower === null) continue;
    const start = new Date(part.lower);
    const lower = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1);
    const upper = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
    if (upper > before) continue;
    const name = `${table}_m${start.toISOString().slice(0, 7).replace('-', '')}`;
    let m = months.get(name);
    if (!m) {
      m = { month: { name, bound: `FOR VALUES FROM ('${lower}') TO ('${upper}')`, lower, upper }, days: [] };
      months.set(name, m);
    }
    m.days.push(part);
  }
  // Merged only where the month holds nothing else: no day not thinned yet, no part of the history before
  // partitioning (the month would overlap them).
  const alone = ({ month, days }: { month: Partition; days: Partition[] }) =>
    parts.every(
      (part) =>
        days.includes(part) ||
        part.upper === null ||
        part.upper <= (month.lower as number) ||
        (part.lower !== null && part.lower >= (month.upper as number)),
    );
  return new Map([...months.values()].filter(alone).map((m) => [m.month, m.days]));
}

/**
 * Replaces partitions `olds` by `next` (a name and bound covering theirs), holding the rows `rows` selects, in one
 * transaction: readers wait for the swap and never see it half done; a stop before the commit leaves `olds` as they
 * were. The new table is made with the parent's indexes, so attaching it builds nothing under the lock.
 */
async function swap(pool: pg.Pool, table: string, olds: Partition[], next: Partition, rows: string): Promise<Thinned> {
  const building = `${next.name}_next`;
  return inTransaction(pool, async (client) => {
    await client.query(`DROP TABLE IF EXISTS ${building}`);
    await client.query(
      `CREATE TABLE ${building} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`,
    );
    const { rowCount } = await client.query(`INSERT INTO ${building} ${rows}`);
    let rowsBefore = 0;
    for (const old of olds) {
      const { rows: n } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${old.name}`);
      rowsBefore += Number(n[0]?.n ?? 0);
      await client.query(`ALTER TABLE ${table} DETACH PARTITION ${old.name}`);
      await client.query(`DROP TABLE ${old.name}`);
    }
    await client.query(`ALTER TABLE ${building} RENAME TO ${next.name.slice(next.name.indexOf('.') + 1)}`);
    await client.query(`ALTER TABLE ${table} ATTACH PARTITION ${next.name} ${next.bound}`);
    const record = { partition: next.name, rowsBefore, rowsKept: rowCount ?? 0 };
    await client.query('DELETE FROM platform.thinned_partitions WHERE partition = ANY($1)', [olds.map((o) => o.name)]);
    await client.query('SELECT platform.forget_time_bounds($1)', [table]);
    await client.query(
      'INSERT INTO platform.thinned_partitions (parent, partition, rows_before, rows_kept) VALUES ($1, $2, $3, $4)',
      [table, record.partition, record.rowsBefore, record.rowsKept],
    );
    return record;
  });
}

/**
 * The writer's upkeep of every partitioned table: the periods from today to `aheadDays` on made, the closed ones
 * thinned, frozen, merged by month and dropped by their class; then the time bounds left unknown read again. Its
 * statements take minutes at mainnet's size: `pool` sets no statement limit (db/pool.ts upkeepPool).
 */
export async function keepPartitions(
  pool: pg.Pool,
  { now, retention, aheadDays = 2 }: { now: number; retention: Retention; aheadDays?: number },
): Promise<Upkeep> {
  const out: Upkeep = { thinned: [], frozen: [], merged: [], dropped: [] };
  for (const p of PARTITIONED) {
    await makePartitions(pool, new Map([[p.table, { min: now, max: now + aheadDays * DAY_MS }]]));
    const done = await keepRetention(pool, p, { now, retention });
    out.thinned.push(...done.thinned);
    out.frozen.push(...done.frozen);
    out.merged.push(...done.merged);
    out.dropped.push(...done.dropped);
  }
  await completeTimeBounds(pool);
  return out;
}

/**
 * The time bounds a DELETE, a dropped partition or the migration left unknown (platform.time_bounds, migration
 * 0060), read again from their tables: a scan each, in the upkeep rather than in dataCoverage. Rows written meanwhile
 * widened the bounds in their own transactions, so the min and max read are merged with them; bounds forgotten again
 * while the scan ran (a partition dropped) stay unknown. A scan of months of funding payments takes minutes: run on
 * the upkeep's pool (db/pool.ts upkeepPool), which sets no statement limit.
 */
export async function completeTimeBounds(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ tbl: string; col: string; generation: number }>(
    'SELECT tbl, col, generation FROM platform.time_bounds WHERE NOT complete',
  );
  for (const { tbl, col, generation } of rows) {
    const { rows: held } = await pool.query<{ lo: number | null; hi: number | null }>(
      `SELECT min(${col}) AS lo, max(${col}) AS hi FROM ${tbl}`,
    );
    await pool.query(
      `UPDATE platform.time_bounds SET earliest = least(earliest, $3), latest = greatest(latest, $4), complete = true
        WHERE tbl = $1 AND col = $2 AND generation = $5`,
      [tbl, col, held[0]?.lo ?? null, held[0]?.hi ?? null, generation],
    );
  }
}
