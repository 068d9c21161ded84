// The service's timestamp text for path-endpoint records: naive ISO 8601, UTC, with exact milliseconds.

/**
 * Epoch ms → "2026-11-22T07:00:00.123": ISO 8601 with exact milliseconds, in the naive UTC form the service's
 * path-endpoint records use (reference/service-details.md: naive = UTC).
 */
export function naiveIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}
