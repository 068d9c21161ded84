// A trader's state: per-dex USDC, perp positions (size, entry, leverage, funding), spot and outcome holdings, and
// open orders. Applying a fill here yields the fill's startPosition, dir and closedPnl, so they always agree with
// the tracked position.
import { USDC_TOKEN } from './catalog.ts';
import type { Market, RestingOrder, TriggerOrder } from './market.ts';

/** `system`: the exchange's own accounts (the daily dust seller). */
export type AccountRole = 'user' | 'maker' | 'vault' | 'backstop' | 'system';

export interface PerpPosition {
  market: Market;
  /** Signed size in lots. */
  szi: number;
  entryPx: number;
  leverage: number;
  isCross: boolean;
  /** Margin set aside for an isolated position (USD). */
  isolatedMargin: number;
  fundingAllTime: number;
  fundingSinceOpen: number;
  fundingSinceChange: number;
}

export interface Holding {
  total: number;
  entryNtl: number;
}

export interface PerpFillResult {
  startLots: number;
  dir: string;
  closedPnl: number;
}

/** An item that knows its index in a list, so that removal is O(1): swap with the last, pop. */
interface Slotted {
  slot: number;
}

function addSlotted<T extends Slotted>(list: T[], item: T): void {
  item.slot = list.length;
  list.push(item);
}

function removeSlotted<T extends Slotted>(list: T[], item: T): void {
  const last = list.pop()!;
  if (last !== item) {
    list[item.slot] = last;
    last.slot = item.slot;
  }
}

export class Account {
  readonly address: string;
  readonly role: AccountRole;
  /** Preferred leverage and margin mode for new positions. */
  readonly leverage: number;
  readonly prefersCross: boolean;
  /** dex ('' or a HIP-3 dex name) → USDC balance of that perp account. */
  readonly perpUsdc = new Map<string, number>();
  readonly positions = new Map<Market, PerpPosition>();
  readonly spot = new Map<number, Holding>();
  readonly outcomes = new Map<Market, Holding>();
  readonly orders: RestingOrder[] = [];
  readonly triggers: TriggerOrder[] = [];

  constructor(address: string, role: AccountRole, leverage: number, prefersCross: boolean) {
    this.address = address;
    this.role = role;
    this.leverage = leverage;
    this.prefersCross = prefersCross;
  }

  usdc(dex: string): number {
    return this.perpUsdc.get(dex) ?? 0;
  }

  addUsdc(dex: string, delta: number): void {
    this.perpUsdc.set(dex, (this.perpUsdc.get(dex) ?? 0) + delta);
  }

  holding(token: number): Holding {
    let h = this.spot.get(token);
    if (!h) {
      h = { total: 0, entryNtl: 0 };
      this.spot.set(token, h);
    }
    return h;
  }

  spotBalance(token: number): number {
    return this.spot.get(token)?.total ?? 0;
  }

  addOrder(order: RestingOrder): void {
    addSlotted(this.orders, order);
  }

  removeOrder(order: RestingOrder): void {
    removeSlotted(this.orders, order);
  }

  addTrigger(trigger: TriggerOrder): void {
    addSlotted(this.triggers, trigger);
  }

  removeTrigger(trigger: TriggerOrder): void {
    removeSlotted(this.triggers, trigger);
  }

  /** USDC that may leave a perp dex: account value minus the margin its positions need. */
  withdrawable(dex: string): number {
    let value = this.usdc(dex);
    let margin = 0;
    for (const p of this.positions.values()) {
      if (p.market.dex !== dex) continue;
      const mark = p.market.markPx();
      const size = p.szi / p.market.szScale;
      value += size * (mark - p.entryPx);
      margin += p.isCross ? (Math.abs(size) * mark) / p.leverage : p.isolatedMargin;
    }
    return Math.max(0, value - margin);
  }

  /** Unrealised PnL and notional of this account's positions on one perp dex at mark prices. */
  exposure(dex: string): { upnl: number; ntl: number; maintenance: number; crossUpnl: number; isolatedMargin: number } {
    let upnl = 0;
    let ntl = 0;
    let maintenance = 0;
    let crossUpnl = 0;
    let isolatedMargin = 0;
    for (const p of this.positions.values()) {
      if (p.market.dex !== dex) continue;
      const mark = p.market.markPx();
      const size = p.szi / p.market.szScale;
      const pnl = size * (mark - p.entryPx);
      upnl += pnl;
      ntl += Math.abs(size) * mark;
      if (p.isCross) {
        crossUpnl += pnl;
        maintenance += (Math.abs(size) * mark) / (2 * p.market.maxLeverage);
      } else {
        isolatedMargin += p.isolatedMargin;
      }
    }
    return { upnl, ntl, maintenance, crossUpnl, isolatedMargin };
  }
}

/** Position change for a perp fill; updates size, entry, margin, USDC (PnL − fee) and the market's OI. */
export function applyPerpFill(
  acct: Account,
  m: Market,
  isBuy: boolean,
  price: number,
  lots: number,
  fee: number,
): PerpFillResult {
  let pos = acct.positions.get(m);
  const start = pos ? pos.szi : 0;
  const signed = isBuy ? lots : -lots;
  const next = start + signed;
  const qty = lots / m.szScale;
  let closedLots = 0;
  if (start !== 0 && start > 0 !== isBuy) closedLots = Math.min(Math.abs(start), lots);
  const closedPnl = pos && closedLots > 0 ? (closedLots / m.szScale) * (price - pos.entryPx) * (start > 0 ? 1 : -1) : 0;

  let dir: string;
  if (isBuy) dir = start >= 0 ? 'Open Long' : next <= 0 ? 'Close Short' : 'Short > Long';
  else dir = start <= 0 ? 'Open Short' : next >= 0 ? 'Close Long' : 'Long > Short';

  if (next === 0) {
    if (pos) acct.positions.delete(m);
  } else if (!pos || start === 0 || start > 0 !== next > 0) {
    const isCross = m.onlyIsolated ? false : acct.prefersCross;
    const leverage = Math.min(acct.leverage, m.maxLeverage);
    const newQty = Math.abs(next) / m.szScale;
    const allTime = pos ? pos.fundingAllTime : 0;
    pos = {
      market: m,
      szi: next,
      entryPx: price,
      leverage,
      isCross,
      isolatedMargin: isCross ? 0 : (newQty * price) / leverage,
      fundingAllTime: allTime,
      fundingSinceOpen: 0,
      fundingSinceChange: 0,
    };
    acct.positions.set(m, pos);
  } else if (Math.abs(next) > Math.abs(start)) {
    pos.entryPx = (pos.entryPx * Math.abs(start) + price * lots) / Math.abs(next);
    if (!pos.isCross) pos.isolatedMargin += (qty * price) / pos.leverage;
    pos.szi = next;
    pos.fundingSinceChange = 0;
  } else {
    if (!pos.isCross) pos.isolatedMargin *= Math.abs(next) / Math.abs(start);
    pos.szi = next;
    pos.fundingSinceChange = 0;
  }
  acct.addUsdc(m.dex, closedPnl - fee);
  m.longLots += Math.max(next, 0) - Math.max(start, 0);
  return { startLots: start, dir, closedPnl };
}

/**
 * Spot or outcome fill. `feeInBase` is paid in the received base asset (spot buys), else in the quote token.
 * Returns the base balance before the fill and the realised PnL against the average cost.
 */
export function applySpotFill(
  acct: Account,
  m: Market,
  isBuy: boolean,
  price: number,
  lots: number,
  fee: number,
  feeInBase: boolean,
): { start: number; closedPnl: number } {
  const qty = lots / m.szScale;
  const base = m.kind === 'outcome' ? outcomeHolding(acct, m) : acct.holding(m.baseToken);
  const quote = acct.holding(m.quoteToken === -1 ? USDC_TOKEN : m.quoteToken);
  const start = base.total;
  let closedPnl = 0;
  if (isBuy) {
    base.total += qty - (feeInBase ? fee : 0);
    base.entryNtl += qty * price;
    quote.total -= qty * price + (feeInBase ? 0 : fee);
  } else {
    const cost = start > 0 ? base.entryNtl * Math.min(1, qty / start) : 0;
    closedPnl = start > 0 ? Math.min(qty, start) * price - cost : 0;
    base.total -= qty;
    base.entryNtl = Math.max(0, base.entryNtl - cost);
    quote.total += qty * price - (feeInBase ? 0 : fee);
  }
  if (base.total <= 1e-12) base.entryNtl = 0;
  return { start, closedPnl };
}

function outcomeHolding(acct: Account, m: Market): Holding {
  let h = acct.outcomes.get(m);
  if (!h) {
    h = { total: 0, entryNtl: 0 };
    acct.outcomes.set(m, h);
  }
  return h;
}
