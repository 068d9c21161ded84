// What traders do: pick a market and an action (market/limit/trigger orders, cancels, rejections, TWAPs) with
// sizes scaled to their balances. TWAPs are sliced here every 30 s until finished, terminated or failed.
import type { TwapState } from '../../wire/node-lines.ts';
import { ZERO_HASH } from '../../wire/node-lines.ts';
import type { Account } from './account.ts';
import { USDC_TOKEN, USDH_TOKEN } from './catalog.ts';
import { fmtNum, fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { BuilderFee, Market } from './market.ts';
import { executeTaker } from './matching.ts';
import { placeLimit, placeMarket, reject, slippagePx } from './orders.ts';
import type { MainnetProfile } from './profile.ts';
import { cancelResting, emitStatus, takerNodeOrder } from './statuses.ts';
import { placeTrigger } from './triggers.ts';

interface Twap {
  id: number;
  user: Account;
  market: Market;
  isBuy: boolean;
  lots: number;
  executedLots: number;
  executedNtl: number;
  minutes: number;
  randomize: boolean;
  reduceOnly: boolean;
  startedAt: number;
  slicesLeft: number;
  nextSliceAt: number;
  /** How it ends: after `endAfterSlices` slices it finishes, is terminated by its user, or fails. */
  fate: 'finished' | 'terminated' | 'error';
  endAfterSlices: number;
}

export const TWAP_SLICE_MS = 30_000;
const MAX_USER_ORDERS = 14;
const MAX_SIDE_ORDERS = 70;
const MAX_MARKET_TRIGGERS = 80;
const BUILDER_FEES = [10, 25, 50, 100];
const PERP_REJECTIONS = [
  'perpMarginRejected',
  'minTradeNtlRejected',
  'tickRejected',
  'reduceOnlyRejected',
  'badTriggerPxRejected',
];
const TWAP_ERRORS = ['Insufficient margin to place order.', 'Reduce only order would increase position.'];

export class TraderBehaviour {
  private readonly x: Exchange;
  /** Concurrent TWAPs; each adds ~4 fills a minute, so the cap follows the overall fill rate (~10 % TWAP). */
  private maxTwaps = 1;
  private readonly twaps: Twap[] = [];
  private nextTwapDue = Number.POSITIVE_INFINITY;
  private nextTwapId: number;
  private pickerVersion = -1;
  private cumulative = new Float64Array(0);
  private pickable: Market[] = [];
  private readonly cloidChance: number;
  private readonly builderChance: number;
  private readonly makerTakeShare: number;
  /** The mainnet profile keeps its running TWAPs at a count (setTwapTarget) instead of the default's cap. */
  private readonly twapTargeted: boolean;
  /** Slices that traded, and the fills they gave their owners: what a TWAP yields, for setTwapTarget. */
  twapSlices = 0;
  twapFills = 0;

  constructor(exchange: Exchange, fillsPerSecond: number, profile?: MainnetProfile) {
    this.x = exchange;
    this.cloidChance = profile ? profile.cloidChance : 0.2;
    this.builderChance = profile ? profile.builderChance : 0.1;
    this.makerTakeShare = profile ? profile.makerTakeShare : 0;
    this.twapTargeted = profile !== undefined;
    this.setFillRate(fillsPerSecond);
    this.nextTwapId = 500_000 + exchange.rng.int(100_000);
  }

  /** Follows a change of the overall fill rate; TWAPs already running over a lower cap run to their end. */
  setFillRate(fillsPerSecond: number): void {
    if (this.twapTargeted) return;
    this.maxTwaps = Math.max(1, Math.min(12, Math.round(fillsPerSecond * 1.5)));
  }

  /**
   * The mainnet profile: keeps `count` TWAPs running, starting one a block while fewer run (slices 30 s apart
   * give their fills steadily, so the count sets the TWAP share of fills).
   */
  setTwapTarget(count: number): void {
    this.maxTwaps = Math.max(1, Math.round(count));
  }

  /** Starts a TWAP when fewer than the target run (mainnet profile). */
  topUpTwaps(): void {
    if (this.twaps.length >= this.maxTwaps) return;
    const m = this.pickMarket();
    if (m.kind !== 'perp') return;
    const user = this.x.pickTrader();
    const equity = user.usdc(m.dex);
    if (equity < 100) return;
    this.x.touch(m);
    const notional = Math.min(500_000, equity * user.leverage * this.x.rng.range(0.05, 0.5));
    const pos = user.positions.get(m);
    this.startTwap(
      user,
      m,
      this.x.rng.chance(0.5),
      this.lotsFor(m, notional),
      pos !== undefined && this.x.rng.chance(0.2),
    );
  }

  /** Runs `count` random trader actions in the current block. */
  act(count: number): void {
    for (let i = 0; i < count; i++) this.actOnce();
  }

  private pickMarket(): Market {
    if (this.pickerVersion !== this.x.marketsVersion) {
      this.pickable = this.x.markets.slice();
      const outcomes = this.pickable.filter((m) => m.kind === 'outcome').length;
      // Outcome markets share a fixed slice of activity however many are listed.
      this.cumulative = new Float64Array(this.pickable.length);
      let total = 0;
      this.pickable.forEach((m, i) => {
        total += m.kind === 'outcome' ? 7 / Math.max(1, outcomes) : m.weight;
        this.cumulative[i] = total;
      });
      this.pickerVersion = this.x.marketsVersion;
    }
    return this.pickable[this.x.rng.weighted(this.cumulative)]!;
  }

  private actOnce(): void {
    const x = this.x;
    const rng = x.rng;
    const m = this.pickMarket();
    x.touch(m);
    if (this.makerTakeShare > 0 && rng.chance(this.makerTakeShare) && m.kind !== 'outcome') {
      this.makerTakes(m);
      return;
    }
    const user = x.pickTrader();
    const r = rng.next();
    if (r < 0.16 && user.orders.length > 0) {
      const order = rng.pick(user.orders);
      cancelResting(x, order, 'canceled', rng.txHash());
      return;
    }
    if (user.orders.length >= MAX_USER_ORDERS) {
      cancelResting(x, user.orders[0]!, 'canceled', rng.txHash());
      return;
    }
    if (m.kind === 'perp') this.perpAction(user, m, rng.next());
    else this.spotAction(user, m, rng.next());
  }

  /** A maker hedges: an IOC for part of a ladder level, mostly against the other makers' quotes. */
  private makerTakes(m: Market): void {
    const x = this.x;
    const rng = x.rng;
    const maker = rng.pick(x.makers);
    const lots = this.lotsFor(m, m.levelNotional * rng.range(0.05, 0.5));
    placeMarket(x, maker, m, rng.chance(0.5), lots, 'Ioc', this.cloid(), null);
  }

  private perpAction(user: Account, m: Market, r: number): void {
    const x = this.x;
    const rng = x.rng;
    const equity = user.usdc(m.dex);
    const price = m.fair;
    if (equity < 15) {
      // Most traders without funds on this dex just don't trade it; a few try and get refused.
      if (rng.chance(0.85)) return;
      reject(x, user, m, rng.chance(0.5), m.markTicks(), this.lotsFor(m, 50), 'perpMarginRejected');
      return;
    }
    const pos = user.positions.get(m);
    // Margin keeps total exposure on the dex within equity × leverage; a full account can only reduce.
    const room = equity * user.leverage - user.exposure(m.dex).ntl;
    if (room < 11 && !pos) {
      reject(x, user, m, rng.chance(0.5), m.markTicks(), this.lotsFor(m, 50), 'perpMarginRejected');
      return;
    }
    const notional = Math.min(3_000_000, Math.max(11, Math.min(room, equity * user.leverage * rng.range(0.02, 0.2))));
    let isBuy = room < 11 ? pos!.szi < 0 : rng.chance(0.5);
    let lots = this.lotsFor(m, notional);
    if (r < 0.4 || room < 11) {
      if (pos && (room < 11 || rng.chance(0.45))) {
        isBuy = pos.szi < 0;
        const held = Math.abs(pos.szi);
        lots = rng.chance(0.5) ? held : Math.max(1, Math.min(held, Math.round(held * rng.range(0.2, 0.8))));
      }
      placeMarket(x, user, m, isBuy, lots, rng.chance(0.7) ? 'FrontendMarket' : 'Ioc', this.cloid(), this.builder());
    } else if (r < 0.66) {
      this.passiveLimit(user, m, isBuy, lots, rng.chance(0.2) ? 'Alo' : 'Gtc', this.builder());
    } else if (r < 0.73) {
      const through = rng.range(0.0005, 0.004);
      const px = isBuy ? Math.ceil(price * (1 + through) * m.pxScale) : Math.floor(price * (1 - through) * m.pxScale);
      placeLimit(x, user, m, isBuy, px, lots, 'Gtc', this.cloid(), this.builder());
    } else if (r < 0.85) {
      if (!pos || m.triggers.length >= MAX_MARKET_TRIGGERS) {
        this.passiveLimit(user, m, isBuy, lots, 'Gtc', null);
        return;
      }
      const isLong = pos.szi > 0;
      const isTakeProfit = rng.chance(0.4);
      const distance = rng.range(0.004, isTakeProfit ? 0.06 : 0.04);
      // Stops sit on the losing side of the position, take-profits on the winning side.
      const up = isLong === isTakeProfit;
      const triggerPx = Math.max(1, Math.round(price * (up ? 1 + distance : 1 - distance) * m.pxScale));
      const isPositionTpsl = rng.chance(0.5);
      const held = Math.abs(pos.szi);
      const size = isPositionTpsl ? held : Math.max(1, Math.round(held * rng.range(0.3, 1)));
      placeTrigger(x, user, m, !isLong, size, triggerPx, isTakeProfit, isPositionTpsl, this.cloid());
    } else if (r < 0.855) {
      this.startTwap(user, m, isBuy, lots * 4, pos !== undefined && rng.chance(0.2));
    } else if (r < 0.9) {
      reject(x, user, m, isBuy, m.markTicks(), lots, rng.pick(PERP_REJECTIONS));
    } else {
      this.passiveLimit(user, m, isBuy, lots, 'Gtc', null);
    }
  }

  private spotAction(user: Account, m: Market, r: number): void {
    const x = this.x;
    const rng = x.rng;
    const price = m.fair;
    const quoteToken = m.kind === 'outcome' ? USDH_TOKEN : USDC_TOKEN;
    // Resting orders hold their balance: bids the quote, asks the base.
    let bidHold = 0;
    let askLots = 0;
    for (const o of user.orders) {
      if (o.market.quoteToken === quoteToken && o.isBuy)
        bidHold += (o.px / o.market.pxScale) * (o.sz / o.market.szScale);
      if (o.market === m && !o.isBuy) askLots += o.sz;
    }
    const quote = user.spotBalance(quoteToken) - bidHold;
    const baseHeld = m.kind === 'outcome' ? (user.outcomes.get(m)?.total ?? 0) : user.spotBalance(m.baseToken);
    const sellableLots = Math.floor(baseHeld * m.szScale * 0.999) - askLots;
    const minLots = this.lotsFor(m, 10.5);
    let isBuy = !(sellableLots >= minLots && rng.chance(0.45));
    let lots: number;
    if (isBuy) {
      const budget = quote * rng.range(0.03, 0.3);
      if (budget < 11) {
        if (sellableLots >= minLots) isBuy = false;
        else {
          reject(x, user, m, true, m.markTicks(), this.lotsFor(m, 50), 'insufficientSpotBalanceRejected');
          return;
        }
      }
      lots = isBuy ? this.lotsFor(m, Math.min(budget, m.kind === 'outcome' ? 400 : 200_000)) : 0;
    } else {
      lots = 0;
    }
    if (!isBuy) lots = Math.max(minLots, Math.min(sellableLots, Math.round(sellableLots * rng.range(0.2, 1))));
    if (r < 0.5) {
      placeMarket(x, user, m, isBuy, lots, rng.chance(0.7) ? 'FrontendMarket' : 'Ioc', this.cloid(), null);
    } else if (r < 0.85) {
      this.passiveLimit(user, m, isBuy, lots, 'Gtc', null);
    } else if (r < 0.93) {
      const through = rng.range(0.001, 0.01);
      const raw = isBuy ? Math.ceil(price * (1 + through) * m.pxScale) : Math.floor(price * (1 - through) * m.pxScale);
      const px = m.kind === 'outcome' ? Math.min(m.pxScale - 1, Math.max(1, raw)) : Math.max(1, raw);
      placeLimit(x, user, m, isBuy, px, lots, 'Gtc', this.cloid(), null);
    } else {
      reject(x, user, m, isBuy, m.markTicks(), lots, rng.chance(0.5) ? 'minTradeNtlRejected' : 'tickRejected');
    }
  }

  private passiveLimit(
    user: Account,
    m: Market,
    isBuy: boolean,
    lots: number,
    tif: 'Gtc' | 'Alo',
    builder: BuilderFee | null,
  ): void {
    const x = this.x;
    const rng = x.rng;
    const side = isBuy ? m.bids : m.asks;
    if (side.length >= MAX_SIDE_ORDERS) {
      const oldest = side[side.length - 1]!;
      if (!oldest.isQuote) {
        cancelResting(x, oldest, 'canceled', rng.txHash());
        return;
      }
    }
    const away = m.kind === 'outcome' ? rng.range(0.01, 0.15) : rng.range(0.0004, 0.025);
    const raw = isBuy ? Math.floor(m.fair * (1 - away) * m.pxScale) : Math.ceil(m.fair * (1 + away) * m.pxScale);
    const px = m.kind === 'outcome' ? Math.min(m.pxScale - 1, Math.max(1, raw)) : Math.max(1, raw);
    placeLimit(x, user, m, isBuy, px, lots, tif, this.cloid(), builder);
  }

  private lotsFor(m: Market, notional: number): number {
    const price = m.fair;
    const minLots = Math.ceil((10 / price) * m.szScale);
    return Math.max(1, minLots, Math.round((notional / price) * m.szScale));
  }

  private cloid(): string | null {
    return this.x.rng.chance(this.cloidChance) ? this.x.rng.cloid() : null;
  }

  private builder(): BuilderFee | null {
    const rng = this.x.rng;
    return rng.chance(this.builderChance) ? { b: rng.pick(this.x.builders), f: rng.pick(BUILDER_FEES) } : null;
  }

  // ---- TWAP ----

  private startTwap(user: Account, m: Market, isBuy: boolean, lots: number, reduceOnly: boolean): void {
    if (this.twaps.length >= this.maxTwaps) return;
    const rng = this.x.rng;
    const minutes = rng.pick([5, 10, 15, 30, 60, 120]);
    const slices = minutes * 2;
    const roll = rng.next();
    const fate = roll < 0.85 ? 'finished' : roll < 0.95 ? 'terminated' : 'error';
    const twap: Twap = {
      id: this.nextTwapId++,
      user,
      market: m,
      isBuy,
      lots: Math.max(lots, slices),
      executedLots: 0,
      executedNtl: 0,
      minutes,
      randomize: rng.chance(0.5),
      reduceOnly,
      startedAt: this.x.now,
      slicesLeft: slices,
      nextSliceAt: this.x.now + TWAP_SLICE_MS,
      fate,
      endAfterSlices: fate === 'finished' ? slices : 1 + rng.int(slices - 1),
    };
    this.twaps.push(twap);
    this.nextTwapDue = Math.min(this.nextTwapDue, twap.nextSliceAt);
    this.emitTwap(twap, 'activated');
  }

  /** Executes the slices due in this block. */
  runTwaps(): void {
    const now = this.x.now;
    if (now < this.nextTwapDue) return;
    let nextDue = Number.POSITIVE_INFINITY;
    for (let i = 0; i < this.twaps.length; i++) {
      const twap = this.twaps[i]!;
      if (twap.nextSliceAt <= now && this.slice(twap)) {
        this.twaps.splice(i, 1);
        i--;
        continue;
      }
      nextDue = Math.min(nextDue, twap.nextSliceAt);
    }
    this.nextTwapDue = nextDue;
  }

  /** One slice; true when the TWAP ended. */
  private slice(twap: Twap): boolean {
    const x = this.x;
    const m = twap.market;
    const slicesTotal = twap.minutes * 2;
    const done = slicesTotal - twap.slicesLeft;
    if (done >= twap.endAfterSlices && twap.fate !== 'finished') {
      this.emitTwap(twap, twap.fate === 'terminated' ? 'terminated' : { error: x.rng.pick(TWAP_ERRORS) });
      return true;
    }
    if (!m.active) {
      this.emitTwap(twap, 'terminated');
      return true;
    }
    x.touch(m);
    const remaining = twap.lots - twap.executedLots;
    let lots = twap.slicesLeft <= 1 ? remaining : Math.round(remaining / twap.slicesLeft);
    if (twap.randomize && twap.slicesLeft > 1) lots = Math.round(lots * x.rng.range(0.75, 1.25));
    lots = Math.max(1, Math.min(remaining, lots));
    const oid = x.newOid();
    const limitPx = slippagePx(m, twap.isBuy, 0.03);
    const result = executeTaker(x, {
      user: twap.user,
      market: m,
      isBuy: twap.isBuy,
      sz: lots,
      limitPx,
      oid,
      hash: ZERO_HASH,
      cloid: null,
      builder: null,
      twapId: twap.id,
      liquidation: null,
      liquidatedDir: null,
    });
    if (result.lots > 0) {
      emitStatus(
        x,
        twap.user,
        null,
        null,
        'filled',
        takerNodeOrder(
          x.now,
          m,
          twap.isBuy,
          limitPx,
          lots - result.lots,
          lots,
          oid,
          'Twap Slice',
          'Ioc',
          null,
          twap.reduceOnly,
        ),
      );
    }
    if (result.lots > 0) {
      this.twapSlices++;
      this.twapFills += result.fills;
    }
    twap.executedLots += result.lots;
    twap.executedNtl += result.notional;
    twap.slicesLeft--;
    twap.nextSliceAt += TWAP_SLICE_MS;
    if (twap.slicesLeft <= 0 || twap.executedLots >= twap.lots) {
      this.emitTwap(twap, 'finished');
      return true;
    }
    return false;
  }

  private emitTwap(twap: Twap, status: 'activated' | 'finished' | 'terminated' | { error: string }): void {
    const m = twap.market;
    const state: TwapState = {
      coin: m.coin,
      user: twap.user.address,
      side: twap.isBuy ? 'B' : 'A',
      sz: fmtUnits(twap.lots, m.szDecimals),
      executedSz: fmtUnits(twap.executedLots, m.szDecimals),
      executedNtl: fmtNum(twap.executedNtl, 6),
      minutes: twap.minutes,
      reduceOnly: twap.reduceOnly,
      randomize: twap.randomize,
      timestamp: twap.startedAt,
    };
    this.x.ev.twaps.push({ time: this.x.ev.iso, twap_id: twap.id, state, status });
  }
}
