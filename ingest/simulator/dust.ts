// The daily spot dust conversion (mainnet profile): in the first block of each UTC day, every spot balance under one
// lot and worth at most 1 USD is sold. Per token the dust is summed and sold by the exchange's system account as one
// market order against the book (a paired trade, zero hash), and each holder gets a fill of its dust at that price:
// `dir` "Spot Dust Conversion", `tid` 0, the system order's oid, no fee, as in the fixture's block of 1 344 fills
// (hypercore-indexer node_fills_sample.jsonl, 2026-03-15T00:00:00.099).

import { ZERO_HASH } from '../../wire/node-lines.ts';
import type { Account } from './account.ts';
import { tokenWeiDecimals, USDC_TOKEN } from './catalog.ts';
import { fmtNum } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market } from './market.ts';
import { executeTaker } from './matching.ts';
import { slippagePx } from './orders.ts';
import type { MainnetProfile } from './profile.ts';
import { Rng } from './rng.ts';

/** The seed's stream for the dust (see Rng `stream`). */
const DUST_STREAM = 8;
/** Pairs the dust of the long tail lands in: the busiest ones, by weight. */
const DUST_PAIRS = 20;

interface DustHolding {
  account: Account;
  amount: number;
}

export class DustConversion {
  private readonly rng: Rng;

  constructor(
    private readonly x: Exchange,
    seed: number,
    private readonly profile: MainnetProfile,
  ) {
    this.rng = new Rng(seed, DUST_STREAM);
  }

  /** Converts the dust of every holder; returns the fills written. */
  convert(): number {
    const x = this.x;
    const seller = x.dustSeller;
    if (!seller) return 0;
    const before = x.ev.fills.length;
    const byMarket = new Map<Market, DustHolding[]>();
    const add = (m: Market, account: Account, amount: number) => {
      const list = byMarket.get(m);
      if (list) list.push({ account, amount });
      else byMarket.set(m, [{ account, amount }]);
    };
    // Dust the traders' own trading left: what a sale of whole lots could not sell.
    const spotByBase = new Map(x.spotMarkets.map((m) => [m.baseToken, m]));
    let holders = 0;
    for (const account of x.traders) {
      for (const [token, h] of account.spot) {
        const m = token === USDC_TOKEN ? undefined : spotByBase.get(token);
        if (m && h.total > 1e-9 && h.total < 1 / m.szScale && h.total * m.fair <= 1) {
          add(m, account, h.total);
          holders++;
        }
      }
    }
    // Mainnet's ~1 300 holders a day come from 1.4 M accounts; the rest of them are drawn from the trader pool, with
    // dust of the busiest pairs (a fraction of a lot, at most 1 USD).
    const busiest = [...x.spotMarkets].sort((a, b) => b.weight - a.weight).slice(0, DUST_PAIRS);
    const wanted = this.profile.dustFills - 2 * busiest.length;
    for (let guard = 0; holders < wanted && guard < wanted * 4; guard++) {
      const m = busiest[this.rng.int(busiest.length)]!;
      const account = x.poolTrader(this.rng.int(x.poolSize));
      const amount = Math.min(this.rng.range(0.05, 0.95) / m.szScale, this.rng.range(0.05, 1) / m.fair);
      const decimals = Math.min(8, tokenWeiDecimals(m.baseToken));
      if (amount < 10 ** -decimals || account.spotBalance(m.baseToken) >= 1 / m.szScale) continue;
      account.holding(m.baseToken).total += amount;
      add(m, account, account.spotBalance(m.baseToken));
      holders++;
    }
    for (const [m, dust] of byMarket) this.sell(m, seller, dust);
    return x.ev.fills.length - before;
  }

  private sell(m: Market, seller: Account, dust: DustHolding[]): void {
    const x = this.x;
    x.touch(m);
    const oid = x.newOid();
    const total = dust.reduce((sum, d) => sum + d.amount, 0);
    const lots = Math.floor(total * m.szScale);
    const first = x.ev.fills.length;
    if (lots > 0) {
      seller.holding(m.baseToken).total += lots / m.szScale;
      executeTaker(x, {
        user: seller,
        market: m,
        isBuy: false,
        sz: lots,
        limitPx: slippagePx(m, false, 0.05),
        oid,
        hash: ZERO_HASH,
        cloid: null,
        builder: null,
        twapId: null,
        liquidation: null,
        liquidatedDir: null,
      });
    }
    const traded = x.ev.fills[first];
    const pxText = traded ? traded[1].px : m.markPx().toFixed(m.pxDecimals);
    const px = Number(pxText);
    const decimals = Math.min(8, tokenWeiDecimals(m.baseToken));
    for (const { account, amount } of dust) {
      const h = account.holding(m.baseToken);
      const sz = fmtNum(amount, decimals);
      h.total = 0;
      h.entryNtl = 0;
      account.holding(USDC_TOKEN).total += amount * px;
      x.ev.fills.push([
        account.address,
        {
          coin: m.coin,
          px: pxText,
          sz,
          side: 'A',
          time: x.now,
          startPosition: sz,
          dir: 'Spot Dust Conversion',
          closedPnl: '0.0',
          hash: ZERO_HASH,
          oid,
          crossed: true,
          fee: '0.0',
          tid: 0,
          feeToken: 'USDC',
          twapId: null,
        },
      ]);
    }
  }
}
