// The exchange's state: markets, accounts and the block clock. It lists the markets and funds the accounts at
// genesis, lists and delists markets later, and brings a market up to the block when it is touched. What happens
// on the book lives beside it: order entry (orders.ts), matching and fills (matching.ts), the market makers
// (quoting.ts), trigger orders (triggers.ts) and the node's order records (statuses.ts); the random behaviour that
// drives it in behaviour.ts, risk.ts and ledger.ts.
import { Account } from './account.ts';
import {
  BACKSTOP_ADDRESS,
  backstopAddress,
  type Catalog,
  DEFAULT_CATALOG,
  HIP3_DEX,
  type Hip3Dex,
  type PerpListing,
  SPOT_TOKENS,
  USDC_TOKEN,
  USDH_TOKEN,
} from './catalog.ts';
import type { BlockEvents } from './events.ts';
import { mainnetCatalog } from './mainnet-catalog.ts';
import { Market, type MarketInit } from './market.ts';
import type { MainnetProfile } from './profile.ts';
import { requote } from './quoting.ts';
import { Rng } from './rng.ts';
import { cancelResting } from './statuses.ts';
import { cancelTrigger, checkTriggers } from './triggers.ts';

export interface ExchangeOptions {
  seed: number;
  users: number;
  marketMakers: number;
  /** The mainnet profile: its catalog, a pool of `users` traders created as they first act. Default: none. */
  profile?: MainnetProfile;
}

/** A HIP-3 dex as the exchange runs it: its listing, deployer and the sub-deployer setting its oracle. */
export interface PerpDex {
  dex: Hip3Dex;
  deployer: string;
  subDeployer: string;
}

/** The mainnet profile's traders: `size` of them, each created (address, balances) the first time it is picked. */
interface TraderPool {
  seed: number;
  size: number;
  skew: number;
  hip3FundingChance: number;
  created: Map<number, Account>;
}

/** Address streams of the seed (see Rng `stream`). */
const ADDRESS_STREAM = 1;
const ENGINE_STREAM = 2;
/** A pool trader's own stream is this plus its index: its address and balances do not depend on when it first acts. */
const POOL_TRADER_STREAM = 0x100000;
/** The system account that sells the daily spot dust (mainnet's, as in the fixture's dust block). */
export const DUST_ADDRESS = `0x${'e'.repeat(40)}`;
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
  /** Each HIP-3 dex's backstop (the default's one dex: `backstop`). */
  private readonly backstops = new Map<string, Account>();
  readonly builders: string[];
  /** HIP-3 deployer and its oracle/fee sub-deployers. */
  readonly hip3Deployer: string;
  readonly hip3SubDeployer: string;
  readonly catalog: Catalog;
  /** The HIP-3 dexes in index order. */
  readonly perpDexes: PerpDex[];
  /** Dex names of `perpDexes`. */
  readonly hip3DexNames: string[];
  /** Seller of the daily spot dust (mainnet profile only). */
  readonly dustSeller: Account | null = null;
  private readonly pool: TraderPool | null = null;
  /** Chance a maker's quote carries a cloid. */
  readonly quoteCloidChance: number;
  /** Bumped when markets are listed or delisted, so weighted pickers rebuild. */
  marketsVersion = 0;

  ev!: BlockEvents;
  now = 0;
  private nextOidValue: number;

  constructor(opts: ExchangeOptions) {
    this.rng = new Rng(opts.seed, ENGINE_STREAM);
    const addresses = new Rng(opts.seed, ADDRESS_STREAM);
    this.nextOidValue = 40_000_000_000 + addresses.int(1_000_000) * 1000;

    const profile = opts.profile;
    this.quoteCloidChance = profile ? profile.cloidChance : 0.3;
    this.catalog = profile ? mainnetCatalog(profile) : DEFAULT_CATALOG;
    this.hip3DexNames = this.catalog.hip3Dexes.map((d) => d.name);
    for (const listing of this.catalog.perps) this.listPerp(listing, '');
    for (const dex of this.catalog.hip3Dexes) for (const listing of dex.perps) this.listPerp(listing, dex.name);
    for (const pair of this.catalog.spotPairs) {
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

    const spotTokens = profile ? [...new Set(this.catalog.spotPairs.flatMap((p) => [p.base, p.quote]))] : null;
    for (let i = 0; i < opts.marketMakers; i++) {
      const mm = this.addAccount(new Account(addresses.address(), 'maker', 10, true));
      for (const dex of ['', ...this.hip3DexNames]) mm.addUsdc(dex, 50_000_000);
      if (spotTokens) {
        for (const token of spotTokens)
          mm.holding(token).total = token === USDC_TOKEN ? 50_000_000 : 5e9 / this.spotPx(token);
      } else {
        for (const token of SPOT_TOKENS)
          mm.holding(token.index).total = token.index === USDC_TOKEN ? 50_000_000 : 5e9 / this.spotPx(token.index);
      }
    }
    if (profile) {
      this.pool = {
        seed: opts.seed,
        size: opts.users,
        skew: profile.traderSkew,
        hip3FundingChance: profile.hip3FundingChance,
        created: new Map(),
      };
    } else {
      for (let i = 0; i < opts.users; i++) this.fundTrader(addresses, [HIP3_DEX.name], 0.35);
    }
    this.hlp = this.addAccount(new Account(addresses.address(), 'vault', 5, true));
    this.hlp.addUsdc('', 100_000_000);
    this.backstop = this.addAccount(new Account(BACKSTOP_ADDRESS, 'backstop', 5, true));
    this.backstop.addUsdc(HIP3_DEX.name, 10_000_000);
    this.backstops.set(HIP3_DEX.name, this.backstop);
    this.builders = [addresses.address(), addresses.address(), addresses.address()];
    this.hip3Deployer = addresses.address();
    this.hip3SubDeployer = addresses.address();
    this.perpDexes = [{ dex: HIP3_DEX, deployer: this.hip3Deployer, subDeployer: this.hip3SubDeployer }];
    if (profile) {
      // The profile's other dexes, builders and the dust seller come after everything the default draws.
      for (const dex of this.catalog.hip3Dexes) {
        if (dex.name === HIP3_DEX.name) continue;
        const backstop = this.addAccount(new Account(backstopAddress(dex.index), 'backstop', 5, true));
        backstop.addUsdc(dex.name, 10_000_000);
        this.backstops.set(dex.name, backstop);
        this.perpDexes.push({ dex, deployer: addresses.address(), subDeployer: addresses.address() });
      }
      const xyz = this.catalog.hip3Dexes.find((d) => d.name === HIP3_DEX.name);
      if (xyz) this.perpDexes[0] = { ...this.perpDexes[0]!, dex: xyz };
      this.perpDexes.sort((a, b) => a.dex.index - b.dex.index);
      while (this.builders.length < profile.builders) this.builders.push(addresses.address());
      this.dustSeller = this.addAccount(new Account(DUST_ADDRESS, 'system', 1, true));
    }
  }

  /**
   * A regular trader at genesis: leverage, margin mode, USDC on the main dex and on some HIP-3 dexes, spot holdings.
   * The default funds its one HIP-3 dex with chance 0.35.
   */
  private fundTrader(rng: Rng, hip3Dexes: readonly string[], hip3Chance: number): Account {
    const leverage = rng.pick(LEVERAGE_CHOICES);
    const user = this.addAccount(new Account(rng.address(), 'user', leverage, rng.chance(0.7)));
    user.addUsdc('', Math.min(2_000_000, rng.logNormal(4000, 1.3)));
    for (const dex of hip3Dexes) {
      if (rng.chance(hip3Chance)) user.addUsdc(dex, Math.min(500_000, rng.logNormal(2000, 1.2)));
    }
    user.holding(USDC_TOKEN).total = Math.min(1_000_000, rng.logNormal(1500, 1.3));
    if (rng.chance(0.4)) user.holding(150).total = rng.logNormal(60, 1.2);
    if (rng.chance(0.3)) user.holding(1).total = Math.round(rng.logNormal(5000, 1.2));
    if (rng.chance(0.15)) user.holding(197).total = rng.logNormal(0.02, 1);
    if (rng.chance(0.5)) user.holding(USDH_TOKEN).total = rng.logNormal(400, 1);
    return user;
  }

  /**
   * A trader to act: a few are far more active than the rest. The default draws from its fixed traders; the
   * mainnet profile from its pool, creating the trader the first time it acts.
   */
  pickTrader(): Account {
    const u = this.rng.next();
    const pool = this.pool;
    if (!pool) return this.traders[Math.floor(this.traders.length * u ** 2)]!;
    return this.poolTrader(Math.floor(pool.size * u ** pool.skew));
  }

  /** Traders the mainnet profile's pool holds (the default: its fixed traders). */
  get poolSize(): number {
    return this.pool ? this.pool.size : this.traders.length;
  }

  /** The pool's trader at `index`, created (address and balances from its own stream) the first time. */
  poolTrader(index: number): Account {
    const pool = this.pool;
    if (!pool) return this.traders[index]!;
    let trader = pool.created.get(index);
    if (!trader) {
      const rng = new Rng(pool.seed, POOL_TRADER_STREAM + index);
      trader = this.fundTrader(rng, this.hip3DexNames, pool.hip3FundingChance);
      pool.created.set(index, trader);
    }
    return trader;
  }

  /** The account that takes a liquidated position over: HLP on the main dex, the dex's backstop on a HIP-3 dex. */
  liquidatorOf(dex: string): Account {
    return dex === '' ? this.hlp : (this.backstops.get(dex) ?? this.backstop);
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

  /** Starting USD price of a spot token (for initial balances). */
  private spotPx(token: number): number {
    if (token === USDC_TOKEN) return 1;
    const pair = this.catalog.spotPairs.find((p) => p.base === token);
    return pair ? pair.px : 1;
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
