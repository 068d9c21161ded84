// Answers to a node's `POST /info` bodies from the simulator's live state, in the exchange's wire shapes
// (hyperliquid-wire.md §2–3). Anything a node would refuse raises InfoRequestError (→ 422).
import type { Account, PerpPosition } from './account.ts';
import type { PastBook, PastOrder } from './book-history.ts';
import {
  type Catalog,
  MARGIN_TABLES,
  MAX_MARKET_ORDER_NTLS,
  SPOT_TOKEN_COUNT,
  SPOT_TOKENS,
  tokenName,
  tokenWeiDecimals,
  USDC_TOKEN,
} from './catalog.ts';
import { fmtNum, fmtRate, fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market, RestingOrder, TriggerOrder } from './market.ts';
import { Rng } from './rng.ts';
import { restingNodeOrder, triggerNodeOrder } from './statuses.ts';

/** What a node answers (HTTP 422, text/plain) to a body it cannot deserialize, including unknown types. */
export class InfoRequestError extends Error {
  readonly statusCode = 422;
  constructor(message = 'Failed to deserialize the JSON body into the target type') {
    super(message);
    this.name = 'InfoRequestError';
  }
}

export const SUPPORTED_INFO_TYPES = [
  'meta',
  'spotMeta',
  'clearinghouseState',
  'spotClearinghouseState',
  'openOrders',
  'frontendOpenOrders',
  'marginTable',
  'maxMarketOrderNtls',
  'leadingVaults',
  'perpDexs',
  'exchangeStatus',
  'userRole',
  'userFees',
  'subAccounts',
  'delegations',
  'vaultSummaries',
] as const;

type Body = Record<string, unknown>;

/**
 * The node's `l4Snapshots` content (what `fileSnapshot` writes): every coin's resting orders, bids then asks in
 * price-time priority, each as `[user, order]` with its size at that height. Trigger orders are not on the book
 * and are left out (the service asks with `includeTriggerOrders: false`).
 */
export function l4Snapshot(books: readonly PastBook[]): [string, [[string, unknown][], [string, unknown][]]][] {
  const entry = ({ order, sz }: PastOrder): [string, unknown] => [order.user.address, restingNodeOrder(order, sz)];
  return books.map(([coin, bids, asks]) => [coin, [bids.map(entry), asks.map(entry)]]);
}

/** The books as they stand now, in l4Snapshot's input. */
export function currentBooks(x: Exchange): PastBook[] {
  const now = (o: RestingOrder): PastOrder => ({ order: o, sz: o.sz });
  return x.markets.map((m) => [m.coin, m.bids.map(now), m.asks.map(now)]);
}

export function answerInfo(x: Exchange, nowMs: number, body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InfoRequestError();
  const req = body as Body;
  switch (req.type) {
    case 'meta':
      return meta(x, dexOf(req));
    case 'spotMeta':
      return spotMeta(x.catalog);
    case 'clearinghouseState':
      return clearinghouseState(x, userOf(req), dexOf(req), nowMs);
    case 'spotClearinghouseState':
      return spotClearinghouseState(x, userOf(req));
    case 'openOrders':
      return userOrders(x, userOf(req), dexOf(req)).map(openOrder);
    case 'frontendOpenOrders':
      return userOrders(x, userOf(req), dexOf(req)).map((o) =>
        'triggerPx' in o ? triggerNodeOrder(o) : restingNodeOrder(o, o.sz),
      );
    case 'marginTable':
      return marginTable(req);
    case 'maxMarketOrderNtls':
      return MAX_MARKET_ORDER_NTLS;
    case 'leadingVaults':
      return userOf(req) === x.makers[0]?.address
        ? [{ address: x.hlp.address, name: 'Hyperliquidity Provider (HLP)' }]
        : [];
    case 'perpDexs':
      return perpDexs(x);
    case 'exchangeStatus':
      return { time: nowMs, specialStatuses: null };
    case 'userRole':
      return userRole(x, userOf(req));
    case 'userFees':
      return userFees(userOf(req), nowMs);
    case 'subAccounts':
      // No simulated account has sub-accounts: the node answers null then.
      userOf(req);
      return null;
    case 'delegations':
      userOf(req);
      return [];
    case 'vaultSummaries':
      return [vaultSummary(x, nowMs)];
    default:
      throw new InfoRequestError();
  }
}

function userOf(req: Body): string {
  const user = req.user;
  if (typeof user !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(user)) throw new InfoRequestError();
  return user.toLowerCase();
}

function dexOf(req: Body): string {
  const dex = req.dex;
  if (dex === undefined || dex === null) return '';
  if (typeof dex !== 'string') throw new InfoRequestError();
  return dex;
}

function perpsOf(x: Exchange, dex: string): Market[] {
  return x.perps.filter((m) => m.dex === dex);
}

function meta(x: Exchange, dex: string): unknown {
  const perps = perpsOf(x, dex);
  if (perps.length === 0) return null;
  return {
    universe: perps.map((m) => ({
      name: m.coin,
      szDecimals: m.szDecimals,
      maxLeverage: m.maxLeverage,
      marginTableId: m.marginTableId,
      ...(m.onlyIsolated ? { onlyIsolated: true } : {}),
    })),
    marginTables: MARGIN_TABLES,
    collateralToken: USDC_TOKEN,
  };
}

const spotMetaCache = new WeakMap<Catalog, unknown>();

function spotMeta(catalog: Catalog): unknown {
  const cached = spotMetaCache.get(catalog);
  if (cached) return cached;
  const known = new Map(SPOT_TOKENS.map((t) => [t.index, t]));
  // Token ids are fixed per index (not per seed): a token keeps its id across simulations.
  const ids = new Rng(0x5107, 7);
  const tokens = Array.from({ length: SPOT_TOKEN_COUNT }, (_, index) => {
    const t = known.get(index);
    const tokenId = `0x${ids.hex(16)}`;
    return {
      name: t?.name ?? `TKN${index}`,
      szDecimals: t?.szDecimals ?? 2,
      weiDecimals: t?.weiDecimals ?? 8,
      index,
      tokenId,
      isCanonical: index <= 1,
      evmContract: t?.evmContract ?? null,
      fullName: t?.fullName ?? null,
      deployerTradingFeeShare: '0.0',
    };
  });
  const answer = {
    universe: catalog.spotPairs.map((p) => ({
      tokens: [p.base, p.quote],
      name: p.name,
      index: p.index,
      isCanonical: p.index === 0,
    })),
    tokens,
  };
  spotMetaCache.set(catalog, answer);
  return answer;
}

function clearinghouseState(x: Exchange, user: string, dex: string, nowMs: number): unknown {
  const acct = x.byAddress.get(user);
  const positions = acct ? [...acct.positions.values()].filter((p) => p.market.dex === dex) : [];
  const usdc = acct ? acct.usdc(dex) : 0;
  let upnl = 0;
  let crossUpnl = 0;
  let ntl = 0;
  let crossNtl = 0;
  let signedNtl = 0;
  let crossSignedNtl = 0;
  let marginUsed = 0;
  let crossMarginUsed = 0;
  let maintenance = 0;
  let isolatedMargin = 0;
  for (const p of positions) {
    const mark = p.market.markPx();
    const size = p.szi / p.market.szScale;
    const pnl = size * (mark - p.entryPx);
    upnl += pnl;
    ntl += Math.abs(size) * mark;
    signedNtl += size * mark;
    if (p.isCross) {
      crossUpnl += pnl;
      crossNtl += Math.abs(size) * mark;
      crossSignedNtl += size * mark;
      crossMarginUsed += (Math.abs(size) * mark) / p.leverage;
      maintenance += (Math.abs(size) * mark) / (2 * p.market.maxLeverage);
    } else {
      isolatedMargin += p.isolatedMargin;
      marginUsed += p.isolatedMargin + pnl;
    }
  }
  marginUsed += crossMarginUsed;
  const accountValue = usdc + upnl;
  const crossAccountValue = usdc - isolatedMargin + crossUpnl;
  const summary = (value: number, total: number, signed: number, used: number) => ({
    accountValue: fmtNum(value, 6),
    totalNtlPos: fmtNum(total, 6),
    totalRawUsd: fmtNum(value - signed, 6),
    totalMarginUsed: fmtNum(used, 6),
  });
  return {
    marginSummary: summary(accountValue, ntl, signedNtl, marginUsed),
    crossMarginSummary: summary(crossAccountValue, crossNtl, crossSignedNtl, crossMarginUsed),
    crossMaintenanceMarginUsed: fmtNum(maintenance, 6),
    withdrawable: fmtNum(Math.max(0, accountValue - marginUsed), 6),
    assetPositions: positions.map((p) => ({
      type: 'oneWay',
      position: assetPosition(p, crossAccountValue, maintenance),
    })),
    time: nowMs,
  };
}

function assetPosition(p: PerpPosition, crossAccountValue: number, crossMaintenance: number): unknown {
  const m = p.market;
  const mark = m.markPx();
  const size = p.szi / m.szScale;
  const value = Math.abs(size) * mark;
  const upnl = size * (mark - p.entryPx);
  const initialMargin = (Math.abs(size) * p.entryPx) / p.leverage;
  const mmRate = 1 / (2 * m.maxLeverage);
  let liquidationPx: number;
  if (p.isCross) {
    // Price at which the cross account value meets maintenance if only this position moves.
    const slack = crossAccountValue - crossMaintenance;
    liquidationPx = size > 0 ? mark - slack / (size * (1 - mmRate)) : mark + slack / (Math.abs(size) * (1 + mmRate));
  } else {
    const marginPerUnit = p.isolatedMargin / Math.abs(size);
    liquidationPx = size > 0 ? (p.entryPx - marginPerUnit) / (1 - mmRate) : (p.entryPx + marginPerUnit) / (1 + mmRate);
  }
  return {
    coin: m.coin,
    szi: fmtUnits(p.szi, m.szDecimals),
    leverage: p.isCross
      ? { type: 'cross', value: p.leverage }
      : { type: 'isolated', value: p.leverage, rawUsd: fmtNum(p.isolatedMargin - size * p.entryPx, 6) },
    entryPx: fmtRate(p.entryPx, 6),
    positionValue: fmtNum(value, 6),
    unrealizedPnl: fmtNum(upnl, 6),
    returnOnEquity: fmtNum(initialMargin > 0 ? upnl / initialMargin : 0, 8),
    liquidationPx: liquidationPx > 0 && Number.isFinite(liquidationPx) ? fmtRate(liquidationPx, 6) : null,
    marginUsed: fmtNum(p.isCross ? value / p.leverage : p.isolatedMargin + upnl, 6),
    maxLeverage: m.maxLeverage,
    cumFunding: {
      allTime: fmtNum(p.fundingAllTime, 6),
      sinceOpen: fmtNum(p.fundingSinceOpen, 6),
      sinceChange: fmtNum(p.fundingSinceChange, 6),
    },
  };
}

function spotClearinghouseState(x: Exchange, user: string): unknown {
  const acct = x.byAddress.get(user);
  if (!acct) return { balances: [] };
  const holds = spotHolds(acct);
  const balances = [...acct.spot.entries()]
    .filter(([token, h]) => token === USDC_TOKEN || h.total > 1e-9)
    .sort((a, b) => a[0] - b[0])
    .map(([token, h]) => {
      const decimals = Math.min(8, tokenWeiDecimals(token));
      return {
        coin: tokenName(token),
        token,
        total: fmtNum(Math.max(0, h.total), decimals),
        hold: fmtNum(holds.get(token) ?? 0, decimals),
        entryNtl: fmtNum(h.entryNtl, 6),
      };
    });
  return { balances };
}

/** Balances locked by resting spot orders: quote for bids, base for asks. */
function spotHolds(acct: Account): Map<number, number> {
  const holds = new Map<number, number>();
  for (const o of acct.orders) {
    const m = o.market;
    if (m.kind !== 'spot') continue;
    const qty = o.sz / m.szScale;
    const token = o.isBuy ? m.quoteToken : m.baseToken;
    const amount = o.isBuy ? qty * (o.px / m.pxScale) : qty;
    holds.set(token, (holds.get(token) ?? 0) + amount);
  }
  return holds;
}

/** Open orders (resting and untriggered) on one perp dex; spot and outcome orders count as the first dex's. */
function userOrders(x: Exchange, user: string, dex: string): (RestingOrder | TriggerOrder)[] {
  const acct = x.byAddress.get(user);
  if (!acct) return [];
  const onDex = (m: Market) => (dex === '' ? m.dex === '' || m.dex === 'spot' || m.dex === 'outcome' : m.dex === dex);
  const orders: (RestingOrder | TriggerOrder)[] = [
    ...acct.orders.filter((o) => onDex(o.market)),
    ...acct.triggers.filter((t) => onDex(t.market)),
  ];
  return orders.sort((a, b) => b.timestamp - a.timestamp || b.oid - a.oid);
}

function openOrder(o: RestingOrder | TriggerOrder): unknown {
  const m = o.market;
  const origSz = 'origSz' in o ? o.origSz : o.sz;
  return {
    coin: m.coin,
    side: o.isBuy ? 'B' : 'A',
    limitPx: fmtUnits('triggerPx' in o ? o.limitPx : o.px, m.pxDecimals),
    sz: fmtUnits(o.sz, m.szDecimals),
    oid: o.oid,
    timestamp: o.timestamp,
    origSz: fmtUnits(origSz, m.szDecimals),
    ...(o.cloid ? { cloid: o.cloid } : {}),
    ...('triggerPx' in o || o.reduceOnly ? { reduceOnly: true } : {}),
  };
}

function marginTable(req: Body): unknown {
  const id = req.id;
  if (typeof id !== 'number' || !Number.isInteger(id)) throw new InfoRequestError();
  const table = MARGIN_TABLES.find(([tableId]) => tableId === id);
  return table ? table[1] : null;
}

function perpDexs(x: Exchange): unknown {
  return [
    null,
    ...x.perpDexes.map(({ dex, deployer, subDeployer }) => ({
      name: dex.name,
      fullName: dex.fullName,
      deployer,
      oracleUpdater: subDeployer,
      feeRecipient: deployer,
      assetToStreamingOiCap: perpsOf(x, dex.name).map((m) => [m.coin, '50000000.0']),
      subDeployers: [
        ['setOracle', [subDeployer]],
        ['setOpenInterestCaps', [subDeployer]],
      ],
      deployerFeeScale: dex.deployerFeeScale,
      lastDeployerFeeScaleChangeTime: '1970-01-01T00:00:00',
      assetToFundingMultiplier: [],
      assetToFundingInterestRate: [],
    })),
  ];
}

function userRole(x: Exchange, user: string): unknown {
  const acct = x.byAddress.get(user);
  if (!acct) return { role: 'missing' };
  return { role: acct.role === 'vault' ? 'vault' : 'user' };
}

/** The exchange's base fee schedule (tier 0, no discounts): every simulated user pays it. */
function userFees(_user: string, nowMs: number): unknown {
  return {
    // The simulator keeps no per-user volume: today's row, zero.
    dailyUserVlm: [
      { date: new Date(nowMs).toISOString().slice(0, 10), userCross: '0.0', userAdd: '0.0', exchange: '0.0' },
    ],
    feeSchedule: {
      cross: '0.00045',
      add: '0.00015',
      spotCross: '0.0007',
      spotAdd: '0.0004',
      tiers: { vip: [], mm: [] },
      referralDiscount: '0.04',
      stakingDiscountTiers: [{ bpsOfMaxSupply: '0.0', discount: '0.0' }],
    },
    userCrossRate: '0.00045',
    userAddRate: '0.00015',
    userSpotCrossRate: '0.0007',
    userSpotAddRate: '0.0004',
    activeReferralDiscount: '0.0',
    trial: null,
    feeTrialEscrow: '0.0',
    nextTrialAvailableTimestamp: null,
    stakingLink: null,
    activeStakingDiscount: { bpsOfMaxSupply: '0.0', discount: '0.0' },
  };
}

/** The one simulated vault, HLP, as vaultSummaries lists it. */
function vaultSummary(x: Exchange, nowMs: number): unknown {
  return {
    name: 'Hyperliquidity Provider (HLP)',
    vaultAddress: x.hlp.address,
    leader: x.makers[0]?.address ?? x.hlp.address,
    tvl: fmtNum(x.hlp.usdc(''), 2),
    isClosed: false,
    relationship: { type: 'parent', data: { childAddresses: [] } },
    createTimeMillis: nowMs - 86_400_000,
  };
}
