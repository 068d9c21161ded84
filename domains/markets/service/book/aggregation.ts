// The L2 view of a side at nSigFigs/mantissa (the exchange's l2Book aggregation). The rule for those options is the
// input definitions' (service/inputs.ts L2_BOOK), which every edge reads a request through.

import { addScaled, formatScaled, pow10, SCALED_ZERO, scaled } from '../../../../platform/decimal.ts';
import { FieldError } from '../../../../platform/fields.ts';
import { type L2Level, levelSize, type PriceLevel, type Side, toWireLevel } from './coin-book.ts';

/** How a book is aggregated; absent and null both mean none. */
export interface L2Options {
  /** Significant figures of the aggregated prices, 2 to 5 (L2_BOOK checked it). */
  nSigFigs?: number | null;
  /** Only with nSigFigs 5. */
  mantissa?: 1 | 2 | 5 | null;
  /** Levels per side, counted after aggregation; default 20 (the exchange's `fast` book: 5). */
  levels?: number;
}

/** A book query the exchange would refuse (bad nSigFigs/mantissa, bad notional): the caller's mistake. */
export class BookQueryError extends FieldError {
  override name = 'BookQueryError';
}

const DEFAULT_LEVELS = 20;

/** Aggregation options with their defaults: no aggregation (nSigFigs null), no mantissa, 20 levels. */
export interface CheckedL2Options {
  nSigFigs: number | null;
  mantissa: 1 | 2 | 5 | null;
  levels: number;
}

/** The options with their defaults filled. */
export function l2Options(opts: L2Options): CheckedL2Options {
  return { nSigFigs: opts.nSigFigs ?? null, mantissa: opts.mantissa ?? null, levels: opts.levels ?? DEFAULT_LEVELS };
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
