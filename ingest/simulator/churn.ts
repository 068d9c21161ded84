// Order statuses at a set rate (mainnet profile, `orderStatusesPerSecond`): a node writes ~10 k statuses a second,
// most of them market makers placing post-only orders and cancelling them within seconds. Each block, the statuses
// its orders wrote are topped up to the rate with such orders: placed away from the top of the book (so they seldom
// trade), cancelled 0.2–3 s later, each with its `open` and `canceled` status and raw book diffs.
import type { Exchange } from './exchange.ts';
import type { Market, RestingOrder } from './market.ts';
import { rest } from './orders.ts';
import { Rng } from './rng.ts';
import { cancelResting } from './statuses.ts';

/** The seed's stream for the churn (see Rng `stream`). */
const CHURN_STREAM = 10;

export class OrderChurn {
  private readonly rng: Rng;
  private target = 0;
  private actual = 0;
  /** Churn orders on the books, oldest first, with when each is cancelled. */
  private readonly live: RestingOrder[] = [];
  private readonly cancelAt: number[] = [];
  private pickerVersion = -1;
  private markets: Market[] = [];
  private cumulative = new Float64Array(0);

  constructor(
    private readonly x: Exchange,
    private readonly statusesPerSecond: number,
    seed: number,
  ) {
    this.rng = new Rng(seed, CHURN_STREAM);
  }

  /** At the end of a block: cancels what is due, then places orders until the block's statuses meet the rate. */
  step(elapsedMs: number): void {
    const x = this.x;
    this.target += (this.statusesPerSecond * elapsedMs) / 1000;
    while (this.live.length > 0 && this.cancelAt[0]! <= x.now) {
      const order = this.live.shift()!;
      this.cancelAt.shift();
      // Gone already when it traded, or a trader's order pushed it off a full side.
      if (order.user.orders[order.slot] === order) cancelResting(x, order, 'canceled', this.rng.txHash());
    }
    this.actual += x.ev.statuses.length;
    if (x.makers.length === 0) return;
    for (let guard = 0; this.actual < this.target && guard < 1000; guard++) {
      if (this.place()) this.actual++;
    }
  }

  private place(): boolean {
    const x = this.x;
    const rng = this.rng;
    const m = this.pickMarket();
    const isBuy = rng.chance(0.5);
    const away = rng.range(0.002, 0.02);
    const px = isBuy ? Math.floor(m.fair * (1 - away) * m.pxScale) : Math.ceil(m.fair * (1 + away) * m.pxScale);
    const opposite = isBuy ? m.asks[0] : m.bids[0];
    if (px < 1 || (opposite && (isBuy ? px >= opposite.px : px <= opposite.px))) return false;
    const lots = Math.max(
      Math.ceil((11 / m.fair) * m.szScale),
      Math.round(((m.levelNotional * rng.range(0.2, 1)) / m.fair) * m.szScale),
    );
    const maker = x.makers[rng.int(x.makers.length)]!;
    const cloid = rng.chance(x.quoteCloidChance) ? rng.cloid() : null;
    this.live.push(rest(x, maker, m, isBuy, px, lots, lots, 'Alo', cloid, null, rng.txHash(), false));
    this.cancelAt.push(x.now + rng.range(200, 3000));
    return true;
  }

  /** Perp and spot markets by weight (outcome books are left to their own makers). */
  private pickMarket(): Market {
    const x = this.x;
    if (this.pickerVersion !== x.marketsVersion) {
      this.markets = x.markets.filter((m) => m.kind !== 'outcome');
      this.cumulative = new Float64Array(this.markets.length);
      let total = 0;
      this.markets.forEach((m, i) => {
        total += m.weight;
        this.cumulative[i] = total;
      });
      this.pickerVersion = x.marketsVersion;
    }
    return this.markets[this.rng.weighted(this.cumulative)]!;
  }
}
