// Decimal text as the exchange prints it: "90000.0", "0.01", "-0.009". Prices and sizes are kept as integer
// units (px × 10^pxDecimals) so their text is exact; derived amounts (fees, PnL) are floats rounded on output.

export const POW10: readonly number[] = Array.from({ length: 19 }, (_, i) => 10 ** i);

/** Integer `units` scaled by 10^-decimals → shortest text with at least one fractional digit. */
export function fmtUnits(units: number, decimals: number): string {
  if (decimals === 0) return `${units}.0`;
  const negative = units < 0;
  let digits = String(negative ? -units : units);
  if (digits.length <= decimals) digits = '0'.repeat(decimals - digits.length + 1) + digits;
  const cut = digits.length - decimals;
  let end = digits.length;
  while (end > cut + 1 && digits.charCodeAt(end - 1) === 48) end--;
  const text = `${digits.slice(0, cut)}.${digits.slice(cut, end)}`;
  return negative ? `-${text}` : text;
}

/** A float rounded to `decimals` places, printed like fmtUnits ("0.0" for zero, never "-0.0"). */
export function fmtNum(value: number, decimals: number): string {
  const units = Math.round(value * POW10[decimals]!);
  if (units === 0 || !Number.isFinite(units)) return '0.0';
  if (Math.abs(units) > Number.MAX_SAFE_INTEGER) return value.toFixed(Math.min(decimals, 2));
  return fmtUnits(units, decimals);
}

/** A rate or ratio with `significant` significant digits (funding rates like "0.0000125"). */
export function fmtRate(value: number, significant = 6): string {
  if (value === 0 || !Number.isFinite(value)) return '0.0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.min(18, Math.max(1, significant - 1 - magnitude));
  return fmtNum(value, decimals);
}

/** Raw integer token amount (EVM wei-like units) from a float amount of whole tokens. */
export function toRawUnits(amount: number, decimals: number): bigint {
  const whole = Math.floor(amount);
  const fraction = Math.round((amount - whole) * 1e6);
  const scale = 10n ** BigInt(decimals);
  const fractionRaw =
    decimals >= 6 ? BigInt(fraction) * 10n ** BigInt(decimals - 6) : BigInt(fraction) / 10n ** BigInt(6 - decimals);
  return BigInt(whole) * scale + fractionRaw;
}
