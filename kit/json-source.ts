// The JSON text a request body was parsed from, kept beside the parsed object (POST /info bodies, /ws post
// payloads), so that a handler can read a number JSON.parse cannot hold exactly from its digits: an `oid` is a u64,
// and clients send oids above 2^53 as JSON numbers.
import { FieldError } from '../platform/fields.ts';
import { nestsDeeper, tooDeep } from '../platform/json-depth.ts';

const sources = new WeakMap<object, string>();

/**
 * JSON.parse, remembering the text of the object it returns. Throws as JSON.parse does, or a FieldError naming
 * `what` for a text nested deeper than MAX_JSON_DEPTH.
 */
export function parseJsonBody(text: string, what = 'body'): unknown {
  if (nestsDeeper(text)) throw new FieldError(tooDeep(what));
  const value: unknown = JSON.parse(text);
  rememberJsonSource(value, text);
  return value;
}

/** Remembers `text` as the source of `value` (an object parsed from it, or inside what was parsed from it). */
export function rememberJsonSource(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) sources.set(value, text);
}

const SPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The digits of the integer literal the source text of `value` gives for `key`, when the text holds exactly one
 * `"key": <number>` (at any depth: the scan does not follow nesting, so a second one anywhere makes it ambiguous);
 * undefined when there is no source, no such number, more than one, or one that is not a plain integer.
 */
export function integerLiteral(value: object, key: string): string | undefined {
  const text = sources.get(value);
  if (text === undefined) return undefined;
  const found: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '"') {
      i++;
      continue;
    }
    // A string: its raw text up to the closing quote (the text is valid JSON, so there is one).
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    const raw = text.slice(i + 1, j);
    i = j + 1;
    if (raw !== key) continue;
    let k = i;
    while (SPACE.has(text[k] as string)) k++;
    if (text[k] !== ':') continue;
    k++;
    while (SPACE.has(text[k] as string)) k++;
    NUMBER.lastIndex = k;
    const m = NUMBER.exec(text);
    if (m) found.push(m[0]);
  }
  const only = found.length === 1 ? (found[0] as string) : undefined;
  return only !== undefined && /^\d+$/.test(only) ? only : undefined;
}
