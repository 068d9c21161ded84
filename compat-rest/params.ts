// Query parameters shared by the path endpoints: time bounds in the service's three spellings (ISO with or without
// `Z`, naive = UTC; or epoch ms), and the JSON-schema pieces fastify validates `limit`/`offset` with.
import { FieldError, MAX_TIME_MS, noNul, orderedWindow } from '../platform/fields.ts';

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

export interface TimeWindowQuery {
  start_time?: string;
  end_time?: string;
}

/** `start_time`/`end_time` with defaults; start must not be after end. */
export function timeWindow(
  q: TimeWindowQuery,
  now: number,
  defaultSpanMs: number,
): { startTime: number; endTime: number } {
  const endTime = timeParam(q.end_time, 'end_time') ?? now;
  const startTime = timeParam(q.start_time, 'start_time') ?? endTime - defaultSpanMs;
  orderedWindow('start_time', startTime, endTime, 'end_time');
  return { startTime, endTime };
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

/** An epoch-ms query parameter given as an integer (Postgres bigint, and exact here). */
export const epochMsSchema = { type: 'integer', minimum: 0, maximum: MAX_TIME_MS } as const;

export const limitSchema = (max: number, defaultValue: number) =>
  ({ type: 'integer', minimum: 1, maximum: max, default: defaultValue }) as const;

export const timeWindowSchema = {
  start_time: { type: 'string' },
  end_time: { type: 'string' },
} as const;
