// What the accounts queries share: the query error, and the textual forms of numbers and times the wire uses.
import { isDecimal } from '../../../platform/decimal.ts';
import { FieldError } from '../../../platform/fields.ts';

/** A query the service refuses (bad cursor, limit over its cap…): a FieldError, so callers answer it with a 400. */
export class InvalidQueryError extends FieldError {
  override readonly name = 'InvalidQueryError';
}

const PG_BIGINT_MAX = 2n ** 63n - 1n;

/** Digits that fit Postgres's bigint (the oids, tids and times cursors carry); larger ones would fail the statement. */
export function fitsBigint(digits: string): boolean {
  return /^\d{1,19}$/.test(digits) && BigInt(digits) <= PG_BIGINT_MAX;
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

// ---- times ----

/** Epoch ms → the naive UTC ISO text of the service's records (compact fill rows, account state). */

/** Integers a caller passes as limits and days: whole and within [min, max], else a 400. */
export function checkInt(name: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new InvalidQueryError(`${name}: must be an integer from ${min} to ${max}, got ${v}`);
  }
  return v;
}
