// One input definition per capability. A capability's fields (their types, bounds, defaults and normal forms) are
// stated once, with TypeBox, beside the service method that takes them; every edge derives its own form from that
// definition and reads a request through it:
//
//   - the MCP tool's input: `schema`, camelCase JSON Schema that refuses unknown fields;
//   - an /info body: `body`, the same fields, each optional one also taking null;
//   - a path route's query string: `query`, snake_case, times as ISO 8601 or epoch-ms text (spec §3);
//   - GraphQL arguments: `args(t)`, with the Timestamp scalar for times and `after` for a cursor;
//
// and `parse` (or `fromQuery` for a query string, `infoReader` for an /info body) checks the request against the one
// schema, fills the defaults and lowercases addresses, once, throwing a FieldError that names the field as that edge
// calls it. The service method's parameter is `InputOf<typeof definition>`: what it gets is already checked.

import type { InputFieldMap } from '@pothos/core';
import {
  Kind,
  OptionalKind,
  type Static,
  type TArray,
  type TBoolean,
  type TInteger,
  type TObject,
  type TOptional,
  type TProperties,
  type TSchema,
  type TString,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { ADDRESS_PATTERN, type Address, FieldError, MAX_TIME_MS, orderedWindow } from '../platform/fields.ts';
import { MAX_COLLECT_SECONDS } from './mcp-tool.ts';
import { TIME_FORMAT, timeParam } from './params.ts';
import {
  argumentFieldError,
  bodyValidator,
  closedBody,
  fieldError,
  type JsonSchema,
  NO_NUL_PATTERN,
  RULE,
} from './request-schema.ts';

/** How a field is read beyond its JSON Schema; kept under symbols, which neither Ajv nor OpenAPI sees. */
const Lower = Symbol('input.lowercase');
const Time = Symbol('input.time');
const Unit = Symbol('input.unit');
const Names = Symbol('input.names');

type Meta = {
  [Lower]?: true;
  [Time]?: true;
  [Unit]?: string;
  [Names]?: Partial<Record<Edge, string>>;
};
const meta = (schema: TSchema): Meta => schema as Meta;

// ---- fields ----

/** A 0x address of 40 hex digits, any case; parsed lowercased, as an Address. */
export const address = (description: string): TUnsafe<Address> =>
  Type.Unsafe<Address>(
    Type.String({ pattern: ADDRESS_PATTERN, description: `${description}: 0x and 40 hex digits`, [Lower]: true }),
  );

/**
 * Text without NUL (no Postgres text takes it), 1 to 100 characters unless bounded otherwise; `pattern` narrows it
 * (no NUL matches it either), `rule` is what a refusal then says.
 */
export const text = (
  description: string,
  form: { minLength?: number; maxLength?: number; pattern?: string; rule?: string } = {},
): TString =>
  Type.String({
    minLength: form.minLength ?? 1,
    maxLength: form.maxLength ?? 100,
    pattern: form.pattern ?? NO_NUL_PATTERN,
    description,
    ...(form.rule ? { [RULE]: form.rule } : {}),
  });

/**
 * A page's cursor (the `nextCursor` of the page before); GraphQL calls it `after`, as Relay does. `form` is its
 * pattern and the rule a refusal states (`must be "<balance_raw>:<address>" as a page gave it`).
 */
export const cursor = (description: string, form?: { pattern?: string; rule?: string; maxLength?: number }): TString =>
  Type.String({
    maxLength: form?.maxLength ?? 128,
    pattern: form?.pattern ?? NO_NUL_PATTERN,
    description,
    [Names]: { graphql: 'after' },
    ...(form?.rule ? { [RULE]: form.rule } : {}),
  });

/** An integer from `min` to `max`; with `default`, a value the parsed input always holds. */
export const int = (description: string, bounds: { min: number; max: number; default?: number }): TInteger =>
  Type.Integer({
    minimum: bounds.min,
    maximum: bounds.max,
    ...(bounds.default === undefined ? {} : { default: bounds.default }),
    description,
  });

/** An instant in epoch milliseconds (ISO 8601 or ms on a path route's query string, Timestamp in GraphQL). */
export const time = (description: string): TInteger =>
  Type.Integer({
    minimum: 0,
    maximum: MAX_TIME_MS,
    description: `${description} (epoch milliseconds)`,
    [Time]: true,
    [Unit]: 'epoch milliseconds',
  });

export const bool = (description: string, defaultValue?: boolean): TBoolean =>
  Type.Boolean({ description, ...(defaultValue === undefined ? {} : { default: defaultValue }) });

/** One of `values` (text); with `defaultValue`, a value the parsed input always holds. */
export const oneOf = <V extends string>(values: readonly V[], description: string, defaultValue?: V) =>
  Type.Unsafe<V>({
    type: 'string',
    enum: [...values],
    description,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });

/** One of `values` (integers: a book's mantissa 1, 2 or 5); an Int in GraphQL. */
export const intOf = <V extends number>(values: readonly V[], description: string, defaultValue?: V) =>
  Type.Unsafe<V>({
    type: 'integer',
    enum: [...values],
    description,
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  });

/**
 * A field some edges name otherwise than the definition (and than snake_case on path routes): `to` in MCP and
 * GraphQL for the service's `toAddr`, which a path route calls `to_addr`.
 */
export const named = <T extends TSchema>(schema: T, names: Partial<Record<Edge, string>>): T =>
  ({ ...schema, [Names]: { ...meta(schema)[Names], ...names } }) as T;

/**
 * A list of `items`, `min` to `max` of them (on a path route, the parameter repeated: `?k=a&k=b`); `rule` is what a
 * refusal of its length says.
 */
export const list = <T extends TSchema>(
  items: T,
  description: string,
  bounds: { max: number; min?: number; rule?: string },
): TArray<T> =>
  Type.Array(items, {
    maxItems: bounds.max,
    ...(bounds.min === undefined ? {} : { minItems: bounds.min }),
    description,
    ...(bounds.rule ? { [RULE]: bounds.rule } : {}),
  });

/**
 * An integer or its text (an order id the exchange's clients send as a JSON number or as decimal digits, or a cloid
 * in its place): `pattern` bounds the text, `rule` is what a refusal says. GraphQL takes it as the edge's type.
 */
export const integerOrText = (description: string, form: { pattern: string; rule: string }) =>
  Type.Unsafe<number | string>({
    type: ['integer', 'string'],
    minimum: 0,
    pattern: form.pattern,
    description,
    [RULE]: form.rule,
  });

/**
 * An amount not below 0 as a JSON number or a decimal string (what GraphQL's Decimal hands): the liquidations
 * stream's minimum notional, which the exchange's clients send either way.
 */
export const amount = (description: string) =>
  Type.Unsafe<number | string>({
    type: ['number', 'string'],
    minimum: 0,
    pattern: '^\\d+(\\.\\d+)?$',
    description,
    [RULE]: 'must be a number or a decimal string >= 0',
  });

/** How long a live MCP tool collects a stream, 1 to MAX_COLLECT_SECONDS seconds. */
export const seconds = (what: string): TInteger =>
  int(`how long to collect ${what}, in seconds (1 to ${MAX_COLLECT_SECONDS})`, { min: 1, max: MAX_COLLECT_SECONDS });

/** A field the caller may leave out. */
export const optional = <T extends TSchema>(schema: T): TOptional<T> => Type.Optional(schema) as TOptional<T>;

// ---- the definition ----

/** What a capability's service method takes: the checked input, defaults filled. */
export type InputOf<D> = D extends Input<infer P> ? Static<TObject<P>> : never;

/** The edge a request came through: each names the fields its own way (snake_case on path routes, `after`). */
export type Edge = 'mcp' | 'info' | 'rest' | 'graphql';

/** A GraphQL argument as `args(t)` builds it, for any Pothos builder (its arg types are the builder's own). */
// biome-ignore lint/suspicious/noExplicitAny: Pothos' arg builder, whatever the builder's types
type ArgBuilder = { arg: any };

export interface Input<P extends TProperties> {
  /** The fields as defined. */
  readonly fields: P;
  /** camelCase JSON Schema of the input under MCP's names, unknown fields refused: an MCP tool's input. */
  readonly schema: Readonly<Record<string, unknown>>;
  /**
   * An /info body's fields (camelCase): each optional field also takes null (the exchange's Python SDK sends explicit
   * nulls), an integer's unit its description (what compat's 400 names). `infoReader` closes it to unknown fields.
   */
  body(omit?: readonly (keyof P & string)[]): Readonly<Record<string, unknown>>;
  /** A path route's querystring schema: snake_case names, times as text (read by `fromQuery`). */
  query(omit?: readonly (keyof P & string)[]): Readonly<Record<string, unknown>>;
  /** A path route's parameters schema: each parameter (`/user/:user_address`) is the field it names (`user`). */
  params(names: Readonly<Record<string, keyof P & string>>): Readonly<Record<string, unknown>>;
  /** Checks `raw` (null or absent = not given), fills defaults, lowercases addresses; a FieldError names the field. */
  parse(raw: Readonly<Record<string, unknown>>, edge?: Edge): Static<TObject<P>>;
  /**
   * An /info type's reading of its body, the one check the body gets (POST /info and /ws `post`): against
   * `form.schema` with `type`, closed to any field it does not name but the clients' `extras`, refused as compat words
   * it (`limit: must be an integer from 1 to 1000, got 0`, `foo: unknown parameter; it takes type, user, ...`); then
   * the fields it names (under `form.nested`) read as `parse` reads them (defaults, lowercased addresses, the window,
   * the definition's rule), not checked again.
   */
  infoReader(form: InfoBody): (body: Readonly<Record<string, unknown>>) => Static<TObject<P>>;
  /** A path route's query (and path parameters, camelCase or snake_case) as `parse` reads them. */
  fromQuery(query: Readonly<Record<string, unknown>>): Static<TObject<P>>;
  /**
   * GraphQL arguments of the fields (a defaulted one is non-null with its default): Int, Boolean, String, Timestamp
   * for times, lists of those; `types` gives a field the schema's own type instead (an enum the edge declares).
   */
  args(t: ArgBuilder, options?: readonly (keyof P & string)[] | ArgOptions<P>): InputFieldMap;
}

/** How an /info type's body holds a definition's fields (what `infoReader` checks and reads). */
export interface InfoBody {
  /**
   * The body's schema as published: `body()` less what the type omits, a door's form of it (fields beside the
   * definition's, a field clients send in another type), or nested under a key (`nestedBody`).
   */
  schema: JsonSchema;
  /** Fields the exchange's clients send that the type does not read (request-schema.ts CLIENT_EXTRAS): taken unread. */
  extras?: readonly string[];
  /** The key the definition's fields are nested under (candleSnapshot's `req`): a refusal names them under it. */
  nested?: string;
  /**
   * The checked body as the definition reads it, where the type names a field otherwise (`include_order_type`) or
   * sends one the definition does not read (an omitted field a client adds). What it hands on is not checked again:
   * `schema` states the rule of every field it reads.
   */
  fields?(body: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>>;
}

/** What `args` leaves out (fields the parent gives) and the GraphQL types the edge chooses for some fields. */
export interface ArgOptions<P extends TProperties> {
  omit?: readonly (keyof P & string)[];
  types?: Partial<Record<keyof P & string, unknown>>;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The name a field has on `edge`. */
function edgeName(name: string, field: TSchema, edge: Edge): string {
  return meta(field)[Names]?.[edge] ?? (edge === 'rest' ? snake(name) : name);
}

/** The input's own Ajv: strict, no coercion (each edge hands typed values), every number finite. */
const AJV_OPTIONS = {
  allErrors: false,
  strict: true,
  strictNumbers: true,
  allowUnionTypes: true,
  verbose: true,
  keywords: [RULE],
} satisfies Options;
const ajv = new Ajv(AJV_OPTIONS);

/** The same for a path route's query string, whose values are text: each coerced to its field's type first. */
const textAjv = new Ajv({ ...AJV_OPTIONS, coerceTypes: 'array' });

const isOptional = (s: TSchema) => (s as { [OptionalKind]?: string })[OptionalKind] === 'Optional';

/** What a definition states beyond its fields. */
export interface InputRules<P extends TProperties> {
  /** A time window's two fields: the start must not be after the end. */
  window?: readonly [keyof P & string, keyof P & string];
  /**
   * A rule across fields that no field's schema states (a book's mantissa only with nSigFigs 5), run on the checked
   * input; it throws a FieldError naming a field by `name` (the edge's name of it).
   */
  check?: (input: Static<TObject<P>>, name: (key: keyof P & string) => string) => void;
}

/** Declares a capability's input. */
export function defineInput<P extends TProperties>(fields: P, rules: InputRules<P> = {}): Input<P> {
  const entries = Object.entries(fields) as [string, TSchema][];
  const required = entries.filter(([, s]) => !isOptional(s) && s.default === undefined).map(([k]) => k);
  /**
   * The fields under the definition's own names, as a refusal states them: what `parse` validates, once the edge's
   * names are mapped.
   */
  const keyed = {
    type: 'object',
    properties: Object.fromEntries(entries.map(([k, s]) => [k, statedField(s)])),
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
  /** The same under the names MCP and /info give them (`to` for `toAddr`): what a tool publishes. */
  const mcpName = (key: string) => edgeName(key, fields[key] as TSchema, 'mcp');
  const schema = {
    ...keyed,
    properties: Object.fromEntries(entries.map(([k, s]) => [mcpName(k), s])),
    ...(required.length ? { required: required.map(mcpName) } : {}),
  };
  let validate: ValidateFunction | undefined;
  let validateText: ValidateFunction | undefined;

  /** The edge's name of a field (an unknown one as sent). */
  const naming = (edge: Edge) => (key: string) =>
    Object.hasOwn(fields, key) ? edgeName(key, fields[key] as TSchema, edge) : key;

  /** Each edge's names → the definition's, made once per edge (not per request). */
  const keysByEdge = new Map<Edge, Map<string, string>>();
  const keysOn = (edge: Edge) => {
    let keys = keysByEdge.get(edge);
    if (!keys) {
      keys = new Map(entries.map(([k, s]) => [edgeName(k, s, edge), k]));
      keysByEdge.set(edge, keys);
    }
    return keys;
  };

  /**
   * The fields `raw` gives (null or absent = not given) under the definition's names, and a stray: a tool's argument
   * sent under the definition's name where MCP names it otherwise (`users` for `addresses`), not an argument of the
   * tool (other edges' callers give a parent's fields under the definition's names).
   */
  const given = (raw: Readonly<Record<string, unknown>>, edge: Edge) => {
    const input: Record<string, unknown> = {};
    const byEdgeName = keysOn(edge);
    let stray: string | undefined;
    for (const [name, value] of Object.entries(raw)) {
      if (value === undefined || value === null) continue;
      const key = byEdgeName.get(name);
      // An /info body or a /ws subscription also holds its `type` and the fields clients add (CLIENT_EXTRAS).
      if (key === undefined && edge === 'info') continue;
      if (key === undefined && edge === 'mcp' && Object.hasOwn(fields, name)) {
        stray ??= name;
        continue;
      }
      input[key ?? name] = value;
    }
    return { input, stray };
  };

  /** A checked input read: defaults filled, addresses lowercased, then the window and the definition's own rule. */
  const finish = (input: Record<string, unknown>, edge: Edge) => {
    for (const [key, field] of entries) {
      const value = input[key];
      if (value === undefined && field.default !== undefined) input[key] = field.default;
      else if (typeof value === 'string' && meta(field)[Lower]) input[key] = value.toLowerCase();
      else if (Array.isArray(value) && meta(field.items ?? {})[Lower]) {
        input[key] = value.map((v) => (v as string).toLowerCase());
      }
    }
    if (rules.window) {
      const [start, end] = rules.window;
      const nameOn = (key: string) => edgeName(key, fields[key] as TSchema, edge);
      orderedWindow(nameOn(start), input[start] as number | undefined, input[end] as number | undefined, nameOn(end));
    }
    rules.check?.(input as Static<TObject<P>>, (key) => edgeName(key, fields[key] as TSchema, edge));
    return input as Static<TObject<P>>;
  };

  const parse = (raw: Readonly<Record<string, unknown>>, edge: Edge = 'mcp') => {
    const { input, stray } = given(raw, edge);
    // A query string's values are text: its reading coerces them to the field's type, as fastify's would.
    if (edge === 'rest') validateText ??= textAjv.compile(keyed);
    else validate ??= ajv.compile(keyed);
    const check = (edge === 'rest' ? validateText : validate) as ValidateFunction;
    const valid = check(input);
    const error = valid ? undefined : ((check.errors as ErrorObject[])[0] as ErrorObject);
    // The stray is refused as the tool's published schema refuses an unknown argument: after a missing one, before
    // a bad value.
    if (stray !== undefined && error?.keyword !== 'required') {
      const unknown = {
        keyword: 'additionalProperties',
        instancePath: '',
        schemaPath: '',
        params: { additionalProperty: stray },
      };
      throw argumentFieldError(unknown as ErrorObject);
    }
    if (error) throw edge === 'mcp' ? argumentFieldError(error, naming(edge)) : fieldError(error, naming(edge));
    return finish(input, edge);
  };

  return {
    fields,
    schema,
    body(omit = []) {
      const properties: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        if (omit.includes(key)) continue;
        const own = statedField(field) as Record<string, unknown>;
        properties[edgeName(key, field, 'info')] = required.includes(key) ? own : nullable(own);
      }
      const needed = required.filter((k) => !omit.includes(k)).map((k) => edgeName(k, fields[k] as TSchema, 'info'));
      return { type: 'object', properties, ...(needed.length ? { required: needed } : {}) };
    },
    query(omit = []) {
      const properties: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        if (omit.includes(key)) continue;
        properties[edgeName(key, field, 'rest')] = meta(field)[Time]
          ? { type: 'string', format: TIME_FORMAT }
          : statedField(field);
      }
      return { type: 'object', properties };
    },
    params(names) {
      const properties = Object.fromEntries(
        Object.entries(names).map(([param, key]) => [param, statedField(fields[key] as TSchema)]),
      );
      return { type: 'object', properties, required: Object.keys(names) };
    },
    parse,
    infoReader(form) {
      const { nested, fields: readable = (body) => body } = form;
      const typed = { ...form.schema, properties: { type: { type: 'string' }, ...(form.schema.properties ?? {}) } };
      // Compiled as the table is made: a schema Ajv refuses stops the service at start.
      const check = bodyValidator(closedBody(typed, form.extras));
      return (body) => {
        check(body);
        const read = readable(body);
        if (nested === undefined) return finish(given(read, 'info').input, 'info');
        try {
          return finish(given(read[nested] as Readonly<Record<string, unknown>>, 'info').input, 'info');
        } catch (err) {
          throw err instanceof FieldError ? new FieldError(`${nested}.${err.message}`, err.code) : err;
        }
      };
    },
    fromQuery(query) {
      const raw: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        const name = edgeName(key, field, 'rest');
        const value = query[name] ?? query[key];
        raw[name] = meta(field)[Time] && typeof value === 'string' ? timeParam(value, name) : value;
      }
      return parse(raw, 'rest');
    },
    args(t, options = {}) {
      const { omit = [], types = {} } = Array.isArray(options) ? { omit: options } : (options as ArgOptions<P>);
      const out: InputFieldMap = {};
      for (const [key, field] of entries) {
        if (omit.includes(key)) continue;
        const type = (types as Record<string, unknown>)[key];
        const base = {
          description: field.description,
          required: !isOptional(field),
          ...(field.default === undefined ? {} : { defaultValue: field.default }),
        };
        out[edgeName(key, field, 'graphql')] = type ? t.arg({ type, ...base }) : argOf(t, field, base);
      }
      return out;
    },
  };
}

/**
 * The body of an /info type that nests a definition's fields under one object field (candleSnapshot's
 * `{req: {coin, interval, ...}}`), less what `omit` names; its reader is the definition's `infoReader` with `nested`.
 */
export function nestedBody<P extends TProperties>(
  key: string,
  definition: Input<P>,
  omit: readonly (keyof P & string)[] = [],
): JsonSchema {
  return { type: 'object', properties: { [key]: definition.body(omit) }, required: [key] };
}

/**
 * A field as a refusal states it, in the schemas `parse` and the routes validate with: compat's 400 reads an
 * integer's `description` as its unit (`must be an integer of epoch milliseconds`), so the field carries its unit
 * there, not the sentence a tool shows a model.
 */
function statedField(field: TSchema): TSchema {
  const { description: _sentence, ...rest } = field;
  const unit = meta(field)[Unit];
  return (unit ? { ...rest, description: unit } : rest) as TSchema;
}

/** A field's schema that also takes null (an enum lists null too). */
function nullable(field: Record<string, unknown>): Record<string, unknown> {
  const out = { ...field, type: [field.type, 'null'].flat() };
  return Array.isArray(field.enum) ? { ...out, enum: [...field.enum, null] } : out;
}

/** A field's GraphQL argument: Int, Timestamp for times (beyond Int's 32 bits), String, Boolean. */
function argOf(t: ArgBuilder, field: TSchema, options: Record<string, unknown>): InputFieldMap[string] {
  if (field[Kind] === 'Array') return t.arg({ type: [scalarOf(field.items as TSchema)], ...options });
  return t.arg({ type: scalarOf(field), ...options });
}

/** The GraphQL scalar of a field. */
function scalarOf(field: TSchema): string {
  if (meta(field)[Time]) return 'Timestamp';
  if (field.type === 'integer') return 'Int';
  switch (field[Kind]) {
    case 'Boolean':
      return 'Boolean';
    default:
      return 'String';
  }
}

/**
 * A FieldError a service threw naming a field of `definition` by the definition's name (`cursor: must be the next
 * cursor of a page`), renamed as `edge` calls that field (`after: ...` in GraphQL, `start_time: ...` on a path route).
 */
export function namedOnEdge(definition: { fields: TProperties }, err: FieldError, edge: Edge): FieldError {
  const key = /^([A-Za-z_]\w*)(?=[:.[])/.exec(err.message)?.[1];
  if (key === undefined || !Object.hasOwn(definition.fields, key)) return err;
  const name = edgeName(key, definition.fields[key] as TSchema, edge);
  return name === key ? err : new FieldError(name + err.message.slice(key.length), err.code);
}
