// A record described once: each of its keys with its JSON Schema (what the OpenAPI document says of it) and its
// value from the stored row. The record a path route and a tool answer (`of`), its type and its schema all derive
// from the one description, so neither can add, drop or retype a key the other does not.
import type { JsonSchema } from './request-schema.ts';
import * as R from './response-schema.ts';

/** One key of a record: its schema, and its value from a row. */
export interface RecordField<Row> {
  readonly schema: JsonSchema;
  readonly of: (row: Row) => unknown;
}

/** The record of a row, its keys in the description's order. */
// biome-ignore lint/suspicious/noExplicitAny: any row's field
export type RecordOf<F> = { [K in keyof F]: F[K] extends { of: (row: any) => infer V } ? V : never };

/** A described record of `Row`s (`describeRecord<Row>()({...})`): `of(row)` makes it, `schema` documents it. */
export const describeRecord =
  <Row>() =>
  <F extends Record<string, RecordField<Row>>>(fields: F) => {
    const entries = Object.entries(fields) as [string, RecordField<Row>][];
    return {
      fields,
      of(row: Row): RecordOf<F> {
        const out: Record<string, unknown> = {};
        for (const [key, field] of entries) out[key] = field.of(row);
        return out as RecordOf<F>;
      },
      schema: R.record(Object.fromEntries(entries.map(([key, field]) => [key, field.schema]))),
    };
  };
