// The simulated exchange's fixed listings: native perps, the HIP-3 dex, spot tokens and pairs, margin tables and
// fee schedule. Prices are starting points; each market's tick (pxDecimals) keeps 5 significant figures over the
// range its random walk is confined to ([0.5, 2) × start).

export interface PerpListing {
  name: string;
  szDecimals: number;
  pxDecimals: number;
  px: number;
  maxLeverage: number;
  marginTableId: number;
  /** Annualised volatility of the fair price. */
  vol: number;
  /** Share of trading activity. */
  weight: number;
  onlyIsolated?: boolean;
}

export const NATIVE_PERPS: readonly PerpListing[] = [
  { name: 'BTC', szDecimals: 5, pxDecimals: 0, px: 90000, maxLeverage: 40, marginTableId: 56, vol: 0.6, weight: 24 },
  { name: 'ETH', szDecimals: 4, pxDecimals: 1, px: 3000, maxLeverage: 25, marginTableId: 55, vol: 0.75, weight: 17 },
  { name: 'SOL', szDecimals: 2, pxDecimals: 2, px: 140, maxLeverage: 20, marginTableId: 20, vol: 0.9, weight: 9 },
  { name: 'HYPE', szDecimals: 2, pxDecimals: 3, px: 35, maxLeverage: 10, marginTableId: 10, vol: 1.1, weight: 11 },
  { name: 'DOGE', szDecimals: 0, pxDecimals: 5, px: 0.16, maxLeverage: 10, marginTableId: 10, vol: 1.0, weight: 4 },
  { name: 'AVAX', szDecimals: 2, pxDecimals: 3, px: 25, maxLeverage: 10, marginTableId: 10, vol: 1.0, weight: 3 },
  { name: 'ARB', szDecimals: 1, pxDecimals: 4, px: 0.5, maxLeverage: 5, marginTableId: 5, vol: 1.0, weight: 2 },
];

export interface Hip3Dex {
  name: string;
  fullName: string;
  /** Perp dex index: asset ids 100000 + index·10000 + i, backstop address 0x4000…index. */
  index: number;
  deployerFeeScale: string;
  perps: readonly PerpListing[];
}

export const HIP3_DEX: Hip3Dex = {
  name: 'xyz',
  fullName: 'XYZ Markets',
  /** Perp dex index: asset ids 100000 + 1·10000 + i, backstop address 0x4000…0001. */
  index: 1,
  deployerFeeScale: '1.0',
  perps: [
    {
      name: 'xyz:XYZ100',
      szDecimals: 4,
      pxDecimals: 0,
      px: 25000,
      maxLeverage: 20,
      marginTableId: 20,
      vol: 0.5,
      weight: 4,
    },
    {
      name: 'xyz:GOLD',
      szDecimals: 4,
      pxDecimals: 1,
      px: 4000,
      maxLeverage: 20,
      marginTableId: 20,
      vol: 0.3,
      weight: 3,
    },
    {
      name: 'xyz:TSLA',
      szDecimals: 3,
      pxDecimals: 2,
      px: 400,
      maxLeverage: 10,
      marginTableId: 10,
      vol: 0.8,
      weight: 2,
      onlyIsolated: true,
    },
  ],
};

/** A HIP-3 dex's backstop address: 0x4 then its index, zero-padded to 40 hex digits. */
export const backstopAddress = (dexIndex: number) => `0x4${String(dexIndex).padStart(39, '0')}`;

export const BACKSTOP_ADDRESS = backstopAddress(HIP3_DEX.index);

export interface SpotToken {
  index: number;
  name: string;
  szDecimals: number;
  weiDecimals: number;
  fullName: string | null;
  evmContract: { address: string; evm_extra_wei_decimals: number } | null;
}

/** Tokens with a role in the simulation; spotMeta pads the other indexes so `tokens[i].index === i`. */
export const SPOT_TOKENS: readonly SpotToken[] = [
  { index: 0, name: 'USDC', szDecimals: 8, weiDecimals: 8, fullName: 'USD Coin', evmContract: null },
  { index: 1, name: 'PURR', szDecimals: 0, weiDecimals: 5, fullName: 'Purr', evmContract: null },
  {
    index: 150,
    name: 'HYPE',
    szDecimals: 2,
    weiDecimals: 8,
    fullName: 'Hyperliquid',
    evmContract: { address: '0x2222222222222222222222222222222222222222', evm_extra_wei_decimals: 10 },
  },
  {
    index: 197,
    name: 'UBTC',
    szDecimals: 5,
    weiDecimals: 10,
    fullName: 'Unit Bitcoin',
    evmContract: { address: '0x9fdbda0a5e284c32744d2f17ee5c74b284993463', evm_extra_wei_decimals: -2 },
  },
  {
    index: 268,
    name: 'USDT0',
    szDecimals: 2,
    weiDecimals: 8,
    fullName: 'USD₮0',
    evmContract: { address: '0xb8ce59fc3717ada4c02eadf9682a9e934f625ebb', evm_extra_wei_decimals: -2 },
  },
  { index: 360, name: 'USDH', szDecimals: 2, weiDecimals: 8, fullName: 'USDH', evmContract: null },
];

export const USDC_TOKEN = 0;
export const USDH_TOKEN = 360;
export const SPOT_TOKEN_COUNT = 361;

export interface SpotListing {
  /** "PURR/USDC" for index 0, "@<index>" otherwise. */
  name: string;
  index: number;
  base: number;
  quote: number;
  szDecimals: number;
  pxDecimals: number;
  px: number;
  vol: number;
  weight: number;
  /** Follows this perp's fair price instead of walking on its own. */
  underlying?: string;
}

export const SPOT_PAIRS: readonly SpotListing[] = [
  { name: 'PURR/USDC', index: 0, base: 1, quote: 0, szDecimals: 0, pxDecimals: 5, px: 0.2, vol: 1.2, weight: 2 },
  {
    name: '@1',
    index: 1,
    base: 150,
    quote: 0,
    szDecimals: 2,
    pxDecimals: 3,
    px: 35,
    vol: 1.1,
    weight: 4,
    underlying: 'HYPE',
  },
  {
    name: '@2',
    index: 2,
    base: 197,
    quote: 0,
    szDecimals: 5,
    pxDecimals: 0,
    px: 90000,
    vol: 0.9,
    weight: 2,
    underlying: 'BTC',
  },
  { name: '@3', index: 3, base: 268, quote: 0, szDecimals: 2, pxDecimals: 4, px: 1, vol: 0.01, weight: 1 },
  { name: '@4', index: 4, base: 360, quote: 0, szDecimals: 2, pxDecimals: 4, px: 1, vol: 0.01, weight: 1 },
];

/** What an exchange lists at genesis: the default's fixed listings, or a profile's (mainnet-catalog.ts). */
export interface Catalog {
  perps: readonly PerpListing[];
  hip3Dexes: readonly Hip3Dex[];
  spotPairs: readonly SpotListing[];
}

export const DEFAULT_CATALOG: Catalog = { perps: NATIVE_PERPS, hip3Dexes: [HIP3_DEX], spotPairs: SPOT_PAIRS };

/** Borrow/lend reserves sampled each minute (token index → name, LTV). */
export const RESERVE_TOKENS: readonly { token: number; name: string; ltv: string; supplied: number }[] = [
  { token: 0, name: 'USDC', ltv: '0.0', supplied: 80_000_000 },
  { token: 150, name: 'HYPE', ltv: '0.5', supplied: 2_500_000 },
  { token: 197, name: 'UBTC', ltv: '0.7', supplied: 400 },
  { token: 268, name: 'USDT0', ltv: '0.8', supplied: 30_000_000 },
  { token: 360, name: 'USDH', ltv: '0.8', supplied: 12_000_000 },
];

export interface MarginTier {
  lowerBound: string;
  maxLeverage: number;
}

export const MARGIN_TABLES: readonly [number, { description: string; marginTiers: MarginTier[] }][] = [
  ...[3, 5, 10, 20, 25, 40, 50].map((lev): [number, { description: string; marginTiers: MarginTier[] }] => [
    lev,
    { description: '', marginTiers: [{ lowerBound: '0.0', maxLeverage: lev }] },
  ]),
  [
    55,
    {
      description: 'tiered 25x',
      marginTiers: [
        { lowerBound: '0.0', maxLeverage: 25 },
        { lowerBound: '100000000.0', maxLeverage: 15 },
      ],
    },
  ],
  [
    56,
    {
      description: 'tiered 40x',
      marginTiers: [
        { lowerBound: '0.0', maxLeverage: 40 },
        { lowerBound: '150000000.0', maxLeverage: 20 },
      ],
    },
  ],
];

export const MAX_MARKET_ORDER_NTLS: readonly [number, string][] = [
  [3, '1000000.0'],
  [5, '2000000.0'],
  [10, '3000000.0'],
  [20, '5000000.0'],
  [25, '10000000.0'],
  [40, '15000000.0'],
  [50, '20000000.0'],
];

/** Fee rates as fractions of notional. Market makers earn a small rebate. */
export const FEES = {
  perpTaker: 0.00045,
  perpMaker: 0.00015,
  makerRebate: -0.00002,
  spotTaker: 0.0007,
  spotMaker: 0.0004,
  outcomeTaker: 0.0005,
  outcomeMaker: 0.0001,
  /** HIP-3 dexes charge twice the base fee; the deployer receives the extra half. */
  hip3Multiplier: 2,
} as const;

const TOKEN_BY_INDEX = new Map(SPOT_TOKENS.map((t) => [t.index, t]));

export function tokenName(index: number): string {
  return TOKEN_BY_INDEX.get(index)?.name ?? `TKN${index}`;
}

export function tokenWeiDecimals(index: number): number {
  return TOKEN_BY_INDEX.get(index)?.weiDecimals ?? 8;
}
