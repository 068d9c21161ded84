// The exchange's state: markets, accounts and the block clock. It lists the markets and funds the accounts at
// genesis, lists and delists markets later, and brings a market up to the block when it is touched. What happens
// on the book lives beside it: order entry (orders.ts), matching and fills (matching.ts), the market makers
// (quoting.ts), trigger orders (triggers.ts) and the node's order records (statuses.ts); the random behaviour that
// drives it in behaviour.ts, risk.ts and ledger.ts.
import { Account } from './account.ts';
import {
  BACKSTOP_ADDRESS,
  HIP3_DEX,
  NATIVE_PERPS,
  type PerpListing,
  SPOT_PAIRS,
  SPOT_TOKENS,
  USDC_TOKEN,
  USDH_TOKEN,
} from './catalog.ts';
import type { BlockEvents } from './events.ts';
import { Market, type MarketInit } from './market.ts';
import { requote } from './quoting.ts';
import { Rng } from './rng.ts';
import { cancelResting } from './statuses.ts';
import { cancelTrigger, checkTriggers } from './triggers.ts';

export interface ExchangeOptions {
  seed: number;
  users: number;
  marketMakers: number;
}

/** Address streams of the seed (see Rng `stream`). */
const ADDRESS_STREAM = 1;
const ENGINE_STREAM = 2;
const LEVERAGE_CHOICES = [2, 3, 5, 5, 10, 10, 20];

export class Exchange {
  readonly rng: Rng;
  readonly markets: Market[] = [];
  readonly byCoin = new Map<string, Market>();
  /** Native and HIP-3 perps in meta order. */
  readonly perps: Market[] = [];
  readonly spotMarkets: Market[] = [];
  readonly accounts: Account[] = [];
  readonly byAddress = new Map<string, Account>();
  readonly traders: Account[] = [];
  readonly makers: Account[] = [];
  readonly hlp: Account;
  readonly backstop: Account;
  readonly builders: string[];
  /** HIP-3 deployer and its oracle/fee sub-deployers. */
  readonly hip3Deployer: string;
  readonly hip3SubDeployer: string;
  /** Bumped when markets are listed or delisted, so weighted pickers rebuild. */
  marketsVersion = 0;

  ev!: BlockEvents;
  now = 0;
  private nextOidValue: number;

  constructor(opts: ExchangeOptions) {
    this.rng = new Rng(opts.seed, ENGINE_STREAM);
    const addresses = new Rng(opts.seed, ADDRESS_STREAM);
    this.nextOidValue = 40_000_000_000 + addresses.int(1_000_000) * 1000;

    for (const listing of NATIVE_PERPS) this.listPerp(listing, '');
    for (const listing of HIP3_DEX.perps) this.listPerp(listing, HIP3_DEX.name);
    for (const pair of SPOT_PAIRS) {
      const m = new Market({
        coin: pair.name,
        kind: 'spot',
        dex: 'spot',
        szDecimals: pair.szDecimals,
        pxDecimals: pair.pxDecimals,
        px: pair.px,
        vol: pair.vol,
        weight: pair.weight,
        baseToken: pair.base,
        quoteToken: pair.quote,
        underlying: pair.underlying ? (this.byCoin.get(pair.underlying) ?? null) : null,
      });
      this.addMarket(m);
      this.spotMarkets.push(m);
    }

    for (let i = 0; i < opts.marketMakers; i++) {
      const mm = this.addAccount(new Account(addresses.address(), 'maker', 10, true));
      for (const dex of ['', HIP3_DEX.name]) mm.addUsdc(dex, 50_000_000);
      for (const token of SPOT_TOKENS)
        mm.holding(token.index).total = token.index === USDC_TOKEN ? 50_000_000 : 5e9 / spotPx(token.index);
    }
    for (let i = 0; i < opts.users; i++) {
      const leverage = addresses.pick(LEVERAGE_CHOICES);
      const user = this.addAccount(new Account(addresses.address(), 'user', leverage, addresses.chance(0.7)));
      user.addUsdc('', Math.min(2_000_000, addresses.logNormal(4000, 1.3)));
      if (addresses.chance(0.35)) user.addUsdc(HIP3_DEX.name, Math.min(500_000, addresses.logNormal(2000, 1.2)));
      user.holding(USDC_TOKEN).total = Math.min(1_000_000, addresses.logNormal(1500, 1.3));
      if (addresses.chance(0.4)) user.holding(150).total = addresses.logNormal(60, 1.2);
      if (addresses.chance(0.3)) user.holding(1).total = Math.round(addresses.logNormal(5000, 1.2));
      if (addresses.chance(0.15)) user.holding(197).total = addresses.logNormal(0.02, 1);
      if (addresses.chance(0.5)) user.holding(USDH_TOKEN).total = addresses.logNormal(400, 1);
    }
    this.hlp = this.addAccount(new Account(addresses.address(), 'vault', 5, true));
    this.hlp.addUsdc('', 100_000_000);
    this.backstop = this.addAccount(new Account(BACKSTOP_ADDRESS, 'backstop', 5, true));
    this.backstop.addUsdc(HIP3_DEX.name, 10_000_000);
    this.builders = [addresses.address(), addresses.address(), addresses.address()];
    this.hip3Deployer = addresses.address();
    this.hip3SubDeployer = addresses.address();
  }

  private listPerp(listing: PerpListing, dex: string): void {
    const m = new Market({
      coin: listing.name,
      kind: 'perp',
      dex,
      szDecimals: listing.szDecimals,
      pxDecimals: listing.pxDecimals,
      px: listing.px,
      vol: listing.vol,
      weight: listing.weight,
      maxLeverage: listing.maxLeverage,
      marginTableId: listing.marginTableId,
      onlyIsolated: listing.onlyIsolated ?? false,
    });
    this.addMarket(m);
    this.perps.push(m);
  }

  private addAccount(acct: Account): Account {
    this.accounts.push(acct);
    this.byAddress.set(acct.address, acct);
    if (acct.role === 'user') this.traders.push(acct);
    else if (acct.role === 'maker') this.makers.push(acct);
    return acct;
  }

  addMarket(m: Market): void {
    this.markets.push(m);
    this.byCoin.set(m.coin, m);
    this.marketsVersion++;
  }

  /** Lists an outcome side market (HIP-4). */
  listOutcome(init: Omit<MarketInit, 'kind' | 'dex' | 'szDecimals' | 'pxDecimals' | 'vol'> & { vol?: number }): Market {
    const m = new Market({
      ...init,
      kind: 'outcome',
      dex: 'outcome',
      szDecimals: 0,
      pxDecimals: 3,
      vol: init.vol ?? 2,
    });
    m.advance(this.now, this.rng);
    this.addMarket(m);
    return m;
  }

  /** Takes a market off the exchange: cancels its orders with `status`. */
  delist(m: Market, status: string): void {
    for (const side of [m.bids, m.asks]) {
      while (side.length > 0) cancelResting(this, side[0]!, status, null);
    }
    while (m.triggers.length > 0) cancelTrigger(this, m.triggers[0]!, status, null);
    m.active = false;
    const at = this.markets.indexOf(m);
    if (at >= 0) this.markets.splice(at, 1);
    this.byCoin.delete(m.coin);
    this.marketsVersion++;
  }

  beginBlock(ev: BlockEvents): void {
    this.ev = ev;
    this.now = ev.timeMs;
  }

  newOid(): number {
    return this.nextOidValue++;
  }

  /** Brings a market up to the block: fair price, market makers' ladder, then due trigger orders. */
  touch(m: Market): void {
    m.advance(this.now, this.rng);
    requote(this, m);
    if (m.triggers.length > 0) checkTriggers(this, m);
  }
}

/** Starting USD price of a spot token (for initial balances). */
function spotPx(token: number): number {
  if (token === USDC_TOKEN) return 1;
  const pair = SPOT_PAIRS.find((p) => p.base === token);
  return pair ? pair.px : 1;
}
