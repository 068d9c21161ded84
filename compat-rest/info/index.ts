// The /info dispatcher: one table of `type` → body schema and handler across domains (each domain's `compat.info`
// and the /info doors of its capabilities, domains.ts), shared by POST /info and WS `post`; the schemas also make the
// request schema OpenAPI publishes.
import { DOMAIN_LIST } from '../../domains.ts';
import { unionOf } from '../../kit/domain.ts';
import type { InfoEntry } from '../../kit/info.ts';
import { bodyValidator, CLIENT_EXTRAS, closedBody, type JsonSchema, requestSchemas } from '../../kit/request-schema.ts';
import { FieldError } from '../../platform/fields.ts';
import { capabilityInfo } from '../capability-info.ts';

export const INFO_TYPES: Readonly<Record<string, InfoEntry>> = unionOf(
  '/info type',
  DOMAIN_LIST.map((d) => [
    d.name,
    { ...(d.capabilities ? capabilityInfo(d.name, d.capabilities) : {}), ...d.compat.info },
  ]),
);

/**
 * Each type's body validator, compiled once at start (a schema Ajv refuses stops the service there): its schema,
 * `type`, and no other field but the clients' extras (request-schema.ts CLIENT_EXTRAS).
 */
const validators: ReadonlyMap<string, (body: Record<string, unknown>) => void> = new Map(
  Object.entries(INFO_TYPES).map(([type, entry]) => {
    const schema = { ...entry.schema, properties: { type: { type: 'string' }, ...(entry.schema.properties ?? {}) } };
    const extras = [...(CLIENT_EXTRAS['*'] ?? []), ...(CLIENT_EXTRAS[type] ?? [])];
    return [type, bodyValidator(closedBody(schema, extras))];
  }),
);

/** Every /info request as one JSON Schema, a `oneOf` discriminated on `type` (for OpenAPI). */
export const infoRequestSchemas = (): JsonSchema => requestSchemas(INFO_TYPES);

/** The OpenAPI component name of a type's answer schema (`info.l2Book`). */
export const infoResponseName = (type: string): string => `info.${type}`;

/** Every type's answer schema by its component name, each titled with its type (for OpenAPI). */
export const infoResponseSchemas = (): Record<string, JsonSchema> =>
  Object.fromEntries(
    Object.entries(INFO_TYPES).map(([type, entry]) => [
      infoResponseName(type),
      { title: type, description: `The answer to {"type": "${type}"}.`, ...entry.response },
    ]),
  );

/**
 * The entry of a body's type, once the body matches its schema: bad input throws a FieldError here, before the call
 * is charged (a refused input costs nothing).
 */
export function checkInfo(body: unknown): { request: Record<string, unknown>; entry: InfoEntry; input: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new FieldError('JSON body required', 'malformed_json');
  const request = body as Record<string, unknown>;
  const type = request.type;
  if (typeof type !== 'string' || type === '') throw new FieldError('type: must be a non-empty string');
  const validate = Object.hasOwn(INFO_TYPES, type) ? validators.get(type) : undefined;
  if (!validate) throw new FieldError(`Unknown type: ${type}`, 'unknown_type');
  validate(request);
  const entry = INFO_TYPES[type] as InfoEntry;
  return { request, entry, input: entry.read?.(request) };
}
