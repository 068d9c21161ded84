// Periodic account-level processes: funding rates and the hourly Funding payment, margin checks that liquidate
// under-margined positions (market or backstop), and expiry of stale orders so memory stays bounded.
import type { FundingDelta, NodeFillLiquidation } from '../../wire/node-lines.ts';
import { ZERO_HASH } from '../../wire/node-lines.ts';
import type { Account, PerpPosition } from './account.ts';
import { fmtNum, fmtRate, fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market } from './market.ts';
import { executeTaker, fillPair, type TakerOrder } from './matching.ts';
import { slippagePx } from './orders.ts';
import { Rng } from './rng.ts';
import { cancelResting, emitStatus, takerNodeOrder } from './statuses.ts';
import { cancelTrigger } from './triggers.ts';

const BASE_FUNDING = 0.0000125;
const STALE_ORDER_MS = 6 * 3600_000;
const STALE_TRIGGER_MS = 24 * 3600_000;
/** The seed's stream for HIP-3 gaps (see Rng `stream`): their own, so the rest of the engine's draws stay as they were. */
const HIP3_GAP_STREAM = 7;
/** Chance per minute that a HIP-3 market gaps through a holder's margin: about one backstop liquidation in 10 min. */
const HIP3_GAP_CHANCE = 0.1;

const LEAN_MARGIN_MINUTES = 15;

export class RiskEngine {
  private readonly x: Exchange;
  private readonly gaps: Rng;
  liquidations = 0;

  constructor(exchange: Exchange, seed: number) {
    this.x = exchange;
    this.gaps = new Rng(seed, HIP3_GAP_STREAM);
  }

  /**
   * Each minute: perps move and are requoted, funding rates drift, margins are checked (every LEAN_MARGIN_MINUTES
   * in a lean history: with a fill every two seconds positions barely move in a minute, and the check over every
   * trader was the costliest part of computing a week).
   */
  minuteTick(minuteIndex: number, lean = false): void {
    const x = this.x;
    const rng = x.rng;
    for (const m of x.perps) {
      x.touch(m);
      const premium = m.midPx() === null ? 0 : (m.midPx()! - m.oraclePx) / m.oraclePx;
      const target = BASE_FUNDING + Math.max(-0.0005, Math.min(0.0005, premium * 0.05)) + 0.00001 * rng.normal();
      m.fundingRate = Math.max(-0.004, Math.min(0.004, 0.8 * m.fundingRate + 0.2 * target));
    }
    if (!lean || minuteIndex % LEAN_MARGIN_MINUTES === 0) this.checkMargins();
    this.hip3Gap();
    if (minuteIndex % 10 === 0) this.expireStale();
  }

  /**
   * Now and then a HIP-3 market gaps through a holder's margin: HIP-3 books are thin, so the position goes to the
   * dex's backstop at the mark price (the backstop liquidation fills the EVM domain's backstop health counts).
   */
  private hip3Gap(): void {
    if (!this.gaps.chance(HIP3_GAP_CHANCE)) return;
    const holders = this.x.traders.filter((a) => [...a.positions.values()].some((p) => p.market.dex !== ''));
    if (holders.length === 0) return;
    const victim = holders[this.gaps.int(holders.length)] as Account;
    const pos = [...victim.positions.values()].find((p) => p.market.dex !== '') as PerpPosition;
    const dex = pos.market.dex;
    const positions = pos.isCross
      ? [...victim.positions.values()].filter((p) => p.isCross && p.market.dex === dex)
      : [pos];
    const e = victim.exposure(dex);
    const accountValue = victim.usdc(dex) - e.isolatedMargin + e.crossUpnl;
    this.liquidate(victim, dex, positions, pos.isCross ? 'Cross' : 'Isolated', accountValue, true);
  }

  /** One Funding event for every open perp position (+ = received). */
  payFunding(): void {
    const x = this.x;
    const deltas: FundingDelta[] = [];
    for (const acct of x.accounts) {
      for (const pos of acct.positions.values()) {
        const m = pos.market;
        m.advance(x.now, x.rng);
        const size = pos.szi / m.szScale;
        const amount = -size * m.markPx() * m.fundingRate;
        acct.addUsdc(m.dex, amount);
        // cumFunding counts funding paid, the clearinghouse's sign.
        pos.fundingAllTime -= amount;
        pos.fundingSinceOpen -= amount;
        pos.fundingSinceChange -= amount;
        deltas.push({
          user: acct.address,
          coin: m.coin,
          funding_amount: fmtNum(amount, 6),
          szi: fmtUnits(pos.szi, m.szDecimals),
          funding_rate: fmtRate(m.fundingRate, 6),
        });
      }
    }
    x.ev.misc.push({ time: x.ev.iso, hash: ZERO_HASH, inner: { Funding: { deltas } } });
  }

  /** Liquidates every trader under maintenance margin (each minute; every second in a cascade). */
  checkMargins(): void {
    for (const acct of this.x.traders) {
      if (acct.positions.size === 0) continue;
      let dexes: Set<string> | null = null;
      for (const pos of acct.positions.values()) {
        if (!pos.isCross) {
          const mark = pos.market.markPx();
          const size = pos.szi / pos.market.szScale;
          const equity = pos.isolatedMargin + size * (mark - pos.entryPx);
          const maintenance = (Math.abs(size) * mark) / (2 * pos.market.maxLeverage);
          if (equity < maintenance) {
            this.liquidate(acct, pos.market.dex, [pos], 'Isolated', equity);
            continue;
          }
        }
        dexes ??= new Set();
        dexes.add(pos.market.dex);
      }
      if (!dexes) continue;
      for (const dex of dexes) {
        const e = acct.exposure(dex);
        if (e.maintenance === 0) continue;
        const accountValue = acct.usdc(dex) - e.isolatedMargin + e.crossUpnl;
        if (accountValue < e.maintenance) {
          const cross = [...acct.positions.values()].filter((p) => p.isCross && p.market.dex === dex);
          this.liquidate(acct, dex, cross, 'Cross', accountValue);
        }
      }
    }
  }

  /** A cascade's forced close of `pos`: the victim's isolated position, or its cross account on that dex. */
  forceLiquidation(victim: Account, pos: PerpPosition): void {
    const m = pos.market;
    if (!pos.isCross) {
      const equity = pos.isolatedMargin + (pos.szi / m.szScale) * (m.markPx() - pos.entryPx);
      this.liquidate(victim, m.dex, [pos], 'Isolated', equity);
      return;
    }
    const e = victim.exposure(m.dex);
    const cross = [...victim.positions.values()].filter((p) => p.isCross && p.market.dex === m.dex);
    this.liquidate(victim, m.dex, cross, 'Cross', victim.usdc(m.dex) - e.isolatedMargin + e.crossUpnl);
  }

  /**
   * Closes `positions` of `victim`: through the book (method "market") or against the liquidator — HLP for the
   * native dex, the dex's backstop address for HIP-3 — at the mark price (method "backstop").
   */
  private liquidate(
    victim: Account,
    dex: string,
    positions: PerpPosition[],
    leverageType: 'Cross' | 'Isolated',
    accountValue: number,
    viaBackstop = false,
  ): void {
    const x = this.x;
    const rng = x.rng;
    this.liquidations++;
    const hash = rng.txHash();
    for (const order of victim.orders.slice()) {
      if (order.market.dex === dex) cancelResting(x, order, 'liquidatedCanceled', null);
    }
    for (const trigger of victim.triggers.slice()) {
      if (trigger.market.dex === dex) cancelTrigger(x, trigger, 'liquidatedCanceled', null);
    }
    let liquidatedNtl = 0;
    const liquidatedPositions: { coin: string; szi: string }[] = [];
    const useBackstop = viaBackstop || rng.chance(0.2);
    for (const pos of positions) {
      const m = pos.market;
      const markTicks = m.markTicks();
      const sziText = fmtUnits(pos.szi, m.szDecimals);
      liquidatedPositions.push({ coin: m.coin, szi: sziText });
      liquidatedNtl += Math.abs(pos.szi / m.szScale) * (markTicks / m.pxScale);
      const isBuy = pos.szi < 0;
      const lots = Math.abs(pos.szi);
      const dirText = `Liquidated ${leverageType} ${pos.szi > 0 ? 'Long' : 'Short'}`;
      const markPx = fmtUnits(markTicks, m.pxDecimals);
      const oid = x.newOid();
      /** The victim's side of the liquidation: `sz` lots up to `limitPx`, through the book or to the backstop. */
      const victimOrder = (sz: number, limitPx: number, method: NodeFillLiquidation['method']): TakerOrder => ({
        user: victim,
        market: m,
        isBuy,
        sz,
        limitPx,
        oid,
        hash,
        cloid: null,
        builder: null,
        twapId: null,
        liquidation: { liquidatedUser: victim.address, markPx, method },
        liquidatedDir: dirText,
      });
      let remaining = lots;
      let limitPx = slippagePx(m, isBuy, 0.1);
      if (!useBackstop) remaining -= executeTaker(x, victimOrder(lots, limitPx, 'market')).lots;
      if (remaining > 0) {
        limitPx = markTicks;
        const liquidator = x.liquidatorOf(dex);
        fillPair(
          x,
          victimOrder(remaining, limitPx, 'backstop'),
          liquidator,
          x.newOid(),
          null,
          null,
          markTicks,
          remaining,
        );
      }
      emitStatus(
        x,
        victim,
        hash,
        null,
        'filled',
        takerNodeOrder(x.now, m, isBuy, limitPx, 0, lots, oid, 'Market', 'LiquidationMarket', null, true),
      );
    }
    x.ev.misc.push({
      time: x.ev.iso,
      hash,
      inner: {
        LedgerUpdate: {
          users: [victim.address],
          delta: {
            type: 'liquidation',
            liquidatedNtlPos: fmtNum(liquidatedNtl, 6),
            accountValue: fmtNum(accountValue, 6),
            leverageType,
            liquidatedPositions,
          },
        },
      },
    });
  }

  /** Traders cancel orders they forgot about; trigger orders time out. */
  private expireStale(): void {
    const x = this.x;
    const now = x.now;
    for (const m of x.markets.slice()) {
      for (const side of [m.bids, m.asks]) {
        for (let i = 0; i < side.length; i++) {
          const o = side[i]!;
          if (!o.isQuote && now - o.timestamp > STALE_ORDER_MS) {
            cancelResting(x, o, 'canceled', x.rng.txHash());
            i--;
          }
        }
      }
      this.expireTriggers(m, now);
    }
  }

  private expireTriggers(m: Market, now: number): void {
    for (const t of m.triggers.slice()) {
      if (now - t.timestamp > STALE_TRIGGER_MS) cancelTrigger(this.x, t, 'canceled', this.x.rng.txHash());
    }
  }
}
