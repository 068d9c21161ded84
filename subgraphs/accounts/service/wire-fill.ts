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

/**
 * The columns of `accounts.fills` (or, with `only`, those and the key columns) under alias `f`, decimals as text
 * exactly as stored ("93604.0").
 */
export function fillColumns(only?: ReadonlySet<FillColumn>): string {
  return fillsTable.columns
    .filter((c) => !only || only.has(c) || KEY_COLUMNS.has(c))
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

/** The columns toWireFill reads: fewer columns to fetch and parse than the whole row (2 000 rows per answer). */
export type WireFillSource = Pick<
  FillRow,
  | 'coin'
  | 'px'
  | 'sz'
  | 'side'
  | 'time'
  | 'start_position'
  | 'dir'
  | 'closed_pnl'
  | 'hash'
  | 'oid'
  | 'crossed'
  | 'fee'
  | 'tid'
  | 'fee_token'
  | 'builder_fee'
  | 'twap_id'
  | 'cloid'
  | 'liquidated_user'
  | 'liquidation_mark_px'
  | 'liquidation_method'
>;

const WIRE_FILL_COLUMNS = `f.coin, f.px::text AS px, f.sz::text AS sz, f.side, f.time,
  f.start_position::text AS start_position, f.dir, f.closed_pnl::text AS closed_pnl, f.hash, f.oid, f.crossed,
  f.fee::text AS fee, f.tid, f.fee_token, f.builder_fee::text AS builder_fee, f.twap_id, f.cloid, f.liquidated_user,
  f.liquidation_mark_px::text AS liquidation_mark_px, f.liquidation_method`;

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

/** The statement behind userFills and userFillsByTime (the bench times it as their SQL). */
export const wireFillsSql = (where: string, limit: number) =>
  `SELECT ${WIRE_FILL_COLUMNS} FROM accounts.fills f WHERE ${where} ORDER BY ${NEWEST_FIRST} LIMIT ${limit}`;

/** toWireFill's JSON, written from Postgres's text (WIRE_FILL_COLUMNS in order): same keys, same order, optional
 * keys absent alike. */
function wireFillJson(r: TextRow): string {
  let out =
    `{"coin":${textJson(r, 0)},"px":"${r[1]}","sz":"${r[2]}","side":${textJson(r, 3)},"time":${r[4]},` +
    `"startPosition":"${r[5]}","dir":${textJson(r, 6)},"closedPnl":"${r[7]}","hash":${textJson(r, 8)},` +
    `"oid":${r[9]},"crossed":${boolJson(r, 10)},"fee":"${r[11]}","tid":${r[12]},"feeToken":${textJson(r, 13)}`;
  if (r[14] !== null) out += `,"builderFee":"${r[14]}"`;
  out += `,"twapId":${r[15] ?? 'null'}`;
  if (r[16] !== null) out += `,"cloid":${textJson(r, 16)}`;
  if (r[18] !== null) {
    const method = r[19] === 'backstop' ? 'backstop' : 'market';
    out += `,"liquidation":{"liquidatedUser":${textJson(r, 17)},"markPx":"${r[18]}","method":"${method}"}`;
  }
  return `${out}}`;
}

/**
 * Wire fills as JSON bytes, from a statement of WIRE_FILL_COLUMNS: for 2 000 fills, no objects built and none serialized again, and each fill written
 * as its row arrives (the writing overlaps Postgres sending the rest). With `out`, the text goes there a chunk at a
 * time as it is written (the caller can send it while the rest is read), and the last chunk is returned.
 */
export async function queryWireFillsJson(
  pool: pg.Pool,
  statement: { text: string; values: unknown[] },
  limit: number,
  out?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const json = new JsonArrayWriter(limit * 300, out && { chunkBytes: CHUNK_BYTES, out });
  await eachTextRow(pool, statement, (row) => json.push(wireFillJson(row)));
  return json.end();
}

/** queryWireFillsJson's whole array with the number of fills in it (an MCP tool's answer and its summary). */
export async function queryWireFillsList(
  pool: pg.Pool,
  statement: { text: string; values: unknown[] },
  limit: number,
): Promise<EncodedList> {
  const json = new JsonArrayWriter(limit * 300);
  await eachTextRow(pool, statement, (row) => json.push(wireFillJson(row)));
  return new EncodedList(json.end(), json.count);
}
