// Stored fills in the exchange's shape (wire Fill, whose fields fill-fields.ts describes): the columns read and the fill
// lists' order, pages of wire fills written straight from Postgres's text, and aggregateByTime's merge of a crossing
// order's partial fills.
import type pg from 'pg';
import { eachTextRow } from '../../../db/pool.ts';
import { fillsTable } from '../../../db/rows/accounts.ts';
import { add, compareDecimal, div, mul, type Ratio, ratio, toDecimal, ZERO } from '../../../platform/decimal.ts';
import { CHUNK_BYTES, EncodedList, JsonArrayWriter, type TextRow } from '../../../platform/json-text.ts';
import { type FillColumn, WIRE_FILL_COLUMNS, type WireFill, wireJsonWriter } from './fill-fields.ts';

const DECIMAL_COLUMNS: ReadonlySet<FillColumn> = new Set([
  'px',
  'sz',
  'start_position',
  'closed_pnl',
  'fee',
  'builder_fee',
  'deployer_fee',
  'priority_gas',
  'liquidation_mark_px',
]);

/** The columns a page of fills always reads: its keyset (cursors, the cut between two fills of one trade). */
const KEY_COLUMNS: ReadonlySet<FillColumn> = new Set(['time', 'block_number', 'event_index', 'tid']);

/** The columns a statement of fillColumns(only) reads, in its order: table order, `only` and the key columns. */
function fillColumnNames(only?: ReadonlySet<FillColumn>): FillColumn[] {
  return fillsTable.columns.filter((c) => !only || only.has(c) || KEY_COLUMNS.has(c));
}

/**
 * The columns of `accounts.fills` (or, with `only`, those and the key columns) under alias `f`, decimals as text
 * exactly as stored ("93604.0").
 */
export function fillColumns(only?: ReadonlySet<FillColumn>): string {
  return fillColumnNames(only)
    .map((c) => (DECIMAL_COLUMNS.has(c) ? `f.${c}::text AS ${c}` : `f.${c}`))
    .join(', ');
}

/**
 * The order of every fill list: by time (newest first unless asked otherwise), and within one time in execution
 * order, as the exchange lists them: the block, then the fill's index in the node line's events. Fills stored
 * before event_index existed share index 0 (migration 0020): tid, then address, keep their order deterministic.
 */
export function fillOrder(newestFirst = true): string {
  return `f.time ${newestFirst ? 'DESC' : 'ASC'}, f.block_number, f.event_index, f.tid, f.address`;
}

export const NEWEST_FIRST = fillOrder();

/** Where each column is in a row of fillColumns(WIRE_FILL_COLUMNS), for wireFillJson and wireRowKey. */
const C = Object.fromEntries(fillColumnNames(WIRE_FILL_COLUMNS).map((c, i) => [c, i])) as Record<FillColumn, number>;

/** toWireFill's JSON, written from Postgres's text (a row of fillColumns(WIRE_FILL_COLUMNS)). */
const wireFillJson = wireJsonWriter((c) => C[c]);

/**
 * aggregateByTime as the exchange documents it: the partial fills of one crossing order (same order, same time,
 * same transaction) become one fill; a resting order hit by several takers is never merged. Sizes, fees, closed
 * PnL and builder fees are summed exactly; px is the size-weighted average (exact when it terminates within ten
 * more digits than the inputs carry, else rounded there); start position, dir, tid and the rest come from the
 * first executed fill. `fills` must be in NEWEST_FIRST order; the output keeps that order.
 */
export function aggregateFillsByTime(fills: readonly WireFill[]): WireFill[] {
  const groups = new Map<string, WireFill[]>();
  const out: (WireFill | WireFill[])[] = [];
  for (const f of fills) {
    if (!f.crossed) {
      out.push(f);
      continue;
    }
    const key = `${f.coin}\u0000${f.oid}\u0000${f.time}\u0000${f.hash}`;
    const group = groups.get(key);
    if (group) group.push(f);
    else {
      const g = [f];
      groups.set(key, g);
      out.push(g);
    }
  }
  return out.map((g) => (Array.isArray(g) ? mergeFills(g) : g));
}

function scaleOf(s: string): number {
  const i = s.indexOf('.');
  return i < 0 ? 0 : s.length - i - 1;
}

function mergeFills(group: WireFill[]): WireFill {
  const first = group[0] as WireFill;
  if (group.length === 1) return first;
  let sz: Ratio = ZERO;
  let ntl: Ratio = ZERO;
  let fee: Ratio = ZERO;
  let pnl: Ratio = ZERO;
  let builderFee: Ratio | null = null;
  let pxScale = 0;
  let szScale = 0;
  let feeScale = 0;
  let pnlScale = 0;
  for (const f of group) {
    sz = add(sz, ratio(f.sz));
    ntl = add(ntl, mul(ratio(f.px), ratio(f.sz)));
    fee = add(fee, ratio(f.fee));
    pnl = add(pnl, ratio(f.closedPnl));
    if (f.builderFee !== undefined) builderFee = add(builderFee ?? ZERO, ratio(f.builderFee));
    pxScale = Math.max(pxScale, scaleOf(f.px));
    szScale = Math.max(szScale, scaleOf(f.sz));
    feeScale = Math.max(feeScale, scaleOf(f.fee), scaleOf(f.builderFee ?? ''));
    pnlScale = Math.max(pnlScale, scaleOf(f.closedPnl));
  }
  const samePx = group.every((f) => compareDecimal(f.px, first.px) === 0);
  const merged: WireFill = {
    ...first,
    // Sums of exact decimals are exact at the inputs' largest scale.
    px: samePx ? first.px : toDecimal(div(ntl, sz), pxScale + 10),
    sz: toDecimal(sz, szScale),
    closedPnl: toDecimal(pnl, pnlScale),
    fee: toDecimal(fee, feeScale),
  };
  if (builderFee) merged.builderFee = toDecimal(builderFee, feeScale);
  return merged;
}

/** A row's key in the fill lists' order (time, block, event index, tid), as text: two fills of one key are cut alike. */
const wireRowKey = (r: TextRow) => `${r[C.time]}:${r[C.block_number]}:${r[C.event_index]}:${r[C.tid]}`;

/**
 * A page of wire fills as JSON bytes, from the page's own statement (fill-pages.ts fillPageStatement over
 * WIRE_FILL_COLUMNS, `limit` + 1 rows): for 2 000 fills, no objects built and none serialized again, and each fill
 * written as its row arrives (the writing overlaps Postgres sending the rest). fillPage's cut rule holds: the fills of
 * the key the row past the page shares are left out, so a fill waits for the next row before it is written. With
 * `out`, the text goes there a chunk at a time as it is written and `bytes` is the last chunk. Null when fills of
 * one key fill the whole page (nothing was written; the caller reads that page by fillPage).
 */
export async function writeWireFillPage(
  pool: pg.Pool,
  statement: { text: string; values: unknown[] },
  limit: number,
  out?: (chunk: Buffer) => void,
): Promise<EncodedList | null> {
  const json = new JsonArrayWriter(limit * 300, out && { chunkBytes: CHUNK_BYTES, out });
  // The fills of the last key read, not yet written.
  const held: string[] = [];
  let heldKey = '';
  let read = 0;
  let pastKey: string | null = null;
  await eachTextRow(pool, statement, (row) => {
    const key = wireRowKey(row);
    if (++read > limit) {
      pastKey = key;
      return;
    }
    if (key !== heldKey) {
      for (const fill of held) json.push(fill);
      held.length = 0;
      heldKey = key;
    }
    held.push(wireFillJson(row));
  });
  if (pastKey !== heldKey) for (const fill of held) json.push(fill);
  else if (json.count === 0) return null;
  return new EncodedList(json.end(), json.count);
}
