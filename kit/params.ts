// Query parameters shared by the path endpoints: time bounds in the service's three spellings (ISO with or without
// `Z`, naive = UTC; or epoch ms), and the text every parameter is checked for.
import { FieldError, MAX_TIME_MS, noNul } from '../platform/fields.ts';

/** ISO datetime (naive = UTC) or epoch milliseconds → epoch ms; undefined when absent. */
export function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) {
    // Beyond the last instant a Date holds, epoch ms are no time (and many digits more would overflow bigint).
    const ms = Number(value);
    if (ms > MAX_TIME_MS) {
      throw new FieldError(`${name}: must be epoch milliseconds from 0 to ${MAX_TIME_MS}, got ${value.slice(0, 40)}`);
    }
    return ms;
  }
  const iso = /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(iso);
  // Date.parse reads ISO 8601 within a Date's range only (years -271821 to 275760): NaN beyond.
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
    throw new FieldError(`${name}: must be an ISO 8601 datetime or epoch milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}

/**
 * Every path and query parameter, checked before a route's own schema: no NUL character (platform/fields.ts noNul).
 * Fastify hands over strings, or arrays of them for a repeated query key.
 */
export function checkParamText(values: unknown): void {
  if (typeof values !== 'object' || values === null) return;
  for (const [key, v] of Object.entries(values)) {
    for (const text of Array.isArray(v) ? v : [v]) if (typeof text === 'string') noNul(text, key);
  }
}

/**
 * The format of a time parameter (ISO 8601, naive = UTC, or epoch ms): the app checks such a field with timeParam
 * before the call is charged (a refused input costs nothing), with timeParam's message; Ajv takes any string for it.
 */
export const TIME_FORMAT = 'iso-8601-or-epoch-ms';

/** Checks each query parameter its route's schema declares a time (TIME_FORMAT) as timeParam reads it. */
export function checkTimeText(schema: unknown, values: unknown): void {
  const properties = (schema as { properties?: Record<string, { format?: string }> } | undefined)?.properties;
  if (!properties || typeof values !== 'object' || values === null) return;
  for (const [key, value] of Object.entries(values)) {
    if (properties[key]?.format === TIME_FORMAT && typeof value === 'string') timeParam(value, key);
  }
}
