// A liquidation cascade minute on demand (mainnet profile; `--cascade-at`, SIM_CASCADE_AT): for 60 s from each
// given time every perp falls (`cascadeDrop` over the minute), margins are checked every second, and liquidations
// through the book and panic market orders keep the fills at `cascadeFillsPerSecond` (E: 1.5–4 k/s sustained over
// a minute on 2025-10-10). Its fills are outside the rate controller's count, so the ordinary rate resumes after it.
import type { Account, PerpPosition } from './account.ts';
import type { Exchange } from './exchange.ts';
import type { Market } from './market.ts';
import { placeMarket } from './orders.ts';
import type { MainnetProfile } from './profile.ts';
import type { RiskEngine } from './risk.ts';

export const CASCADE_MS = 60_000;

export class Cascade {
  private next = 0;
  /** Fills of the current cascade so far. */
  private produced = 0;
  private lastMarginSecond = 0;
  /** Long positions at the cascade's start, to be liquidated in turn. */
  private longs: [Account, PerpPosition][] = [];
  private cumulative = new Float64Array(0);

  constructor(
    private readonly x: Exchange,
    private readonly risk: RiskEngine,
    private readonly profile: MainnetProfile,
    private readonly starts: readonly number[],
  ) {}

  /** The cascade's work in this block (none outside a cascade minute); returns the fills it wrote. */
  step(elapsedMs: number): number {
    const x = this.x;
    const now = x.now;
    while (this.next < this.starts.length && now >= this.starts[this.next]! + CASCADE_MS) {
      this.next++;
      this.produced = 0;
    }
    const start = this.starts[this.next];
    if (start === undefined || now < start) return 0;
    if (this.produced === 0) this.begin();
    const before = x.ev.fills.length;
    const factor = Math.exp((-this.profile.cascadeDrop * Math.min(elapsedMs, now - start)) / CASCADE_MS);
    for (const m of x.perps) {
      m.advance(now, x.rng);
      m.shock(factor);
    }
    const second = Math.floor(now / 1000);
    if (second !== this.lastMarginSecond) {
      this.lastMarginSecond = second;
      this.risk.checkMargins();
    }
    const owed = (this.profile.cascadeFillsPerSecond * (now - start)) / 1000 - this.produced;
    const rng = x.rng;
    for (let guard = 0; x.ev.fills.length - before < owed && guard < 20_000; guard++) {
      if (!(rng.chance(this.profile.cascadeLiquidationShare) && this.liquidateNext())) this.panic();
    }
    const fills = x.ev.fills.length - before;
    this.produced += Math.max(1, fills);
    return fills;
  }

  private begin(): void {
    const x = this.x;
    this.longs = [];
    for (const account of x.traders) {
      for (const pos of account.positions.values()) if (pos.szi > 0) this.longs.push([account, pos]);
    }
    // Largest last: popped first.
    this.longs.sort((a, b) => a[1].szi * a[1].market.fair - b[1].szi * b[1].market.fair);
    this.cumulative = new Float64Array(x.perps.length);
    let total = 0;
    x.perps.forEach((m, i) => {
      total += m.weight;
      this.cumulative[i] = total;
    });
  }

  /** Liquidates the next long still open; false when none is left. */
  private liquidateNext(): boolean {
    for (let entry = this.longs.pop(); entry; entry = this.longs.pop()) {
      const [account, pos] = entry;
      if (account.positions.get(pos.market) !== pos || pos.szi <= 0) continue;
      this.x.touch(pos.market);
      this.risk.forceLiquidation(account, pos);
      return true;
    }
    return false;
  }

  /** A trader sells into the fall (now and then one buys the dip). */
  private panic(): void {
    const x = this.x;
    const rng = x.rng;
    const m: Market = x.perps[rng.weighted(this.cumulative)]!;
    x.touch(m);
    const user = x.pickTrader();
    const pos = user.positions.get(m);
    const isBuy = rng.chance(0.15);
    const notional = Math.min(200_000, rng.logNormal(3000, 1.2));
    const lots =
      pos && pos.szi > 0 && !isBuy
        ? pos.szi
        : Math.max(1, Math.ceil((10 / m.fair) * m.szScale), Math.round((notional / m.fair) * m.szScale));
    placeMarket(x, user, m, isBuy, lots, rng.chance(0.6) ? 'FrontendMarket' : 'Ioc', null, null);
  }
}
