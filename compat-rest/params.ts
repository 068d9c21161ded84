// Query parameters shared by the path endpoints: time bounds in the service's three spellings (ISO with or without
// `Z`, naive = UTC; or epoch ms), and the JSON-schema pieces fastify validates `limit`/`offset` with.
import { FieldError, orderedWindow } from '../platform/fields.ts';

/** ISO datetime (naive = UTC) or epoch milliseconds → epoch ms; undefined when absent. */
export function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const iso = /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(iso);
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

export const limitSchema = (max: number, defaultValue: number) =>
  ({ type: 'integer', minimum: 1, maximum: max, default: defaultValue }) as const;

export const timeWindowSchema = {
  start_time: { type: 'string' },
  end_time: { type: 'string' },
} as const;
