// The JSON Schemas of /info request bodies (each type's from its input definition, kit/input.ts): the one Ajv that
// checks them (configured like fastify's, without its type coercion), and the 400 message an Ajv error becomes.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ADDRESS_PATTERN, FieldError } from '../platform/fields.ts';

/** A JSON Schema (draft-07, as fastify's Ajv reads it), kept as plain data so OpenAPI can publish it as it is. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * The keyword of a field's own rule: what a refusal of the field says (an order id: `must be an order id (an integer
 * from 0 to ...) or a cloid (...)`), whichever keyword refused it. A schema extension (OpenAPI's `x-` form) that every
 * Ajv compiling these schemas knows and no Ajv checks, so the field keeps its bounds in every schema that states it
 * (and in the published documents) while every validator that refuses it says the one rule.
 */
export const RULE = 'x-rule';

/** Text without U+0000 (no Postgres text column or parameter takes it). */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

// ---- unknown parameters: refused, one rule for /info bodies and the path routes ----

/**
 * Fields the exchange's own clients send where a type does not read them: taken and ignored rather than refused.
 * `dex` with any type (ccxt passes a HIP-3 market's dex along with its calls, the Python SDK sends `dex: ""`), and
 * `endTime` with userFills (ccxt's fetchMyTrades with `until` but no `since`). Keys are types; `*` is every type.
 */
export const CLIENT_EXTRAS: Readonly<Record<string, readonly string[]>> = {
  '*': ['dex'],
  userFills: ['endTime'],
};

/** The fields clients send with an /info `type` that it takes unread (CLIENT_EXTRAS'). */
export const clientExtras = (type: string): readonly string[] => [
  ...(CLIENT_EXTRAS['*'] ?? []),
  ...(CLIENT_EXTRAS[type] ?? []),
];

/** Query parameters every path route and /info take besides their own: the API key (spec §5.1). */
export const EVERY_ROUTE_PARAMS: readonly string[] = ['api_key'];

const CLIENT_EXTRA = "sent by the exchange's clients, not read by this type";

/** The 400 message of a parameter a request does not take, with those it does take. */
export function unknownParameter(name: string, known: readonly string[]): string {
  const list = known.length ? `; it takes ${known.join(', ')}` : '; it takes none';
  return `${name}: unknown parameter${list}`;
}

/** The documented fields of an object schema (not the client extras closedBody adds). */
const documented = (schema: JsonSchema): string[] =>
  Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)
    .filter(([, field]) => field.description !== CLIENT_EXTRA)
    .map(([name]) => name);

/**
 * A schema whose objects take no field they do not name (`additionalProperties: false`, at every level), but
 * `extras` at the top (accepted, ignored). Every /info type's reading checks its body with it (kit/input.ts
 * `infoReader`).
 */
export function closedBody(schema: JsonSchema, extras: readonly string[] = []): JsonSchema {
  const close = (s: JsonSchema, top: boolean): JsonSchema => {
    const out: Record<string, unknown> = { ...s };
    if (s.items && typeof s.items === 'object') out.items = close(s.items as JsonSchema, false);
    if (!s.properties || s.additionalProperties !== undefined) return out;
    const properties = Object.fromEntries(
      Object.entries(s.properties as Record<string, JsonSchema>).map(([k, v]) => [k, close(v, false)]),
    );
    if (top) for (const e of extras) properties[e] ??= { description: CLIENT_EXTRA };
    return { ...out, properties, additionalProperties: false };
  };
  return close(schema, true);
}

// ---- the validator ----

/**
 * fastify's Ajv options (@fastify/ajv-compiler: allErrors false, strict) without coerceTypes, useDefaults and
 * removeAdditional: a body is read as sent, and handlers see exactly what the client wrote. `verbose` hands each
 * error the failing schema, which the message is written from.
 */
export const infoAjv = new Ajv({
  allErrors: false,
  // JSON.parse reads 1e309 as Infinity, which Ajv's range keywords let through unless numbers are finite.
  strictNumbers: true,
  coerceTypes: false,
  strict: true,
  allowUnionTypes: true,
  verbose: true,
  discriminator: true,
  keywords: [RULE],
});

/** A body validator compiled once; it throws a FieldError naming the first wrong field. */
export function bodyValidator(schema: JsonSchema): (body: Record<string, unknown>) => void {
  const validate: ValidateFunction = infoAjv.compile(schema);
  return (body) => {
    if (!validate(body)) throw fieldError((validate.errors as ErrorObject[])[0] as ErrorObject);
  };
}

/** A field's name as an edge calls it, from the name its schema gives it (the first step of its path). */
export type FieldNaming = (key: string) => string;

/** `/req/interval` → `req.interval`, `/coins/1` → `coins[1]`; `naming` renames the first step. */
function fieldName(instancePath: string, naming: FieldNaming): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((name, p) => (/^\d+$/.test(p) ? `${name}[${p}]` : name ? `${name}.${p}` : naming(p)), '');
}

const typesOf = (schema: JsonSchema): unknown[] => [schema.type].flat();

/** The rule a field's schema states, as the message's text: "must be an integer from 1 to 1000". */
export function ruleOf(schema: JsonSchema): string {
  const own = schema[RULE];
  if (typeof own === 'string') return own;
  const types = typesOf(schema);
  if (schema.pattern === ADDRESS_PATTERN) return 'must be a 0x address';
  if (Array.isArray(schema.enum)) return `must be one of ${schema.enum.filter((v) => v !== null).join(', ')}`;
  if (types.includes('integer')) {
    const of = typeof schema.description === 'string' ? ` of ${schema.description}` : '';
    const { minimum: min, maximum: max } = schema;
    const bounded = max !== undefined && max !== Number.MAX_SAFE_INTEGER;
    const range = bounded ? ` from ${min} to ${max}` : min !== undefined ? ` >= ${min}` : '';
    return `must be an integer${of}${range}`;
  }
  if (types.includes('string')) return schema.minLength === 1 ? 'must be a non-empty string' : 'must be a string';
  if (types.includes('boolean')) return 'must be a boolean';
  if (types.includes('array')) return 'must be an array';
  if (types.includes('object')) return 'must be an object';
  return 'is not valid';
}

/**
 * An Ajv error as the 400's message: the field (its path in the body, its first step named by `naming`), the rule its
 * schema states and the value sent: `limit: must be an integer from 1 to 1000, got 0`; `coin: is required, must be a
 * non-empty string`; a list of the wrong length by its length, `coins: must hold 1 to 50 coins, got 51`.
 */
export function fieldMessage(error: ErrorObject, naming: FieldNaming = (key) => key): string {
  const parent = (error.parentSchema ?? {}) as JsonSchema;
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return unknownParameter(fieldName(`${error.instancePath}/${extra}`, naming), documented(parent).map(naming));
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    const field = fieldName(`${error.instancePath}/${missing}`, naming);
    const properties = (parent.properties ?? {}) as Record<string, JsonSchema>;
    return `${field}: is required, ${ruleOf(properties[missing] ?? {})}`;
  }
  const field = fieldName(error.instancePath, naming) || 'body';
  const rule =
    error.keyword === 'pattern' && error.schema === NO_NUL_PATTERN
      ? 'must not contain a NUL character (U+0000)'
      : ruleOf(parent);
  return `${field}: ${rule}, got ${shownValue(error)}`;
}

/** An Ajv error as the FieldError every edge throws: fieldMessage's text, an unknown field told from a bad value. */
export function fieldError(error: ErrorObject, naming?: FieldNaming): FieldError {
  const code = error.keyword === 'additionalProperties' ? 'unknown_parameter' : 'bad_input';
  return new FieldError(fieldMessage(error, naming), code);
}

/**
 * An Ajv error about an MCP tool's arguments, as the tool server words it: the field, its rule and the value sent, an
 * unknown one `not an argument of this tool`. A tool's field descriptions are sentences for a model, not the unit
 * ruleOf expects there, so the rule is stated without them.
 */
export function argumentFieldError(error: ErrorObject, naming: FieldNaming = (key) => key): FieldError {
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    const where = error.instancePath ? `${fieldName(error.instancePath, naming)}.` : '';
    return new FieldError(
      `${where}${where ? extra : naming(extra)}: not an argument of this tool`,
      'unknown_parameter',
    );
  }
  const parentSchema = { ...(error.parentSchema as object), description: undefined };
  return new FieldError(fieldMessage({ ...error, parentSchema }, naming).replace(/^body: /, 'arguments: '));
}

/** The value an error refused, shown: a list of the wrong length by its length, anything else as JSON (cut). */
function shownValue(error: ErrorObject): string {
  if (error.keyword === 'minItems' || error.keyword === 'maxItems') return String((error.data as unknown[]).length);
  // JSON would show Infinity as null.
  if (typeof error.data === 'number' && !Number.isFinite(error.data)) return String(error.data);
  const shown = JSON.stringify(error.data);
  return shown === undefined ? 'nothing' : shown.slice(0, 60);
}

/**
 * Every type's request as one schema, discriminated on `type` (what OpenAPI publishes): each type's body schema
 * with its `type` constant added.
 */
export function requestSchemas(types: Readonly<Record<string, { schema: JsonSchema }>>): JsonSchema {
  return {
    type: 'object',
    discriminator: { propertyName: 'type' },
    oneOf: Object.entries(types).map(([type, { schema }]) => ({
      ...schema,
      properties: { type: { const: type }, ...(schema.properties as object) },
      required: ['type', ...((schema.required as string[] | undefined) ?? [])],
    })),
  };
}
