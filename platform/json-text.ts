// JSON written by hand for large answers built straight from Postgres's text (candleSnapshot, userFills): no
// objects per row, no second serialization. Callers write each item; these helpers do the quoting and the array.

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON must escape
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** `s` as a JSON string literal: quoted as is when nothing in it needs escaping (the common case), else escaped. */
export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/**
 * `[item, item, ...]` as UTF-8 bytes. Appending pieces and encoding once is cheaper than `join` (which flattens
 * every piece) and than handing the server a string (which measures its length, then encodes it).
 */
export function jsonArrayBytes<T>(items: readonly T[], write: (item: T) => string): Buffer {
  let out = '[';
  for (let i = 0; i < items.length; i++) out += (i ? ',' : '') + write(items[i] as T);
  return Buffer.from(`${out}]`);
}

/** JSON with object keys sorted at every level: equal for values that differ only in key order. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = sortKeys(record[key]);
  return sorted;
}
