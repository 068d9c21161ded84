// What the accounts queries share: the query error, exact rationals for the few divisions money needs (VWAP,
// entry price, ratios) and the textual forms of decimals and times the wire uses.
import { FieldError } from '../../../platform/fields.ts';

/** A query the service refuses (bad cursor, limit over its cap…): a FieldError, so callers answer it with a 400. */
export class InvalidQueryError extends FieldError {
  override readonly name = 'InvalidQueryError';
}

export const ZERO_HASH = `0x${'0'.repeat(64)}`;

const DECIMAL = /^-?\d+(\.\d+)?$/;

export function isDecimal(s: unknown): s is string {
  return typeof s === 'string' && DECIMAL.test(s);
}

/** "0.8100" → "0.81", "12.000" → "12.0", "-0.0" → "0.0": the exchange prints at least one fractional digit. */
export function trimDecimal(s: string): string {
  let out = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '.0') : `${s}.0`;
  if (/^-0(\.0)?$/.test(out)) out = '0.0';
  return out;
}

/** A number the caller typed (e.g. a dollar threshold) as a plain decimal string, never exponent notation. */
export function decimalOf(v: number | string): string {
  if (typeof v === 'string') {
    if (!isDecimal(v)) throw new InvalidQueryError(`not a decimal number: ${v}`);
    return v;
  }
  if (!Number.isFinite(v)) throw new InvalidQueryError(`not a finite number: ${v}`);
  const s = String(v);
  return /e/i.test(s) ? v.toFixed(20) : s;
}

// ---- exact rationals (bigint numerator / positive bigint denominator) ----

export interface Ratio {
  n: bigint;
  d: bigint;
}

export const ZERO: Ratio = { n: 0n, d: 1n };

export function ratio(dec: string): Ratio {
  if (!isDecimal(dec)) throw new InvalidQueryError(`not a decimal number: ${dec}`);
  const i = dec.indexOf('.');
  const scale = i < 0 ? 0 : dec.length - i - 1;
  return { n: BigInt(dec.replace('.', '')), d: 10n ** BigInt(scale) };
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y) [x, y] = [y, x % y];
  return x;
}

/** Reduced, so that long chains (an entry price over thousands of fills) keep small numbers. */
function norm(n: bigint, d: bigint): Ratio {
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

export const add = (a: Ratio, b: Ratio): Ratio =>
  a.d === b.d ? norm(a.n + b.n, a.d) : norm(a.n * b.d + b.n * a.d, a.d * b.d);
export const sub = (a: Ratio, b: Ratio): Ratio => add(a, { n: -b.n, d: b.d });
export const mul = (a: Ratio, b: Ratio): Ratio => norm(a.n * b.n, a.d * b.d);
export const abs = (a: Ratio): Ratio => ({ n: a.n < 0n ? -a.n : a.n, d: a.d });
export const sign = (a: Ratio): -1 | 0 | 1 => (a.n < 0n ? -1 : a.n > 0n ? 1 : 0);

export function div(a: Ratio, b: Ratio): Ratio {
  if (b.n === 0n) throw new RangeError('division by zero');
  return norm(a.n * b.d, a.d * b.n);
}

export function cmp(a: Ratio, b: Ratio): -1 | 0 | 1 {
  return sign(sub(a, b));
}

/** Rounded half away from zero to `scale` fractional digits, then trimmed ("93604.0", "0.123457"). */
export function toDecimal(r: Ratio, scale: number): string {
  const unit = 10n ** BigInt(scale);
  const neg = r.n < 0n;
  const n = (neg ? -r.n : r.n) * unit;
  let q = n / r.d;
  if ((n % r.d) * 2n >= r.d) q += 1n;
  const digits = q.toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return trimDecimal(neg && q !== 0n ? `-${text}` : text);
}

// ---- times ----

/** Epoch ms → "2026-11-22T07:00:00.123Z": ISO 8601 with exact milliseconds (compact fill rows). */
export function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** Epoch ms → "2026-11-22T07:00:00.123": the naive UTC form path-endpoint records use. */
export function naiveIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23);
}

/** Integers a caller passes as limits and days: whole and within [min, max], else a 400. */
export function checkInt(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new InvalidQueryError(`${name} must be an integer from ${min} to ${max}, got ${v}`);
  }
  return v;
}
