// Tables partitioned by UTC day of their `time` (epoch ms), and what the one writer does with their days: makes them
// before rows arrive (ahead of the present, and for the days a batch holds), and thins a closed day to what its
// retention class keeps. Reads do not change: they name the parent table, and Postgres prunes the days a bound
// excludes.
//
// A day is `<table>_pYYYYMMDD`, for [day, day + 24 h). The history a table held before it was partitioned is one
// partition from MINVALUE (`<table>_before`); a DEFAULT partition catches a row no day holds yet (a writer other than
// ingest, such as a test), and stays empty while ingest makes the days first.
import type pg from 'pg';

export const DAY_MS = 86_400_000;

export interface DayPartitioned {
  /** The parent, `schema.table`. */
  table: string;
  /**
   * Its retention class: after `fullDays` closed days, a day keeps only the rows of the orders (`key`) of which some
   * row meets `keep` (SQL over the day's rows); null keeps every row.
   */
  thin: { key: readonly string[]; keep: string } | null;
}

/**
 * Order statuses arrive at ~10 000 rows/s from a node (~560 GB a day stored whole): a day is kept whole for
 * ORDER_STATUSES_FULL_DAYS (default 1), then only the orders that filled (whole or in part: `sz` below `orig_sz`),
 * triggered or were liquidated, every row of each.
 */
export const ORDER_STATUSES: DayPartitioned = {
  table: 'accounts.order_statuses',
  thin: {
    key: ['address', 'oid'],
    keep: `status IN ('filled', 'triggered', 'liquidatedCanceled') OR sz < orig_sz`,
  },
};

export const DAY_PARTITIONED: readonly DayPartitioned[] = [ORDER_STATUSES];

const byTable = new Map(DAY_PARTITIONED.map((p) => [p.table, p]));

export const isDayPartitioned = (table: string) => byTable.has(table);

export const dayOf = (timeMs: number) => Math.floor(timeMs / DAY_MS) * DAY_MS;

export function partitionName(table: string, day: number): string {
  return `${table}_p${new Date(day).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** Per database (its pool), the days seen made (or held by another partition): asked of Postgres once each. */
const madeIn = new WeakMap<pg.Pool, Set<string>>();

const DUPLICATE_TABLE = '42P07';
const UNIQUE_VIOLATION = '23505'; // two sessions creating one name at once
const OVERLAP = '42P17'; // another partition (the history before partitioning) holds the range
const DEFAULT_HOLDS_ROWS = '23514'; // the DEFAULT partition holds rows of the day: they stay there

/**
 * Makes the day partitions of these spans (table → earliest and latest time) that do not exist yet. Runs outside
 * any transaction (creating a partition locks its parent until it commits): ingest calls it before a batch's.
 */
export async function makeDays(pool: pg.Pool, spans: ReadonlyMap<string, { min: number; max: number }>): Promise<void> {
  let made = madeIn.get(pool);
  if (!made) {
    made = new Set();
    madeIn.set(pool, made);
  }
  for (const [table, { min, max }] of spans) {
    for (let day = dayOf(min); day <= max; day += DAY_MS) {
      const name = partitionName(table, day);
      if (made.has(name)) continue;
      try {
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF ${table} FOR VALUES FROM (${day}) TO (${day + DAY_MS})`,
        );
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code !== DUPLICATE_TABLE && code !== UNIQUE_VIOLATION && code !== OVERLAP && code !== DEFAULT_HOLDS_ROWS) {
          throw err;
        }
      }
      made.add(name);
    }
  }
}

/** A range partition of a table: its name, bound and upper end (null: the DEFAULT partition). */
interface Partition {
  name: string;
  bound: string;
  upper: number | null;
}

async function partitionsOf(pool: pg.Pool, table: string): Promise<Partition[]> {
  const { rows } = await pool.query<{ name: string; bound: string }>(
    `SELECT c.oid::regclass::text AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY 1`,
    [table],
  );
  return rows.map((r) => {
    const upper = /TO \('?(-?\d+)'?\)$/.exec(r.bound)?.[1];
    return { name: r.name, bound: r.bound, upper: upper === undefined ? null : Number(upper) };
  });
}

export interface Thinned {
  partition: string;
  rowsBefore: number;
  rowsKept: number;
}

/**
 * Thins every partition of `p` that closed `fullDays` or more before `now` and is not thinned yet: its kept rows go to
 * a new table, which replaces it under the same bound, in one transaction (readers wait for the swap, never see a
 * day half thinned; a stop before the commit leaves the day whole), then frozen (VACUUM FREEZE: a closed day is
 * never written again).
 */
export async function thinClosedDays(
  pool: pg.Pool,
  p: DayPartitioned,
  { now, fullDays }: { now: number; fullDays: number },
): Promise<Thinned[]> {
  if (!p.thin) return [];
  const { rows: done } = await pool.query<{ partition: string }>(
    'SELECT partition FROM platform.thinned_partitions WHERE parent = $1',
    [p.table],
  );
  const thinned = new Set(done.map((r) => r.partition));
  const closedBefore = dayOf(now) - fullDays * DAY_MS;
  const out: Thinned[] = [];
  for (const part of await partitionsOf(pool, p.table)) {
    if (part.upper === null || part.upper > closedBefore || thinned.has(part.name)) continue;
    out.push(await thin(pool, p, part));
    await pool.query(`VACUUM (FREEZE) ${part.name}`);
  }
  return out;
}

async function thin(pool: pg.Pool, p: DayPartitioned, part: Partition): Promise<Thinned> {
  const thinRule = p.thin as NonNullable<DayPartitioned['thin']>;
  const key = thinRule.key.join(', ');
  const kept = `${part.name}_kept`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`DROP TABLE IF EXISTS ${kept}`);
    await client.query(`CREATE TABLE ${kept} (LIKE ${p.table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    const { rowCount: rowsKept } = await client.query(
      `INSERT INTO ${kept} SELECT * FROM ${part.name} WHERE (${key}) IN (SELECT ${key} FROM ${part.name} WHERE ${thinRule.keep})`,
    );
    const { rows } = await client.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${part.name}`);
    await client.query(`ALTER TABLE ${p.table} DETACH PARTITION ${part.name}`);
    await client.query(`DROP TABLE ${part.name}`);
    await client.query(`ALTER TABLE ${kept} RENAME TO ${part.name.slice(part.name.indexOf('.') + 1)}`);
    // Attaching builds the parent's indexes on it (the kept rows only).
    await client.query(`ALTER TABLE ${p.table} ATTACH PARTITION ${part.name} ${part.bound}`);
    const rowsBefore = Number(rows[0]?.n ?? 0);
    await client.query(
      `INSERT INTO platform.thinned_partitions (parent, partition, rows_before, rows_kept) VALUES ($1, $2, $3, $4)`,
      [p.table, part.name, rowsBefore, rowsKept ?? 0],
    );
    await client.query('COMMIT');
    return { partition: part.name, rowsBefore, rowsKept: rowsKept ?? 0 };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The writer's upkeep of every day-partitioned table: the days from today to `aheadDays` on made, the closed ones
 * thinned by their class. Returns what it thinned.
 */
export async function keepPartitions(
  pool: pg.Pool,
  { now, fullDays, aheadDays = 2 }: { now: number; fullDays: number; aheadDays?: number },
): Promise<Thinned[]> {
  const out: Thinned[] = [];
  for (const p of DAY_PARTITIONED) {
    await makeDays(pool, new Map([[p.table, { min: now, max: now + aheadDays * DAY_MS }]]));
    out.push(...(await thinClosedDays(pool, p, { now, fullDays })));
  }
  return out;
}
