// The public archive's per-minute asset contexts (`asset_ctxs/<date>.csv.lz4`; ingest/FORMATS.md, the public archive
// buckets): a CSV with the header `time,coin,funding,open_interest,prev_day_px,day_ntl_vlm,premium,oracle_px,mark_px,
// mid_px,impact_bid_px,impact_ask_px`, a row per coin per minute, into the same rows as the asset_ctxs stream.
import { type AssetCtxRow, assetCtxsTable } from '../../db/rows/markets.ts';
import { isDecimal } from '../../platform/decimal.ts';
import { FieldError } from '../../platform/fields.ts';

/** Columns of markets.asset_ctxs a CSV column of the same name fills (the archive's: funding … impact_ask_px). */
const VALUE_COLUMNS = assetCtxsTable.columns.filter((c) => c !== 'coin' && c !== 'time') as Exclude<
  keyof AssetCtxRow,
  'coin' | 'time'
>[];

/**
 * Column positions by name, from the header line; `time` and `coin` are required, a column markets.asset_ctxs does not
 * have is ignored, one the file lacks stays null.
 */
export type CsvHeader = Map<string, number>;

export function parseHeader(text: string): CsvHeader {
  const names = text
    .replace(/^\uFEFF/, '')
    .trim()
    .split(',');
  const header = new Map(names.map((name, i) => [name.trim(), i]));
  for (const required of ['time', 'coin']) {
    if (!header.has(required))
      throw new FieldError(`header: must name a ${required} column, got ${text.slice(0, 200)}`);
  }
  return header;
}

/**
 * The archive's time text in UTC: ISO with `Z` (`2025-01-01T00:00:00Z`) or without a zone, `T` or a space between
 * date and time (`2025-10-24 20:00:00.000`), fractions of a second optional.
 */
export function parseArchiveTime(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|\+00:?00)?$/.exec(text.trim());
  if (!m) return Number.NaN;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
}

/** One data row; an empty value or `null` is no value. Throws FieldError naming the column. */
export function parseContextRow(header: CsvHeader, text: string): AssetCtxRow {
  const cells = text.split(',');
  const cell = (name: string) => {
    const i = header.get(name);
    const v = i === undefined ? undefined : cells[i]?.trim();
    return v === undefined || v === '' || v === 'null' ? null : v;
  };
  const timeText = cell('time');
  const time = timeText === null ? Number.NaN : parseArchiveTime(timeText);
  if (Number.isNaN(time)) throw new FieldError(`time: must be an ISO-8601 UTC time, got ${JSON.stringify(timeText)}`);
  const coin = cell('coin');
  if (coin === null) throw new FieldError('coin: must not be empty');
  const row = { coin, time } as AssetCtxRow;
  for (const name of VALUE_COLUMNS) {
    const v = cell(name);
    if (v !== null && !isDecimal(v)) throw new FieldError(`${name}: must be a decimal, got ${JSON.stringify(v)}`);
    row[name] = v;
  }
  return row;
}
