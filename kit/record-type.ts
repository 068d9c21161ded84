// A described record (kit/record-fields.ts) as the fields of a GraphQL object type whose values are the records: each
// field exposed under its key, its type read from its JSON Schema (Decimal, Timestamp for epoch milliseconds, Int,
// String, Boolean; nullable where the schema takes null or the field may be absent), so that the type states no field
// of the record again.
import type { DescribedRecord, RecordFields } from './record-fields.ts';
import type { JsonSchema } from './request-schema.ts';
import * as R from './response-schema.ts';

// biome-ignore lint/suspicious/noExplicitAny: Pothos' field builder, whatever the subgraph's types
type Any = any;

/** A field's GraphQL type from its JSON Schema, and whether it takes null. */
function typeOf(key: string, schema: JsonSchema): { type: string; nullable: boolean } {
  const [value, other] = (schema.anyOf as JsonSchema[] | undefined) ?? [];
  if (value && other?.type === 'null') return { ...typeOf(key, value), nullable: true };
  const type =
    schema === R.decimal
      ? 'Decimal'
      : schema === R.ms
        ? 'Timestamp'
        : ({ integer: 'Int', string: 'String', boolean: 'Boolean' } as Record<string, string>)[String(schema.type)];
  if (!type) throw new Error(`exposeRecord: ${key} has no GraphQL scalar (${JSON.stringify(schema)})`);
  return { type, nullable: false };
}

/**
 * The fields of `record`, each exposing its key, for an object type whose values are its records
 * (`fields: (t) => exposeRecord(t, FUNDING_RATE)`).
 */
export function exposeRecord(t: Any, record: Pick<DescribedRecord<Any, RecordFields<Any>>, 'fields'>): Any {
  return Object.fromEntries(
    Object.entries(record.fields).map(([key, field]) => {
      const { type, nullable } = typeOf(key, field.schema);
      return [key, t.expose(key, { type, ...(nullable || field.optional ? { nullable: true } : {}) })];
    }),
  );
}
