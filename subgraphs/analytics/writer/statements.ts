// The statements a derivation batch (batch.ts) writes with: each table's rows as one `unnest` insert of column
// arrays, and the upsert adding a batch's sums to the daily and hourly tables.
import { type Ratio, toDecimal } from '../../../platform/decimal.ts';
import type { Sums } from './batch.ts';

/** Digits kept where a division rounds (VWAPs, split fees, leverage). */
export const SCALE = 12;
/** A derived figure as the decimal text its numeric column takes. */
export const dec = (r: Ratio) => toDecimal(r, SCALE);

/** The upsert adding a batch's sums to `table` (user_daily or user_hourly); null when there are none. */
export function sumsStatement(
  table: string,
  key: 'day' | 'hour',
  sums: Map<string, Sums>,
  keyValue: (ms: number) => string | number,
): Statement | null {
  if (!sums.size) return null;
  const rows = [...sums].map(([k, s]) => {
    const [address, ms] = k.split('|') as [string, string];
    return [
      address,
      keyValue(Number(ms)),
      s.fills,
      dec(s.volume),
      dec(s.realized),
      dec(s.fees),
      dec(s.funding),
      s.wins,
      s.losses,
      s.trips,
      s.longs,
      s.shorts,
    ];
  });
  const keyType = key === 'day' ? 'date' : 'int8';
  const sum = (col: string) => `${col} = t.${col} + EXCLUDED.${col}`;
  return [
    `INSERT INTO ${table} AS t (address, ${key}, fills, volume, realized_pnl, fees, funding, wins, losses, trips, longs,
         shorts)
       SELECT * FROM unnest($1::text[], $2::${keyType}[], $3::int4[], $4::numeric[], $5::numeric[], $6::numeric[],
         $7::numeric[], $8::int4[], $9::int4[], $10::int4[], $11::int4[], $12::int4[])
       ON CONFLICT (address, ${key}) DO UPDATE SET
         ${['fills', 'volume', 'realized_pnl', 'fees', 'funding', 'wins', 'losses', 'trips', 'longs', 'shorts'].map(sum).join(', ')}`,
    columns(rows, 12),
  ];
}

/** A statement's text and parameters. */
export type Statement = [string, unknown[]];

/** The entry of `key`, made by `make` when absent. */
export function entry<V>(map: Map<string, V>, key: string, make: () => V): V {
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
