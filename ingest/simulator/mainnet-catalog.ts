// The mainnet profile's listings: ~230 main-dex perps, ~250 spot pairs and six HIP-3 dexes (profile.ts for the
// counts and their sources). The default's markets come first, as they are; the rest are made from a fixed random
// stream (the same for every seed, as a real exchange's listings are), with Zipf-like weights so that a few markets
// carry most of the activity, as on mainnet.
import {
  type Catalog,
  HIP3_DEX,
  type Hip3Dex,
  NATIVE_PERPS,
  type PerpListing,
  SPOT_PAIRS,
  SPOT_TOKEN_COUNT,
  SPOT_TOKENS,
  type SpotListing,
} from './catalog.ts';
import type { MainnetProfile } from './profile.ts';
import { Rng } from './rng.ts';

/** Real tickers for the busier part of the tail (after the default's seven); generated names after them. */
const PERP_NAMES = (
  'XRP BNB LINK SUI ADA LTC BCH DOT NEAR APT OP TIA INJ SEI WIF kPEPE kBONK ENA TAO WLD PENDLE ONDO JUP TRUMP ' +
  'FARTCOIN PUMP AAVE UNI CRV LDO TON TRX XLM HBAR FIL ATOM ETC ZEC XMR VIRTUAL POPCAT RUNE STX IMX DYDX GMX SNX ' +
  'COMP ORDI BERA IP KAITO MOVE ZRO EIGEN STRK ZK PYTH JTO ETHFI NOT BRETT MEW MOODENG GOAT PNUT AIXBT S BLAST MNT'
).split(' ');
/** Each dex's name and coins (space-separated): what it lists, as mainnet's dexes do (stocks, pre-IPO, indexes). */
const HIP3_NAMES: Record<string, [fullName: string, coins: string]> = {
  xyz: ['XYZ Markets', 'NVDA AAPL MSFT AMZN META GOOGL COIN'],
  flx: ['Felix Exchange', 'TSLA GOLD SILVER OIL NVDA SPX COIN MSTR CRCL HOOD'],
  vntl: ['Ventuals', 'OPENAI SPACEX ANTHROPIC XAI STRIPE DISCORD KRAKEN POLY KALSHI FIGMA'],
  hyna: ['Hyena', 'BTC ETH SOL HYPE XRP DOGE SUI ZEC LINK ENA'],
  km: ['Kinetiq Markets', 'USTECH US500 GOLD OIL NVDA TSLA JP225 EUR JPY SMALL2000'],
  cash: ['Dreamcash', 'NVDA TSLA AAPL AMZN META MSFT GOOGL AMD NFLX PLTR'],
};
/** A fixed stream, not the seed's: listings are the exchange's, the same for every simulation. */
const CATALOG_SEED = 0x3a1;
/** Weight units: every market's weight is a share of these (HIP-4 outcome markets share a fixed 7 beside them). */
const TOTAL_WEIGHT = 1000;

export function mainnetCatalog(p: MainnetProfile): Catalog {
  const rng = new Rng(CATALOG_SEED, 9);
  const mainWeight = TOTAL_WEIGHT * (1 - p.hip3ActionShare - p.spotActionShare);
  // The default's seven keep their relative weights and carry half of the main dex; a Zipf tail carries the rest.
  const nativeTotal = NATIVE_PERPS.reduce((sum, l) => sum + l.weight, 0);
  const perps: PerpListing[] = NATIVE_PERPS.map((l) => ({ ...l, weight: (l.weight / nativeTotal) * mainWeight * 0.5 }));
  const used = new Set(perps.map((l) => l.name));
  const tail: PerpListing[] = [];
  for (let i = 0; perps.length + tail.length < p.perps; i++) {
    const name = PERP_NAMES[i] ?? generatedName(rng, used);
    used.add(name);
    tail.push(listing(rng, name, 1 / (i + 2)));
  }
  perps.push(...scaled(tail, mainWeight * 0.5));

  const dexWeight = (TOTAL_WEIGHT * p.hip3ActionShare) / p.hip3Dexes.length;
  const hip3Dexes = p.hip3Dexes.map((name, d): Hip3Dex => {
    const known = HIP3_NAMES[name];
    const coins = known ? known[1].split(' ') : [];
    const taken = new Set(coins);
    while (coins.length < p.hip3PerpsPerDex) {
      const coin = generatedName(rng, taken);
      taken.add(coin);
      coins.push(coin);
    }
    const listings = coins
      .slice(0, p.hip3PerpsPerDex)
      .map((coin, i) => ({ ...listing(rng, `${name}:${coin}`, 1 / (i + 1)), maxLeverage: 10, marginTableId: 10 }));
    // xyz keeps the default's three markets at the head of its list.
    const head = name === HIP3_DEX.name ? HIP3_DEX.perps : [];
    const rest = listings.filter((l) => !head.some((h) => h.name === l.name)).slice(0, p.hip3PerpsPerDex - head.length);
    return {
      name,
      fullName: known?.[0] ?? name,
      index: d + 1,
      deployerFeeScale: '1.0',
      perps: scaled([...head, ...rest], dexWeight),
    };
  });

  // Spot: the default's five pairs, then `@5`… on tokens no pair uses yet, each quoted in USDC.
  const spotPairs: SpotListing[] = [...SPOT_PAIRS];
  const bases = new Set([...SPOT_PAIRS.map((s) => s.base), ...SPOT_TOKENS.map((t) => t.index)]);
  let token = 2;
  const extra: SpotListing[] = [];
  while (spotPairs.length + extra.length < p.spotPairs && token < SPOT_TOKEN_COUNT) {
    if (!bases.has(token)) {
      const index = spotPairs.length + extra.length;
      const px = Math.exp(rng.range(Math.log(0.0005), Math.log(40)));
      const szDecimals = Math.max(0, Math.min(4, Math.floor(Math.log10(px)) + 2));
      extra.push({
        name: `@${index}`,
        index,
        base: token,
        quote: 0,
        szDecimals,
        pxDecimals: Math.max(0, Math.min(8 - szDecimals, 4 - Math.floor(Math.log10(px)))),
        px,
        vol: rng.range(0.8, 2),
        weight: 1 / (index + 1),
      });
    }
    token++;
  }
  const spotWeight = TOTAL_WEIGHT * p.spotActionShare;
  const allSpot = scaled([...spotPairs, ...extra], spotWeight);
  return { perps, hip3Dexes, spotPairs: allSpot };
}

/** A perp listing at a log-uniform price with ~5 significant figures of tick and a lot worth cents to a dollar. */
function listing(rng: Rng, name: string, weight: number): PerpListing {
  const px = Math.exp(rng.range(Math.log(0.001), Math.log(800)));
  const magnitude = Math.floor(Math.log10(px));
  const szDecimals = Math.max(0, Math.min(5, magnitude + 1));
  const maxLeverage = rng.pick([3, 5, 10, 10, 20]);
  return {
    name,
    szDecimals,
    pxDecimals: Math.max(0, Math.min(6 - szDecimals, 4 - magnitude)),
    px,
    maxLeverage,
    marginTableId: maxLeverage,
    vol: rng.range(0.7, 1.6),
    weight,
  };
}

/** The listings with weights rescaled to sum to `total`, relative weights kept. */
function scaled<T extends { weight: number }>(items: readonly T[], total: number): T[] {
  const sum = items.reduce((s, l) => s + l.weight, 0);
  return items.map((l) => ({ ...l, weight: (l.weight / sum) * total }));
}

function generatedName(rng: Rng, taken: Set<string>): string {
  for (;;) {
    const length = 3 + rng.int(3);
    let name = '';
    for (let i = 0; i < length; i++) name += String.fromCharCode(65 + rng.int(26));
    if (!taken.has(name)) return name;
  }
}
