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
