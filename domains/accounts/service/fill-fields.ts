// A stored fill's fields, each described once: the columns of `accounts.fills` it is read from, its JSON Schema as the
// exchange prints it, whether the exchange's Fill (wire §2.1) carries it and how a compact row (spec §2.3) writes it.
// The wire Fill (its columns, toWireFill, its JSON from Postgres's text, its OpenAPI schema), the compact row (its
// type, toCompact, its OpenAPI schema) and GraphQL's Fill field → columns all derive from FILL_FIELDS, the first two
// as records described by kit/record-fields.ts.

import type { FillRow } from '../../../db/rows/accounts.ts';
import { describeRecord, type RecordField } from '../../../kit/record-fields.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import type { TextRow } from '../../../platform/json-text.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
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

/** A stored fill as fillPage returns it: every column, and the order's type when asked for. */
export type StoredFill = FillRow & { order_type?: string | null };

/**
 * One field of a stored fill: as a wire Fill's (kit/record-fields.ts), its columns (none: the order's type, looked up
 * in the order statuses), its schema as the exchange prints it, `optional` when its column may be null (then absent
 * from the wire Fill, null on a compact row) and `of`, its value when not its one column's (the liquidation's object;
 * null is "none").
 */
interface FillField extends RecordField<StoredFill> {
  /** Not on the exchange's Fill: this service's own (the account, the builder, the order's type). */
  readonly wire?: false;
  /** On a compact row, when written otherwise than its column: its value there, and its schema if not `schema`. */
  readonly compact?: { readonly schema?: JsonSchema; readonly of: (r: StoredFill) => unknown };
}

const NULLABLE_INT: JsonSchema = { type: ['integer', 'null'] };

/** A liquidation fill's liquidation: the user liquidated, the mark price and how (the exchange's two methods). */
const liquidationOf = (r: Pick<FillRow, 'liquidated_user' | 'liquidation_mark_px' | 'liquidation_method'>) =>
  r.liquidation_mark_px == null
    ? null
    : {
        liquidatedUser: r.liquidated_user ?? '',
        markPx: r.liquidation_mark_px,
        method: r.liquidation_method === 'backstop' ? 'backstop' : 'market',
      };

/** The fields in the wire Fill's key order (which clients of the exchange's SDKs may rely on), then this service's. */
export const FILL_FIELDS = {
  coin: { columns: ['coin'], schema: R.str },
  px: { columns: ['px'], schema: R.decimal },
  sz: { columns: ['sz'], schema: R.decimal },
  side: { columns: ['side'], schema: R.side },
  time: {
    columns: ['time'],
    schema: R.ms,
    compact: {
      schema: { type: 'string', description: 'ISO 8601, exact to the millisecond' },
      of: (r: StoredFill) => naiveIso(r.time),
    },
  },
  startPosition: { columns: ['start_position'], schema: R.decimal },
  dir: { columns: ['dir'], schema: R.str },
  closedPnl: { columns: ['closed_pnl'], schema: R.decimal },
  hash: { columns: ['hash'], schema: R.txHash },
  oid: { columns: ['oid'], schema: R.int },
  crossed: {
    columns: ['crossed'],
    schema: R.bool,
    compact: { schema: { enum: [0, 1] }, of: (r: StoredFill): 0 | 1 => (r.crossed ? 1 : 0) },
  },
  fee: { columns: ['fee'], schema: R.decimal },
  tid: { columns: ['tid'], schema: R.int },
  feeToken: { columns: ['fee_token'], schema: R.str },
  builderFee: { columns: ['builder_fee'], schema: R.decimal, optional: true },
  twapId: { columns: ['twap_id'], schema: NULLABLE_INT },
  cloid: { columns: ['cloid'], schema: R.cloid, optional: true },
  liquidation: {
    columns: ['liquidated_user', 'liquidation_mark_px', 'liquidation_method'],
    schema: R.record({ liquidatedUser: R.address, markPx: R.decimal, method: { enum: ['market', 'backstop'] } }, [
      'liquidatedUser',
    ]),
    optional: true,
    of: liquidationOf,
  },
  user: { columns: ['address'], schema: R.address, wire: false },
  builder: { columns: ['builder'], schema: R.address, optional: true, wire: false },
  orderType: {
    columns: [],
    schema: { type: ['string', 'null'] },
    wire: false,
    compact: { of: (r: StoredFill) => r.order_type ?? null },
  },
} as const satisfies Record<string, FillField>;

type Fields = typeof FILL_FIELDS;
type FillKey = keyof Fields;

/**
 * A compact row's keys (spec §2.3), in its own order, which is not the wire's (answers already published keep it):
 * the order alone is stated here, each field is what FILL_FIELDS says. `orderType` follows when asked for.
 */
const COMPACT_KEYS = [
  'user',
  'coin',
  'px',
  'sz',
  'side',
  'time',
  'dir',
  'closedPnl',
  'hash',
  'oid',
  'tid',
  'fee',
  'feeToken',
  'crossed',
  'cloid',
  'twapId',
  'builder',
  'builderFee',
] as const satisfies readonly FillKey[];

const fields = Object.entries(FILL_FIELDS) as [FillKey, FillField][];
const fieldOf = (key: FillKey): FillField => FILL_FIELDS[key];

// ---- the exchange's Fill ----

const wireFields = fields.filter(([, f]) => f.wire !== false);

/** The wire Fill, described by its fields (their `wire` and `compact` notes are not read there). */
const WIRE = describeRecord<StoredFill>()(Object.fromEntries(wireFields));

/**
 * A stored fill as the exchange prints it, with what storage knows besides: its order's type, its account and its
 * builder (absent on a fill a live stream sends).
 */
export type AccountFill = WireFill & { orderType?: string | null; address?: string; builder?: string | null };

/** The columns a wire Fill is printed from (toWireFill, wireJsonWriter). */
export const WIRE_FILL_COLUMNS: ReadonlySet<FillColumn> = WIRE.columns as ReadonlySet<FillColumn>;

type WireColumn = { [K in FillKey]: Fields[K] extends { wire: false } ? never : Fields[K]['columns'][number] }[FillKey];

/** The columns toWireFill reads: fewer columns to fetch and parse than the whole row (2 000 rows per answer). */
export type WireFillSource = Pick<FillRow, WireColumn>;

/** The wire Fill's JSON Schema (OpenAPI): its fields in order, the optional ones not required. */
export const wireFillSchema = WIRE.schema;

/**
 * A stored fill (or one published live on the bus) in the exchange's shape, its keys in the wire's order, an
 * optional one absent when null: a column fillPage did not read (undefined) counts as null there, and is left
 * undefined elsewhere (no resolver of that selection reads it).
 */
export const toWireFill = WIRE.of as unknown as (r: WireFillSource) => WireFill;

/**
 * The wire Fill's JSON written from a text row whose columns are at `at(column)`: the same keys in the same order as
 * toWireFill's, an optional one absent when null, any other null as null; a field of several columns (the
 * liquidation) as the JSON of its object.
 */
export const wireJsonWriter = (at: (c: FillColumn) => number): ((r: TextRow) => string) =>
  WIRE.jsonWriter((c) => at(c as FillColumn));

// ---- the compact row ----

type ColumnValue<F> = F extends { columns: readonly [infer C extends FillColumn] } ? FillRow[C] : never;
type CompactValue<F> = F extends { compact: { of: (r: StoredFill) => infer V } } ? V : ColumnValue<F>;

/** A compact fill row (spec §2.3): `orderType` only when asked for; `time` as naive UTC ISO 8601 with exact ms. */
export type CompactFillRow = { -readonly [K in (typeof COMPACT_KEYS)[number]]: CompactValue<Fields[K]> } & {
  orderType?: string | null;
};

/** A field's schema on a compact row: as on the wire unless it says otherwise, null where optional. */
const compactSchema = (f: FillField) => f.compact?.schema ?? (f.optional ? R.orNull(f.schema) : f.schema);

/** A field as a compact row writes it: its own value and schema there, never absent (null where none). */
const compactField = (f: FillField): RecordField<StoredFill> => ({
  columns: f.columns,
  schema: compactSchema(f),
  ...(f.compact && { of: f.compact.of }),
});

/** The compact row but `orderType`, described by the fields' compact forms. */
const COMPACT = describeRecord<StoredFill>()(
  Object.fromEntries(COMPACT_KEYS.map((key) => [key, compactField(fieldOf(key))])),
);

/** A stored fill as a compact row. */
export function toCompact(r: StoredFill, includeOrderType: boolean): CompactFillRow {
  const row = COMPACT.of(r) as CompactFillRow;
  if (includeOrderType) row.orderType = FILL_FIELDS.orderType.compact.of(r);
  return row;
}

/** A compact row's JSON Schema (OpenAPI). */
export const compactFillSchema = R.record(
  { ...(COMPACT.schema.properties as object), orderType: compactSchema(FILL_FIELDS.orderType) },
  ['orderType'],
);

// ---- GraphQL ----

/** The columns each field is read from: GraphQL's Fill reads only those of the fields selected. */
export const FILL_COLUMNS_BY_FIELD: Readonly<Record<FillKey, readonly FillColumn[]>> = Object.fromEntries(
  fields.map(([key, f]) => [key, f.columns]),
) as Record<FillKey, readonly FillColumn[]>;
