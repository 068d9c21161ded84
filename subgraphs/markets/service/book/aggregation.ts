// The L2 view of a side at nSigFigs/mantissa (the exchange's l2Book aggregation), and the rule for those options:
// every edge (/info, /ws, GraphQL) checks them here, with these messages.

import { addScaled, formatScaled, pow10, SCALED_ZERO, scaled } from '../../../../platform/decimal.ts';
import { FieldError } from '../../../../platform/fields.ts';
import { type L2Level, levelSize, type PriceLevel, type Side, toWireLevel } from './coin-book.ts';

export interface L2Options {
  nSigFigs?: 2 | 3 | 4 | 5 | null;
  /** Only with nSigFigs 5. */
  mantissa?: 1 | 2 | 5 | null;
  /** Levels per side, counted after aggregation; default 20. */
  levels?: number;
}

/** A book query the exchange would refuse (bad nSigFigs/mantissa/levels, bad notional): the caller's mistake. */
export class BookQueryError extends FieldError {
  override name = 'BookQueryError';
}

const DEFAULT_LEVELS = 20;
const N_SIG_FIGS = [2, 3, 4, 5] as const;
const MANTISSAS = [1, 2, 5] as const;

/** Checked aggregation options with their defaults: no aggregation (nSigFigs null), mantissa 1, 20 levels. */
export interface CheckedL2Options {
  nSigFigs: 2 | 3 | 4 | 5 | null;
  mantissa: 1 | 2 | 5 | null;
  levels: number;
}

/** Aggregation options as a caller sent them, unchecked. */
export type L2OptionsInput = { nSigFigs?: unknown; mantissa?: unknown; levels?: unknown };

/**
 * The l2Book options rule, on values as a caller sent them (null and absent both mean none): nSigFigs 2 to 5;
 * mantissa 1, 2 or 5, and only with nSigFigs 5; levels a positive integer. BookQueryError names the field.
 */
export function l2Options(raw: L2OptionsInput): CheckedL2Options {
  const nSigFigs = raw.nSigFigs ?? null;
  const mantissa = raw.mantissa ?? null;
  const levels = raw.levels ?? DEFAULT_LEVELS;
  if (nSigFigs !== null && !N_SIG_FIGS.includes(nSigFigs as 2)) {
    throw new BookQueryError(`nSigFigs: must be an integer from 2 to 5, got ${JSON.stringify(nSigFigs)}`);
  }
  if (mantissa !== null) {
    if (!MANTISSAS.includes(mantissa as 1)) {
      throw new BookQueryError(`mantissa: must be 1, 2 or 5, got ${JSON.stringify(mantissa)}`);
    }
    if (nSigFigs !== 5) throw new BookQueryError('mantissa: only with nSigFigs 5');
  }
  if (!Number.isInteger(levels) || (levels as number) < 1) {
    throw new BookQueryError(`levels: must be a positive integer, got ${JSON.stringify(levels)}`);
  }
  return {
    nSigFigs: nSigFigs as CheckedL2Options['nSigFigs'],
    mantissa: mantissa as CheckedL2Options['mantissa'],
    levels: levels as number,
  };
}

/**
 * The bucket a price falls in when the book is shown to `nSigFigs` significant figures: bucket width is
 * mantissa × 10^(magnitude of the nSigFigs-th significant digit); bids round down and asks round up, so a bucket
 * never shows a better price than the orders in it (90123 at 2 figures: bid 90000, ask 91000).
 */
function bucketPx(px: string, side: Side, nSigFigs: number, mantissa: number): string {
  const d = scaled(px);
  if (d.units === 0n) return px;
  // Width exponent in units of 10^-scale: significant digits of the units minus the figures to keep.
  const exponent = d.units.toString().length - nSigFigs;
  // A price with fewer significant digits than asked for already sits on a bucket edge (m divides 10).
  if (exponent < 0) return px;
  const width = BigInt(mantissa) * pow10(exponent);
  const floor = (d.units / width) * width;
  const units = side === 'B' || floor === d.units ? floor : floor + width;
  return formatScaled({ units, scale: d.scale });
}

/** The first `opts.levels` L2 levels of one side's levels (best first), bucketed when nSigFigs is set. */
export function aggregate(levels: readonly PriceLevel[], side: Side, opts: CheckedL2Options): L2Level[] {
  const { nSigFigs, levels: max } = opts;
  const mantissa = opts.mantissa ?? 1;
  const out: L2Level[] = [];
  if (nSigFigs === null) {
    for (let i = 0; i < levels.length && i < max; i++) out.push(toWireLevel(levels[i]!));
    return out;
  }
  let px = '';
  let size = SCALED_ZERO;
  let n = 0;
  for (const level of levels) {
    const bucket = bucketPx(level.px, side, nSigFigs, mantissa);
    if (bucket !== px) {
      if (n) out.push({ px, sz: formatScaled(size), n });
      if (out.length === max) return out;
      px = bucket;
      size = SCALED_ZERO;
      n = 0;
    }
    size = addScaled(size, levelSize(level));
    n += level.orders.size;
  }
  if (n) out.push({ px, sz: formatScaled(size), n });
  return out;
}
