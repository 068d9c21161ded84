// The /info dispatcher: one table of `type` → body schema, reading and handler across domains (the /info doors of
// each domain's capabilities, domains.ts), shared by POST /info and WS `post`; the schemas also make the request
// schema OpenAPI publishes.
import { DOMAIN_LIST } from '../../domains.ts';
import { unionOf } from '../../kit/domain.ts';
import type { InfoEntry } from '../../kit/info.ts';
import { type JsonSchema, requestSchemas } from '../../kit/request-schema.ts';
import { FieldError } from '../../platform/fields.ts';
import { capabilityInfo } from '../capability-info.ts';

export const INFO_TYPES: Readonly<Record<string, InfoEntry>> = unionOf(
  '/info type',
  DOMAIN_LIST.map((d) => [d.name, d.capabilities ? capabilityInfo(d.name, d.capabilities) : {}]),
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
 * The entry of a body's type and its input, read once by the type's reading (its schema, `type`, and no other field
 * but the clients' extras; kit/input.ts `infoReader`): bad input throws a FieldError here, before the call is charged
 * (a refused input costs nothing).
 */
export function checkInfo(body: unknown): { request: Record<string, unknown>; entry: InfoEntry; input: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new FieldError('JSON body required', 'malformed_json');
  const request = body as Record<string, unknown>;
  const type = request.type;
  if (typeof type !== 'string' || type === '') throw new FieldError('type: must be a non-empty string');
  const entry = Object.hasOwn(INFO_TYPES, type) ? INFO_TYPES[type] : undefined;
  if (!entry) throw new FieldError(`Unknown type: ${type}`, 'unknown_type');
  return { request, entry, input: entry.read(request) };
}
