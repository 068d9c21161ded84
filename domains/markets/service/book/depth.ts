// Liquidity measured on a book's levels: cumulative notional within bands around the mid (depth), and the price
// impact of a market order of a given notional (slippage).
import {
  addScaled,
  compareScaled,
  divideScaled,
  formatScaled,
  mulScaled,
  SCALED_ZERO,
  type Scaled,
  subScaled,
} from '../../../../platform/decimal.ts';
import { levelPx, levelSize, type PriceLevel } from './coin-book.ts';

export const DEPTH_BANDS_BPS = ['10', '25', '50', '100', '200', '500'] as const;
export type DepthBand = (typeof DEPTH_BANDS_BPS)[number];

export interface DepthAnswer {
  coin: string;
  time: number;
  midPx: string;
  depth: Record<DepthBand, { bidDepthUsd: string; askDepthUsd: string }>;
}

export interface SlippageAnswer {
  /** bps above the mid of the average price of a market buy; null when the asks cannot absorb the notional. */
  buyBps: string | null;
  /** bps below the mid of the average price of a market sell; null when the bids cannot absorb the notional. */
  sellBps: string | null;
}

/** Slippage answers are rounded (half away from zero) to this many decimals of a basis point. */
const BPS_DECIMALS = 4;

/** Cumulative notional (px × sz) of the levels at or inside each band's edge; `edges` ascending by band width. */
function bandNotionals(
  levels: readonly PriceLevel[],
  edges: readonly Scaled[],
  inside: (cmp: number) => boolean,
): Scaled[] {
  const sums = edges.map(() => SCALED_ZERO);
  const widest = edges[edges.length - 1];
  for (const level of levels) {
    const px = levelPx(level);
    if (!widest || !inside(compareScaled(px, widest))) break;
    const notional = mulScaled(px, levelSize(level));
    for (let i = 0; i < edges.length; i++) {
      if (inside(compareScaled(px, edges[i]!))) sums[i] = addScaled(sums[i]!, notional);
    }
  }
  return sums;
}

/** Cumulative notional of the levels within ±band bps of `mid` (edges inclusive), per band, printed. */
export function depthBands(
  bids: readonly PriceLevel[],
  asks: readonly PriceLevel[],
  mid: Scaled,
): DepthAnswer['depth'] {
  const bps = DEPTH_BANDS_BPS.map((b) => BigInt(b));
  // mid × (10000 ∓ bps) / 10000, exact.
  const lower = bps.map((b) => ({ units: mid.units * (10_000n - b), scale: mid.scale + 4 }));
  const upper = bps.map((b) => ({ units: mid.units * (10_000n + b), scale: mid.scale + 4 }));
  const bidSums = bandNotionals(bids, lower, (c) => c >= 0);
  const askSums = bandNotionals(asks, upper, (c) => c <= 0);
  const depth = {} as DepthAnswer['depth'];
  DEPTH_BANDS_BPS.forEach((band, i) => {
    depth[band] = { bidDepthUsd: formatScaled(bidSums[i]!), askDepthUsd: formatScaled(askSums[i]!) };
  });
  return depth;
}

/**
 * Price impact of a market order of `notional` quote units against `levels` (best first), in bps of `mid`:
 * the average fill price's distance from the mid, positive when worse than the mid. Null when the side is too thin.
 */
export function impactBps(
  levels: readonly PriceLevel[],
  notional: Scaled,
  mid: Scaled,
  side: 'buy' | 'sell',
): string | null {
  let remaining = notional;
  let qty = SCALED_ZERO;
  for (const level of levels) {
    const px = levelPx(level);
    const size = levelSize(level);
    const levelNotional = mulScaled(px, size);
    if (compareScaled(levelNotional, remaining) < 0) {
      remaining = subScaled(remaining, levelNotional);
      qty = addScaled(qty, size);
      continue;
    }
    // The last level fills remaining/px: avg = N / (qty + R/px) = N·px / (qty·px + R).
    const fillDen = addScaled(mulScaled(qty, px), remaining);
    const avgNum = mulScaled(notional, px);
    const midTimesDen = mulScaled(mid, fillDen);
    const diff = side === 'buy' ? subScaled(avgNum, midTimesDen) : subScaled(midTimesDen, avgNum);
    return divideScaled(mulScaled(diff, { units: 10_000n, scale: 0 }), midTimesDen, BPS_DECIMALS);
  }
  return null;
}
