// A stored fill in the exchange's shape (wire Fill): the columns read and the fill lists' order, toWireFill and its
// JSON twin written straight from Postgres's text, and aggregateByTime's merge of a crossing order's partial fills.
import type pg from 'pg';
import { eachTextRow, type TextRow } from '../../../db/pool.ts';
import { type FillRow, fillsTable } from '../../../db/rows/accounts.ts';
import { add, compareDecimal, div, mul, type Ratio, ratio, toDecimal, ZERO } from '../../../platform/decimal.ts';
import { boolJson, CHUNK_BYTES, EncodedList, JsonArrayWriter, textJson } from '../../../platform/json-text.ts';
import type { NodeFill } from '../../../wire/node-lines.ts';

/**
 * The exchange's Fill (wire §2.1): the node's fill without the node-only keys (builder, deployerFee, priorityGas),
 * `twapId` always present (null when none). Optional keys are absent, not null.
 */
export type WireFill = Omit<NodeFill, 'cloid' | 'twapId' | 'builder' | 'deployerFee' | 'priorityGas'> & {
  twapId: number | null;
  cloid?: string;
};

/** A column of `accounts.fills`. */
export type FillColumn = keyof FillRow;

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

/** The columns a wire Fill is printed from (toWireFill, wireFillJson): a Fill's columns, stated once. */
const WIRE_FILL_FIELDS = [
  'coin',
  'px',
  'sz',
  'side',
  'time',
  'start_position',
  'dir',
  'closed_pnl',
  'hash',
  'oid',
  'crossed',
  'fee',
  'tid',
  'fee_token',
  'builder_fee',
  'twap_id',
  'cloid',
  'liquidated_user',
  'liquidation_mark_px',
  'liquidation_method',
] as const satisfies readonly FillColumn[];

/** The columns toWireFill reads: fewer columns to fetch and parse than the whole row (2 000 rows per answer). */
export type WireFillSource = Pick<FillRow, (typeof WIRE_FILL_FIELDS)[number]>;

/** WIRE_FILL_FIELDS as a set of columns to read (fillColumns, fillPage's `columns`). */
export const WIRE_FILL_COLUMNS: ReadonlySet<FillColumn> = new Set(WIRE_FILL_FIELDS);

/** Where each column is in a row of fillColumns(WIRE_FILL_COLUMNS), for wireFillJson. */
const C = Object.fromEntries(fillColumnNames(WIRE_FILL_COLUMNS).map((c, i) => [c, i])) as Record<FillColumn, number>;

/**
 * A stored fill (or one published live on the bus) in the exchange's shape. The optional keys are assigned in the
 * wire's key order, not spread in: for 2 000 fills conditional spreads took 0.33 ms, assignments 0.09 ms.
 */
export function toWireFill(r: WireFillSource): WireFill {
  // twapId (always present) comes after the optional builderFee: assigned below, in wire order.
  const fill = {
    coin: r.coin,
    px: r.px,
    sz: r.sz,
    side: r.side,
    time: r.time,
    startPosition: r.start_position,
    dir: r.dir,
    closedPnl: r.closed_pnl,
    hash: r.hash,
    oid: r.oid,
    crossed: r.crossed,
    fee: r.fee,
    tid: r.tid,
    feeToken: r.fee_token,
  } as WireFill;
  // `!= null`: a column fillPage did not read (absent) is taken as null.
  if (r.builder_fee != null) fill.builderFee = r.builder_fee;
  fill.twapId = r.twap_id;
  if (r.cloid != null) fill.cloid = r.cloid;
  if (r.liquidation_mark_px != null) {
    fill.liquidation = {
      liquidatedUser: r.liquidated_user ?? '',
      markPx: r.liquidation_mark_px,
      method: r.liquidation_method === 'backstop' ? 'backstop' : 'market',
    };
  }
  return fill;
}

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

/** toWireFill's JSON, written from Postgres's text (a row of fillColumns(WIRE_FILL_COLUMNS)): same keys, same
 * order, optional keys absent alike. */
function wireFillJson(r: TextRow): string {
  let out =
    `{"coin":${textJson(r, C.coin)},"px":"${r[C.px]}","sz":"${r[C.sz]}","side":${textJson(r, C.side)},` +
    `"time":${r[C.time]},"startPosition":"${r[C.start_position]}","dir":${textJson(r, C.dir)},` +
    `"closedPnl":"${r[C.closed_pnl]}","hash":${textJson(r, C.hash)},"oid":${r[C.oid]},` +
    `"crossed":${boolJson(r, C.crossed)},"fee":"${r[C.fee]}","tid":${r[C.tid]},"feeToken":${textJson(r, C.fee_token)}`;
  if (r[C.builder_fee] !== null) out += `,"builderFee":"${r[C.builder_fee]}"`;
  out += `,"twapId":${r[C.twap_id] ?? 'null'}`;
  if (r[C.cloid] !== null) out += `,"cloid":${textJson(r, C.cloid)}`;
  if (r[C.liquidation_mark_px] !== null) {
    const method = r[C.liquidation_method] === 'backstop' ? 'backstop' : 'market';
    out +=
      `,"liquidation":{"liquidatedUser":${textJson(r, C.liquidated_user)},"markPx":"${r[C.liquidation_mark_px]}",` +
      `"method":"${method}"}`;
  }
  return `${out}}`;
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
