// JSON written by hand for large answers built straight from Postgres's text (candleSnapshot, userFills): no
// objects per row, no second serialization. Callers write each item; these helpers do the quoting and the array.

/** One row as Postgres prints it: its columns in order, NULL as null (what db/pool.ts `eachTextRow` hands out). */
export type TextRow = (string | null)[];

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what JSON must escape
const PLAIN = /^[^"\\\u0000-\u001f]*$/;

/** `s` as a JSON string literal: quoted as is when nothing in it needs escaping (the common case), else escaped. */
export function jsonString(s: string): string {
  return PLAIN.test(s) ? `"${s}"` : JSON.stringify(s);
}

/*
 * Column `i` of a row as Postgres prints it (db/pool.ts `eachTextRow`), as JSON. Functions of the module, not
 * closures per row: under tsx (which keeps function names) a closure created per row also pays a defineProperty,
 * ~0.5 µs, about 1 ms per 2 000 fills.
 */

/** A text column as a JSON string (NULL, which the callers' NOT NULL columns never hold, as ""). */
export const textJson = (r: TextRow, i: number) => jsonString(r[i] ?? '');

/** A nullable text column as a JSON string or null. */
export const nullableTextJson = (r: TextRow, i: number) => (r[i] == null ? 'null' : jsonString(r[i]));

/** A boolean column (Postgres prints `t` or `f`) as JSON. */
export const boolJson = (r: TextRow, i: number) => (r[i] === 't' ? 'true' : 'false');

/**
 * `text` as UTF-8 bytes: measured, then written into a buffer of that size. On Node 20 here `Buffer.from(text)` took
 * 3.3 ms for a 670 kB JSON text, this 0.2 ms (and 0.37 µs vs 0.64 µs for a 300-byte frame); fastify and node's http
 * encode a string body about as slowly as `Buffer.from`, so large answers are handed to them as bytes.
 */
export function utf8(text: string): Buffer {
  const bytes = Buffer.allocUnsafe(Buffer.byteLength(text));
  bytes.write(text, 0, 'utf8');
  return bytes;
}

/** UTF-8 written piece by piece into one growing buffer, each piece encoded as soon as it is written. */
class Utf8Writer {
  private buf: Buffer;
  private at = 0;

  constructor(expectedBytes: number) {
    this.buf = Buffer.allocUnsafe(Math.max(1024, expectedBytes));
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  text(text: string): void {
    // A UTF-16 unit takes at most 3 bytes in UTF-8.
    this.room(text.length * 3);
    this.at += this.buf.write(text, this.at, 'utf8');
  }

  byte(b: number): void {
    this.room(1);
    this.buf[this.at++] = b;
  }

  get length(): number {
    return this.at;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  /** The bytes written so far, handed over: writing goes on in a fresh buffer of the same size. */
  take(): Buffer {
    const bytes = this.bytes();
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.at = 0;
    return bytes;
  }
}

/** How much of a streamed answer is written before it is handed over (see JsonChunks). */
export const CHUNK_BYTES = 64 * 1024;

/** Where a JSON text written in pieces goes as it grows: each time `chunkBytes` are written, they go to `out`. */
export interface JsonChunks {
  chunkBytes: number;
  out: (chunk: Buffer) => void;
}

const COMMA = 0x2c;

/**
 * How much of an array JsonArrayWriter joins before encoding it. Encoding each item as it comes costs a call per item
 * (0.30 ms for 2 000 fills here); joining 16 k characters and encoding them at once, 0.15 ms. Joining it all first
 * is the slow case the writer exists to avoid (see below).
 */
const PENDING_CHARS = 16 * 1024;

/**
 * A JSON array written item by item into one growing buffer of UTF-8, encoded every PENDING_CHARS as items are pushed
 * (so items can be pushed as they arrive, e.g. rows from Postgres). Measured on 2 000 wire fills (660 kB): 4.3 ms,
 * where appending the items to one string and encoding it at the end took 12 ms (flattening a rope of thousands of
 * pieces) and `join` 10 ms.
 */
export class JsonArrayWriter {
  private readonly out: Utf8Writer;
  private items = 0;
  /** Items not encoded yet: joined in a string of up to PENDING_CHARS, then encoded at once. */
  private pending: string;

  /**
   * With `chunks`, the text is handed over a chunk at a time as it grows, and `end` returns the rest. `before` is
   * JSON text written ahead of the array (an envelope's opening, `{"data":`), closed by `end`'s `after`.
   */
  constructor(
    expectedBytes = 1024,
    private readonly chunks?: JsonChunks,
    before = '',
  ) {
    this.out = new Utf8Writer(chunks ? chunks.chunkBytes * 1.25 : expectedBytes);
    this.pending = `${before}[`;
  }

  /** Appends one item, `text` being its JSON. */
  push(text: string): void {
    this.pending += this.items++ ? `,${text}` : text;
    if (this.pending.length < PENDING_CHARS) return;
    this.out.text(this.pending);
    this.pending = '';
    if (this.chunks && this.out.length >= this.chunks.chunkBytes) this.chunks.out(this.out.take());
  }

  /** How many items were pushed. */
  get count(): number {
    return this.items;
  }

  /** The array's bytes (or, with chunks, those not handed over yet), closed, then `after`. Push nothing after this. */
  end(after = ''): Buffer {
    this.out.text(`${this.pending}]${after}`);
    this.pending = '';
    return this.out.bytes();
  }
}

/** `[item, item, ...]` as UTF-8 bytes, each item written by `write` (see JsonArrayWriter). */
export function jsonArrayBytes<T>(items: readonly T[], write: (item: T) => string): Buffer {
  const out = new JsonArrayWriter(items.length * 256);
  for (const item of items) out.push(write(item));
  return out.end();
}

/**
 * `JSON.stringify(value)` as UTF-8 bytes, the same bytes, written array item by array item. For a large answer
 * this is about twice as fast: V8 returns a long stringify result as a rope, and its first use (measuring or
 * encoding it) flattens it, 3.3 ms for 870 kB of orders here, more than the stringify itself; each item's text is
 * short and flat. Objects are walked down to `depth` levels to reach the arrays in envelopes (`{data: [...]}`).
 */
export function jsonBytes(value: unknown, depth = 2): Buffer {
  const out = new Utf8Writer(1024);
  if (!writeJson(out, value, depth)) throw new TypeError('jsonBytes: the value has no JSON (undefined)');
  return out.bytes();
}

/**
 * Plain objects (as literals and JSON.parse make them, or prototype-less ones as graphql-js does) without toJSON: their
 * JSON is their own keys', so they are walked key by key. Anything else (class instances, boxed primitives) is left to
 * JSON.stringify whole.
 */
function isRecord(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
}

/** Writes `value`'s JSON; false when it has none (undefined, a function), as JSON.stringify returns undefined. */
function writeJson(out: Utf8Writer, value: unknown, depth: number): boolean {
  if (Array.isArray(value)) {
    out.byte(0x5b); // [
    for (let i = 0; i < value.length; i++) {
      if (i) out.byte(COMMA);
      // An item without JSON is null in an array, as JSON.stringify writes it.
      out.text(JSON.stringify(value[i]) ?? 'null');
    }
    out.byte(0x5d); // ]
    return true;
  }
  if (!isRecord(value) || depth <= 0) {
    const text = JSON.stringify(value);
    if (text === undefined) return false;
    out.text(text);
    return true;
  }
  out.byte(0x7b); // {
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    const walked = Array.isArray(v) || (isRecord(v) && depth > 1);
    const text = walked ? '' : JSON.stringify(v);
    // A key whose value has no JSON is left out, as JSON.stringify leaves it out.
    if (text === undefined) continue;
    if (!first) out.byte(COMMA);
    first = false;
    out.text(`${JSON.stringify(key)}:`);
    if (walked) writeJson(out, v, depth - 1);
    else out.text(text);
  }
  out.byte(0x7d); // }
  return true;
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

/**
 * A JSON array a service wrote (its UTF-8 bytes) with how many items it holds: an interface that embeds it (the MCP
 * tool server, mcp/direct.ts) copies the bytes; JSON.stringify, which other paths use, writes the same array.
 */
export class EncodedList {
  constructor(
    readonly json: Buffer,
    readonly length: number,
  ) {}

  toJSON(): unknown {
    return JSON.parse(this.json.toString('utf8'));
  }
}
