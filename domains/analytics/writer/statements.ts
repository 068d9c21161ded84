// The statements a derivation batch (batch.ts) writes with: each table's rows as one `unnest` insert of column
// arrays, and the upsert adding a batch's sums to the daily and hourly tables.
import { type Ratio, ratio, toDecimal } from '../../../platform/decimal.ts';
import { PERP_FILLS_BY_BUILDER_HOUR, PERP_FILLS_BY_DAY } from '../../accounts/port.ts';
import { HOUR_MS } from '../service/window.ts';
import type { Sums } from './batch.ts';

/** Digits kept where a division rounds (VWAPs, split fees, leverage). */
export const SCALE = 12;

/**
 * A figure read back from a derived table (an open trip's): parsed when first used, written back as it was read when
 * never changed. A batch reads every open trip of the accounts it touches, and on mainnet most are only paid funding.
 */
export class StoredFigure implements Ratio {
  #parsed: Ratio | undefined;
  constructor(readonly text: string) {}
  get n(): bigint {
    this.#parsed ??= ratio(this.text);
    return this.#parsed.n;
  }
  get d(): bigint {
    this.#parsed ??= ratio(this.text);
    return this.#parsed.d;
  }
  get s(): number | undefined {
    this.#parsed ??= ratio(this.text);
    return this.#parsed.s;
  }
}

/** A derived figure as the decimal text its numeric column takes (a stored one as Postgres gave it: the same value). */
export const dec = (r: Ratio) => (r instanceof StoredFigure ? r.text : toDecimal(r, SCALE));

/** The SQL of `dec`: `x` rounded half away from zero to SCALE digits, trailing zeros cut but one (as trimDecimal). */
function decSql(x: string): string {
  const t = `trim_scale(round(${x}, ${SCALE}))`;
  return `CASE WHEN scale(${t}) = 0 THEN round(${x}, 1) ELSE ${t} END`;
}

const SUM_COLUMNS = [
  'fills',
  'volume',
  'realized_pnl',
  'fees',
  'funding',
  'wins',
  'losses',
  'trips',
  'longs',
  'shorts',
];

/** The walked sums (of each key, an hour's first ms or a day's date: by address) as the parameters of `walkedRows`. */
function walked(sums: Iterable<[string | number, Map<string, Sums>]>): unknown[][] {
  const rows: unknown[][] = [];
  for (const [k, byAddress] of sums) {
    for (const [address, s] of byAddress) {
      rows.push([address, k, dec(s.funding), s.wins, s.losses, s.trips, s.longs, s.shorts]);
    }
  }
  return columns(rows, 8);
}

const walkedRows = (first: number, keyType: string) =>
  `unnest($${first}::text[], $${first + 1}::${keyType}[], $${first + 2}::numeric[], $${first + 3}::int4[],
     $${first + 4}::int4[], $${first + 5}::int4[], $${first + 6}::int4[], $${first + 7}::int4[])
     AS n (address, k, funding, wins, losses, trips, longs, shorts)`;

/** A table's rows: the fill-driven sums (`grouped`) beside the walked ones, per address and hour (or day). */
const rowsOf = (grouped: string, keyType: string, first: number) => `
  SELECT coalesce(g.address, n.address) AS address, coalesce(g.k, n.k) AS k, coalesce(g.fills, 0) AS fills,
    coalesce(${decSql('g.volume')}, 0.0) AS volume, coalesce(${decSql('g.realized')}, 0.0) AS realized_pnl,
    coalesce(${decSql('g.fees')}, 0.0) AS fees, coalesce(n.funding, 0.0) AS funding, coalesce(n.wins, 0) AS wins,
    coalesce(n.losses, 0) AS losses, coalesce(n.trips, 0) AS trips, coalesce(n.longs, 0) AS longs,
    coalesce(n.shorts, 0) AS shorts
  FROM ${grouped} g FULL JOIN ${walkedRows(first, keyType)} ON n.address = g.address AND n.k = g.k`;

/** Adds `rows` to `table`'s; `fresh`: none of their keys can be stored yet (a plain insert, no conflict check). */
const upsert = (table: string, key: string, rows: string, fresh: boolean) => `
  INSERT INTO ${table} AS t (address, ${key}, ${SUM_COLUMNS.join(', ')})
  SELECT address, k, ${SUM_COLUMNS.join(', ')} FROM ${rows}
  ${fresh ? '' : `ON CONFLICT (address, ${key}) DO UPDATE SET ${SUM_COLUMNS.map((c) => `${c} = t.${c} + EXCLUDED.${c}`).join(', ')}`}`;

/**
 * The statement adding an hour's sums (`range`: the hour, or the part of it the batch holds) to user_hourly and
 * builder_hourly. The fill-driven sums (fills, volume, realized PnL, fees; builder activity) are grouped in SQL from
 * its fills (accounts' port's PERP_FILLS_BY_BUILDER_HOUR over `$1` and `$2`), as the batch derived them in Node
 * before; the sums only the walk in time order knows (funding, trips opened and closed, wins and losses) come from
 * `hourly`, the hour's. Each figure is written as the text `dec` gives, so the tables are the same as when Node summed
 * everything. Written as soon as the hour is walked, while the batch walks the next.
 *
 * `fresh`: the hour starts at or after the batch's checkpoint, so no row of it is stored: a row of an hour is written
 * only by the batch deriving that hour's events (each batch writes an hour once, in its transaction with its
 * checkpoint; a rebuild empties both), and every batch before this one derived only events before its checkpoint.
 * Its rows are then inserted without the upsert's conflict check (a fifth of the statement's time).
 */
export function hourSumsStatement(range: [number, number], hourly: Map<string, Sums>, fresh: boolean): Statement {
  const builderUpsert = `ON CONFLICT (builder, address, hour) DO UPDATE SET fills = t.fills + EXCLUDED.fills,
         notional = t.notional + EXCLUDED.notional,
         coins = ARRAY(SELECT DISTINCT unnest(t.coins || EXCLUDED.coins) ORDER BY 1),
         first_fill = least(t.first_fill, EXCLUDED.first_fill), last_fill = greatest(t.last_fill, EXCLUDED.last_fill)`;
  return [
    `WITH b AS (${PERP_FILLS_BY_BUILDER_HOUR}),
     h AS (SELECT address, hour AS k, sum(fills)::int4 AS fills, sum(volume) AS volume, sum(realized) AS realized,
       sum(fees) AS fees FROM b GROUP BY 1, 2),
     builders AS (
       INSERT INTO analytics.builder_hourly AS t (builder, address, hour, fills, notional, coins, first_fill, last_fill)
       SELECT builder, address, hour, fills, ${decSql('volume')}, coins, first_fill, last_fill FROM b
       ${fresh ? '' : builderUpsert})
     ${upsert('analytics.user_hourly', 'hour', `(${rowsOf('h', 'int8', 3)}) r`, fresh)}`,
    [...range, ...walked([[Math.floor(range[0] / HOUR_MS) * HOUR_MS, hourly]])],
  ];
}

/** The temporary table a batch's fills grouped by address and day go into (daySumsStatement), dropped at its commit. */
const BATCH_DAYS = 'pg_temp.derive_batch_days';

/**
 * The statements grouping the batch's fills (`range`) by address and UTC day (accounts' PERP_FILLS_BY_DAY) into a
 * temporary table for daySumsStatement: sent early in a batch of hours, while Postgres waits for the walk, so that
 * the grouping (seconds of a history batch's fills) is not among the writes at the batch's end, which nothing
 * overlaps. (A live batch of minutes groups them in daySumsStatement: a temporary table a second would churn the
 * catalog.)
 */
export function batchDaysStatements(range: [number, number]): Statement[] {
  return [
    [
      `CREATE TEMP TABLE ${BATCH_DAYS.slice('pg_temp.'.length)} (address text, k date, fills int4, volume numeric,
         realized numeric, fees numeric, first_hour int8) ON COMMIT DROP`,
      [],
    ],
    [`INSERT INTO ${BATCH_DAYS} ${PERP_FILLS_BY_DAY}`, [...range]],
  ];
}

/**
 * The statement adding a batch's daily sums to user_daily and the running totals (user_totals, the `all`
 * leaderboard's sums): the fill-driven ones grouped in SQL from the batch's fills (`grouping`: batchDaysStatements'
 * table, sent early, or PERP_FILLS_BY_DAY over its range in this statement), the walked ones from `daily`; `firstHours`, each address's first hour with walked sums in the batch (its first hour
 * with a fill is the grouping's). `fresh`: no row of the batch's days (`daysFresh`: its first day starts at or after
 * its checkpoint, as hourSumsStatement's hours) or of the totals (`totalsFresh`: nothing derived before the batch)
 * can be stored yet.
 */
export function daySumsStatement(
  daily: Map<number, Map<string, Sums>>,
  firstHours: Map<string, number>,
  fresh: { daysFresh: boolean; totalsFresh: boolean },
  grouping: { early: true } | { range: [number, number] },
): Statement {
  const first = 'range' in grouping ? 3 : 1;
  return [
    `WITH d AS (${'range' in grouping ? PERP_FILLS_BY_DAY : `SELECT * FROM ${BATCH_DAYS}`}),
     day_rows AS (${rowsOf('d', 'date', first)}),
     days AS (${upsert('analytics.user_daily', 'day', 'day_rows', fresh.daysFresh)}),
     f AS (SELECT address, min(first_hour) AS first_hour
       FROM (SELECT address, first_hour FROM d UNION ALL SELECT * FROM unnest($${first + 8}::text[], $${first + 9}::int8[])) s
       GROUP BY address)
    -- The running totals take the daily rows' figures, so they stay the sum of user_daily exactly.
    INSERT INTO analytics.user_totals AS t (address, first_hour, ${SUM_COLUMNS.join(', ')})
    SELECT d.address, f.first_hour, ${SUM_COLUMNS.map((c) => `sum(d.${c})`).join(', ')}
    FROM day_rows d JOIN f USING (address)
    GROUP BY d.address, f.first_hour
    ${
      fresh.totalsFresh
        ? ''
        : `ON CONFLICT (address) DO UPDATE SET first_hour = least(t.first_hour, EXCLUDED.first_hour),
      ${SUM_COLUMNS.map((c) => `${c} = t.${c} + EXCLUDED.${c}`).join(', ')}`
    }`,
    [
      ...('range' in grouping ? grouping.range : []),
      ...walked([...daily].map(([day, byAddress]) => [new Date(day).toISOString().slice(0, 10), byAddress])),
      [...firstHours.keys()],
      [...firstHours.values()],
    ],
  ];
}

/** A statement's text and parameters. */
export type Statement = [string, unknown[]];

/** The entry of `key`, made by `make` when absent. */
export function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let v = map.get(key);
  if (v === undefined) {
    v = make();
    map.set(key, v);
  }
  return v;
}

/** Rows → one array per column (the parameters of an `unnest` insert). */
export function columns(rows: unknown[][], width: number): unknown[][] {
  const cols: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) (cols[i] as unknown[]).push(row[i]);
  return cols;
}
