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

/**
 * "0.8100" → "0.81", "12.000" → "12.0", "12" → "12.0", "-0.0" → "0.0": the exchange prints at least one fractional
 * digit. Without a regular expression: the order books print every diff's price through it.
 */
export function trimDecimal(s: string): string {
  const dot = s.indexOf('.');
  if (dot < 0) return s === '-0' ? '0.0' : `${s}.0`;
  let end = s.length;
  while (end > dot + 2 && s.charCodeAt(end - 1) === 48) end--;
  const out = end === dot + 1 ? `${s}0` : end === s.length ? s : s.slice(0, end);
  return out === '-0.0' ? '0.0' : out;
}

// ---- scaled decimals (units × 10^-scale) ----
// Exact sums, products and comparisons without a string round trip per step, for the hot paths (the order books
// sum sizes and notionals level by level); printed by the exchange's rule.

export interface Scaled {
  units: bigint;
  scale: number;
}

export const SCALED_ZERO: Scaled = { units: 0n, scale: 0 };

const POW10: bigint[] = [1n];
/** 10^n, memoized: scales are small and repeat. */
export function pow10(n: number): bigint {
  for (let i = POW10.length; i <= n; i++) POW10.push((POW10[i - 1] as bigint) * 10n);
  return POW10[n] as bigint;
}

/** A decimal string ("90000.5") as units and scale; the text is trusted (checked where it entered). */
export function scaled(text: string): Scaled {
  const dot = text.indexOf('.');
  return dot < 0
    ? { units: BigInt(text), scale: 0 }
    : { units: BigInt(text.slice(0, dot) + text.slice(dot + 1)), scale: text.length - dot - 1 };
}

function unitsAt(d: Scaled, scale: number): bigint {
  return scale === d.scale ? d.units : d.units * pow10(scale - d.scale);
}

export function addScaled(a: Scaled, b: Scaled): Scaled {
  const scale = Math.max(a.scale, b.scale);
  return { units: unitsAt(a, scale) + unitsAt(b, scale), scale };
}

export function subScaled(a: Scaled, b: Scaled): Scaled {
  const scale = Math.max(a.scale, b.scale);
  return { units: unitsAt(a, scale) - unitsAt(b, scale), scale };
}

export function mulScaled(a: Scaled, b: Scaled): Scaled {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** -1, 0 or 1, exactly. */
export function compareScaled(a: Scaled, b: Scaled): number {
  const scale = Math.max(a.scale, b.scale);
  const x = unitsAt(a, scale);
  const y = unitsAt(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Printed exactly, by the exchange's rule (trailing zeros stripped, at least one fractional digit). */
export function formatScaled(d: Scaled): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const cut = digits.length - d.scale;
  let end = digits.length;
  while (end > cut && digits.charCodeAt(end - 1) === 48) end--;
  const text = `${digits.slice(0, cut)}.${end > cut ? digits.slice(cut, end) : '0'}`;
  return negative ? `-${text}` : text;
}

/** x / y rounded half away from zero to `places` fractional digits, printed by the exchange's rule. */
export function divideScaled(x: Scaled, y: Scaled, places: number): string {
  let num = x.units;
  let den = y.units;
  const shift = y.scale - x.scale + places;
  if (shift >= 0) num *= pow10(shift);
  else den *= pow10(-shift);
  if (den < 0n) {
    num = -num;
    den = -den;
  }
  const negative = num < 0n;
  const abs = negative ? -num : num;
  let q = abs / den;
  if ((abs % den) * 2n >= den) q += 1n;
  return formatScaled({ units: negative ? -q : q, scale: places });
}

// ---- exact rationals (bigint numerator / positive bigint denominator) ----
// A decimal read from text keeps its scale (`s`: d = 10^s, not reduced), and sums, differences and products of such
// decimals stay decimals at the larger (or summed) scale: no gcd, which was most of the cost of a long walk of
// additions (the analytics derivation adds every fill, fee and funding payment). A division gives a reduced ratio;
// mixing one with a decimal takes the general path. The value is the same either way, and so is every result printed.

export interface Ratio {
  readonly n: bigint;
  readonly d: bigint;
  /** Set on a decimal: d = 10^s. */
  readonly s?: number;
}

/** n × 10^-s. */
const decimalOf = (n: bigint, s: number): Ratio => ({ n, d: pow10(s), s });

export const ZERO: Ratio = decimalOf(0n, 0);

export function ratio(dec: string): Ratio {
  if (!isDecimal(dec)) throw new FieldError(`not a decimal number: ${dec}`);
  const i = dec.indexOf('.');
  return i < 0 ? decimalOf(BigInt(dec), 0) : decimalOf(BigInt(dec.slice(0, i) + dec.slice(i + 1)), dec.length - i - 1);
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

export function add(a: Ratio, b: Ratio): Ratio {
  const as = a.s;
  const bs = b.s;
  if (as !== undefined && bs !== undefined) {
    if (as === bs) return decimalOf(a.n + b.n, as);
    return as > bs ? decimalOf(a.n + b.n * pow10(as - bs), as) : decimalOf(a.n * pow10(bs - as) + b.n, bs);
  }
  return a.d === b.d ? norm(a.n + b.n, a.d) : norm(a.n * b.d + b.n * a.d, a.d * b.d);
}
export const neg = (a: Ratio): Ratio => (a.s === undefined ? { n: -a.n, d: a.d } : decimalOf(-a.n, a.s));
export const sub = (a: Ratio, b: Ratio): Ratio => add(a, neg(b));
export const mul = (a: Ratio, b: Ratio): Ratio =>
  a.s !== undefined && b.s !== undefined ? decimalOf(a.n * b.n, a.s + b.s) : norm(a.n * b.n, a.d * b.d);
export const abs = (a: Ratio): Ratio => (a.n < 0n ? neg(a) : a);
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
  // A decimal within the scale prints as it is (the rounding below would change nothing).
  if (r.s !== undefined && r.s <= scale) return trimDecimal(fromScaled(r.n, r.s));
  const unit = pow10(scale);
  const neg = r.n < 0n;
  const n = (neg ? -r.n : r.n) * unit;
  let q = n / r.d;
  if ((n % r.d) * 2n >= r.d) q += 1n;
  const digits = q.toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return trimDecimal(neg && q !== 0n ? `-${text}` : text);
}
