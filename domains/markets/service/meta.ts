// The node's metadata (perp meta, spotMeta) and asset contexts as the exchange prints them, what the metadata says
// of one coin, and the links spotMeta makes between spot tokens and their HyperEVM contracts.

import { FieldError } from '../../../platform/fields.ts';
import { isSpotCoin } from './coins.ts';
import { dexOf } from './hip3.ts';

export interface PerpAssetCtx {
  funding: string;
  openInterest: string;
  prevDayPx: string;
  dayNtlVlm: string;
  premium: string | null;
  oraclePx: string;
  markPx: string;
  midPx: string | null;
  impactPxs: [string, string] | null;
  dayBaseVlm: string;
}

export interface SpotAssetCtx {
  prevDayPx: string;
  dayNtlVlm: string;
  markPx: string;
  midPx: string | null;
  circulatingSupply: string;
  totalSupply: string;
  coin: string;
  dayBaseVlm: string;
}

export interface PerpMeta {
  universe: { name: string; szDecimals: number; maxLeverage: number; [k: string]: unknown }[];
  [k: string]: unknown;
}

export interface SpotMeta {
  universe: { name: string; tokens: number[]; index: number; isCanonical: boolean }[];
  tokens: SpotMetaToken[];
}

/** A token of spotMeta; `evmContract` names its HyperEVM contract (null when it has none). */
export interface SpotMetaToken {
  name: string;
  index: number;
  szDecimals?: number;
  evmContract?: { address: string; evm_extra_wei_decimals?: number } | null;
  [k: string]: unknown;
}

/** What the node's metadata says of one coin (meta of its perp dex, or spotMeta); outcome sides have none. */
export interface MarketInfo {
  kind: 'perp' | 'spot' | 'outcome';
  /** The HIP-3 dex of a `dex:COIN` perp; null for the first perp dex, spot and outcomes. */
  dex: string | null;
  szDecimals: number | null;
  maxLeverage: number | null;
  marginTableId: number | null;
  onlyIsolated: boolean;
  isDelisted: boolean;
  /** Spot pairs: the base and quote token names. */
  baseToken: string | null;
  quoteToken: string | null;
}

const NO_INFO = {
  dex: null,
  szDecimals: null,
  maxLeverage: null,
  marginTableId: null,
  onlyIsolated: false,
  isDelisted: false,
  baseToken: null,
  quoteToken: null,
} as const;

/** A `dex` the node does not know: the caller's mistake (a FieldError, so compat answers 400). */
export class UnknownDexError extends FieldError {
  override readonly name = 'UnknownDexError';
  constructor(dex: string) {
    super(`dex: no perp dex named ${JSON.stringify(dex)}`);
  }
}

/**
 * The node's metadata of a coin ("BTC", "xyz:XYZ100", "PURR/USDC", "@1", "#2901"); null when its dex or pair list
 * does not hold it.
 */
export async function marketInfoOf(
  coin: string,
  node: { meta(dex: string): Promise<PerpMeta>; spotMeta(): Promise<SpotMeta> },
): Promise<MarketInfo | null> {
  if (coin.startsWith('#')) return { kind: 'outcome', ...NO_INFO };
  if (isSpotCoin(coin)) {
    const spot = await node.spotMeta();
    const pair = spot.universe.find((u) => u.name === coin);
    if (!pair) return null;
    const [base, quote] = pair.tokens.map((i) => spot.tokens.find((tk) => tk.index === i));
    return {
      kind: 'spot',
      ...NO_INFO,
      szDecimals: base?.szDecimals ?? null,
      baseToken: base?.name ?? null,
      quoteToken: quote?.name ?? null,
    };
  }
  const dex = dexOf(coin);
  let meta: PerpMeta;
  try {
    meta = await node.meta(dex);
  } catch (err) {
    if (err instanceof UnknownDexError) return null;
    throw err;
  }
  const asset = meta.universe.find((u) => u.name === coin);
  if (!asset) return null;
  return {
    kind: 'perp',
    ...NO_INFO,
    dex: dex || null,
    szDecimals: asset.szDecimals,
    maxLeverage: asset.maxLeverage,
    marginTableId: typeof asset.marginTableId === 'number' ? asset.marginTableId : null,
    onlyIsolated: asset.onlyIsolated === true,
    isDelisted: asset.isDelisted === true,
  };
}

/** A token's HyperEVM contract address in lowercase; null when it has none. */
function contractOf(t: SpotMetaToken): string | null {
  const address = t.evmContract?.address;
  return typeof address === 'string' ? address.toLowerCase() : null;
}

/** The HyperEVM contract of each spot token of `indexes`; null for a token with none, or unknown. */
export function evmContractsOf(spot: SpotMeta, indexes: readonly number[]): (string | null)[] {
  const byIndex = new Map(spot.tokens.map((t) => [t.index, contractOf(t)]));
  return indexes.map((i) => byIndex.get(i) ?? null);
}

/** The spot token (index) whose HyperEVM contract each of `contracts` is (any case); null for one no token names. */
export function spotTokensOfContracts(spot: SpotMeta, contracts: readonly string[]): (number | null)[] {
  const byContract = new Map<string, number>();
  for (const t of spot.tokens) {
    const c = contractOf(t);
    if (c !== null && !byContract.has(c)) byContract.set(c, t.index);
  }
  return contracts.map((c) => byContract.get(c.toLowerCase()) ?? null);
}
