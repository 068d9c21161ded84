// Exact arithmetic on decimal strings ("90000.5", "-0.01"): money never becomes a float on the way through.

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
