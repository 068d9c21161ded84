// The market makers: each touched market keeps a post-only ladder of quotes a half spread around its fair price,
// cancelled and replaced only when it goes stale or thin.
import type { Account } from './account.ts';
import type { Exchange } from './exchange.ts';
import type { Market, RestingOrder } from './market.ts';
import { rest } from './orders.ts';
import { cancelResting } from './statuses.ts';

export function requote(x: Exchange, m: Market): void {
  if (x.makers.length === 0) return;
  const scale = m.pxScale;
  const fair = m.fair;
  const step = Math.max(1, Math.round(fair * m.levelStep * scale));
  const maxTick = m.kind === 'outcome' ? scale - 1 : Number.MAX_SAFE_INTEGER;
  const topBid = Math.min(maxTick - 1, Math.max(1, Math.floor(fair * (1 - m.halfSpread) * scale)));
  const topAsk = Math.min(maxTick, Math.max(topBid + 1, Math.ceil(fair * (1 + m.halfSpread) * scale)));
  // Quotes may lag the fair price by a half spread before they are pulled: fewer cancels, as real makers do.
  const bidCeiling = fair * (1 + m.halfSpread) * scale;
  const askFloor = fair * (1 - m.halfSpread) * scale;
  let hash: string | null = null;
  let maker: Account | null = null;
  for (const isBuy of [true, false]) {
    const side = isBuy ? m.bids : m.asks;
    const top = isBuy ? topBid : topAsk;
    if (quotesHealthy(side, isBuy, top, step, m.levels)) continue;
    let filledLevels = 0;
    for (let i = 0; i < side.length; i++) {
      const o = side[i]!;
      if (!o.isQuote) continue;
      const distance = isBuy ? top - o.px : o.px - top;
      const stale = isBuy ? o.px > bidCeiling : o.px < askFloor;
      if (stale || distance >= (m.levels + 1) * step) {
        cancelResting(x, o, 'canceled', x.rng.txHash());
        i--;
        continue;
      }
      const level = Math.max(0, Math.round(distance / step));
      if (level < m.levels) filledLevels |= 1 << level;
    }
    for (let level = 0; level < m.levels; level++) {
      if (filledLevels & (1 << level)) continue;
      let px = isBuy ? top - level * step : top + level * step;
      // Post-only: never lock or cross the other side.
      const opposite = isBuy ? m.asks[0] : m.bids[0];
      if (opposite && (isBuy ? px >= opposite.px : px <= opposite.px)) px = isBuy ? opposite.px - 1 : opposite.px + 1;
      if (px < 1 || px > maxTick) continue;
      hash ??= x.rng.txHash();
      maker ??= x.rng.pick(x.makers);
      const price = px / scale;
      const lots = Math.max(
        Math.ceil((11 / price) * m.szScale),
        Math.round(((m.levelNotional * x.rng.range(0.5, 1.5)) / price) * m.szScale),
      );
      const cloid = x.rng.chance(x.quoteCloidChance) ? x.rng.cloid() : null;
      rest(x, maker, m, isBuy, px, lots, lots, 'Alo', cloid, null, hash, true);
    }
  }
}

/**
 * A side needs no requote while it still has a full ladder whose best quote is within three levels of where it
 * would be placed now: makers tolerate small moves instead of cancelling on every tick.
 */
function quotesHealthy(side: RestingOrder[], isBuy: boolean, top: number, step: number, levels: number): boolean {
  let quotes = 0;
  let best = -1;
  for (const o of side) {
    if (!o.isQuote) continue;
    if (quotes === 0) best = o.px;
    quotes++;
  }
  if (quotes < levels) return false;
  const lag = isBuy ? top - best : best - top;
  return lag >= -step && lag <= 3 * step;
}
