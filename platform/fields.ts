// Field readers that check untrusted JSON as they read it and name the field and the rule when it is wrong. Ingest
// uses them on node lines (anything COPY would reject is caught, so a bad line is reported and skipped instead
// of failing its batch); the domain services and compat's path parameters use them on requests (an /info body is
// checked by its JSON Schema, kit/request-schema.ts).
import type { ErrorCode } from './error-codes.ts';

/** The kinds of bad input (platform/error-codes.ts): all a 400, told apart for clients that act on them. */
export type BadInputCode = Extract<ErrorCode, 'bad_input' | 'unknown_parameter' | 'unknown_type' | 'malformed_json'>;

/**
 * The one input-error type: a caller's bad input, the message naming the field and the rule, and its kind (`code`).
 * Field checks and the domain services throw it (or a subclass of it); each edge maps it once: compat to a 400 error
 * body (kit/envelopes.ts), /ws to its error frame (ws/session.ts), GraphQL to an error with code BAD_USER_INPUT
 * (kit/serve.ts), MCP to a tool error (mcp/server.ts).
 */
export class FieldError extends Error {
  constructor(
    message: string,
    readonly code: BadInputCode = 'bad_input',
  ) {
    super(message);
  }
}

type Obj = Record<string, unknown>;

const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/** A 0x address of 40 hex digits, any case: the one pattern, also as the JSON Schema `pattern` of compat's routes. */
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';
const ADDRESS = new RegExp(ADDRESS_PATTERN);
export const isAddress = (v: unknown): v is string => typeof v === 'string' && ADDRESS.test(v);

declare const lowercase: unique symbol;
/**
 * An address in its normal form, lowercase: what reading one makes of it (`address` here, an input definition's
 * field, kit/input.ts). A service taking an Address compares and queries it as it is, without lowercasing it again.
 */
export type Address = string & { readonly [lowercase]: true };

function fail(key: string, rule: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new FieldError(`${key}: ${rule}, got ${shown === undefined ? 'nothing' : shown.slice(0, 60)}`);
}

export function object(value: unknown, key: string): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(key, 'must be an object', value);
  return value as Obj;
}

export function array(value: unknown, key: string): unknown[] {
  if (!Array.isArray(value)) fail(key, 'must be an array', value);
  return value;
}

/**
 * Text that may reach Postgres: it cannot hold U+0000 (no text column or parameter can), so a NUL is refused here,
 * naming the field, rather than by the server as a failed statement. Path and query parameters go through it too.
 */
export function noNul(v: string, key: string): string {
  if (v.includes('\u0000')) fail(key, 'must not contain a NUL character (U+0000)', v);
  return v;
}

export function str(o: Obj, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') fail(key, 'must be a string', v);
  return noNul(v, key);
}

export function optStr(o: Obj, key: string): string | null {
  const v = o[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') fail(key, 'must be a string or null', v);
  return noNul(v, key);
}

export function dec(o: Obj, key: string): string {
  const v = o[key];
  if (typeof v === 'string' && DECIMAL.test(v)) return v;
  // Some writers print small values as JSON numbers; accept those that have a plain decimal form.
  if (typeof v === 'number' && DECIMAL.test(String(v))) return String(v);
  return fail(key, 'must be a decimal string', v);
}

export function optDec(o: Obj, key: string): string | null {
  const v = o[key];
  return v === undefined || v === null || v === '' ? null : dec(o, key);
}

export function int(o: Obj, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) fail(key, 'must be an integer', v);
  return v;
}

export function optInt(o: Obj, key: string): number | null {
  const v = o[key];
  return v === undefined || v === null ? null : int(o, key);
}

export function bool(o: Obj, key: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') fail(key, 'must be a boolean', v);
  return v;
}

/** A 0x address, lowercased (the API prints addresses lowercase). */
export function address(o: Obj, key: string): Address {
  const v = o[key];
  if (!isAddress(v)) fail(key, 'must be a 0x address', v);
  return v.toLowerCase() as Address;
}

export function addressValue(v: unknown, key: string): Address {
  return address({ [key]: v }, key);
}

export function side(o: Obj, key: string): 'A' | 'B' {
  const v = o[key];
  if (v === 'A' || v === 'Ask') return 'A';
  if (v === 'B' || v === 'Bid') return 'B';
  return fail(key, 'must be "A" or "B"', v);
}

/** The node's ISO-ns time text → epoch ms. */
export function isoTime(o: Obj, key: string, parse: (text: string) => number): number {
  const ms = parse(str(o, key));
  if (Number.isNaN(ms)) fail(key, 'must be an ISO-8601 time', o[key]);
  return ms;
}

// ---- request rules the /info schemas cannot state (kit/request-schema.ts states the rest) ----

/** An integer a service bounds (a limit, a number of days): whole and from `min` to `max`. */
export function intWithin(key: string, v: number, min: number, max: number): number {
  if (!Number.isSafeInteger(v) || v < min || v > max) {
    throw new FieldError(`${key}: must be an integer from ${min} to ${max}`);
  }
  return v;
}

/** The last instant a JavaScript Date holds (year 275760): later epoch ms are no time the service can compute with. */
export const MAX_TIME_MS = 8_640_000_000_000_000;

/** A time window's start must not be after its end (either may be absent); the message names both fields. */
export function orderedWindow(
  startKey: string,
  start: number | undefined,
  end: number | undefined,
  endKey = 'endTime',
): void {
  if (start !== undefined && end !== undefined && start > end) {
    throw new FieldError(`${startKey}: must not be after ${endKey}`);
  }
}
