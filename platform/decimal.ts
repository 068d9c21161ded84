// Exact arithmetic on decimal strings ("90000.5", "-0.01"), and exact rationals for the few divisions money needs
// (VWAP, entry prices, ratios): money never becomes a float on the way through.
import { FieldError } from './fields.ts';

function scaleOf(s: string): number {
  const i = s.indexOf('.');
  return i < 0 ? 0 : s.length - i - 1;
}

function toScaled(s: string, scale: number): bigint {
  const own = scaleOf(s);
  return BigInt(s.replace('.', '')) * 10n ** BigInt(scale - own);
}

function fromScaled(value: bigint, scale: number): string {
  const neg = value < 0n;
  const digits = (neg ? -value : value).toString().padStart(scale + 1, '0');
  const out = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${out}` : out;
}

export function addDecimal(a: string, b: string): string {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  return fromScaled(toScaled(a, scale) + toScaled(b, scale), scale);
}

export function mulDecimal(a: string, b: string): string {
  return fromScaled(BigInt(a.replace('.', '')) * BigInt(b.replace('.', '')), scaleOf(a) + scaleOf(b));
}

/** -1, 0 or 1, exactly. */
export function compareDecimal(a: string, b: string): number {
  const scale = Math.max(scaleOf(a), scaleOf(b));
  const x = toScaled(a, scale);
  const y = toScaled(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

export function isDecimal(s: unknown): s is string {
  return typeof s === 'string' && DECIMAL_TEXT.test(s);
}

/** "0.8100" → "0.81", "12.000" → "12.0", "-0.0" → "0.0": the exchange prints at least one fractional digit. */
export function trimDecimal(s: string): string {
  let out = s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '.0') : `${s}.0`;
  if (/^-0(\.0)?$/.test(out)) out = '0.0';
  return out;
}

// ---- exact rationals (bigint numerator / positive bigint denominator) ----

export interface Ratio {
  n: bigint;
  d: bigint;
}

export const ZERO: Ratio = { n: 0n, d: 1n };

export function ratio(dec: string): Ratio {
  if (!isDecimal(dec)) throw new FieldError(`not a decimal number: ${dec}`);
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
