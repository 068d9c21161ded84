// Minute samples of our own streams: one asset context per perp (the archive's asset_ctxs columns) and one
// borrow/lend reserve state per lending token. Reads the exchange's prices; its own randomness is separate.
import type { AssetCtxEvent, ReserveEvent } from '../../wire/node-lines.ts';
import { RESERVE_TOKENS } from './catalog.ts';
import { fmtNum, fmtRate, fmtUnits } from './decimal.ts';
import type { Exchange } from './exchange.ts';
import type { Market } from './market.ts';
import { Rng } from './rng.ts';

const MARKET_DATA_STREAM = 3;
/** Notional (USD) used for impact prices, as the exchange does with 20 × a base amount. */
const IMPACT_NOTIONAL = 20_000;

interface ReserveState {
  token: number;
  name: string;
  ltv: string;
  supplied: number;
  utilization: number;
}

export class MarketData {
  private readonly x: Exchange;
  private readonly rng: Rng;
  private readonly reserves: ReserveState[];

  constructor(exchange: Exchange, seed: number) {
    this.x = exchange;
    this.rng = new Rng(seed, MARKET_DATA_STREAM);
    this.reserves = RESERVE_TOKENS.map((r) => ({ ...r, utilization: this.rng.range(0.2, 0.7) }));
  }

  /** Called once per minute after the perps were touched; `minuteMs` is the minute boundary. */
  sample(minuteMs: number, assetCtxs: AssetCtxEvent[], reserves: ReserveEvent[]): void {
    for (const m of this.x.perps) {
      m.closeMinute();
      m.oraclePx = m.fair * (1 + 0.0003 * this.rng.normal());
      assetCtxs.push(this.assetCtx(m, minuteMs));
    }
    for (const r of this.reserves) reserves.push(this.reserve(r, minuteMs));
  }

  private assetCtx(m: Market, time: number): AssetCtxEvent {
    const oracleTicks = Math.max(1, Math.round(m.oraclePx * m.pxScale));
    const mid = m.midPx();
    const impactBid = impactPx(m, false);
    const impactAsk = impactPx(m, true);
    const premium =
      impactBid !== null && impactAsk !== null ? ((impactBid + impactAsk) / 2 - m.oraclePx) / m.oraclePx : null;
    return {
      time,
      coin: m.coin,
      funding: fmtRate(m.fundingRate, 6),
      open_interest: fmtUnits(m.longLots, m.szDecimals),
      prev_day_px: fmtNum(m.prevDayPx(), m.pxDecimals),
      day_ntl_vlm: fmtNum(m.dayNtl, 6),
      day_base_vlm: fmtNum(m.dayBase, m.szDecimals),
      premium: premium === null ? null : fmtNum(premium, 8),
      oracle_px: fmtUnits(oracleTicks, m.pxDecimals),
      mark_px: fmtUnits(m.markTicks(), m.pxDecimals),
      mid_px: mid === null ? null : fmtNum(mid, m.pxDecimals + 1),
      impact_bid_px: impactBid === null ? null : fmtNum(impactBid, m.pxDecimals),
      impact_ask_px: impactAsk === null ? null : fmtNum(impactAsk, m.pxDecimals),
    };
  }

  private reserve(r: ReserveState, time: number): ReserveEvent {
    r.supplied *= Math.exp(0.002 * this.rng.normal() - 0.000001 * Math.log(r.supplied / initialSupply(r.token)));
    r.utilization = Math.min(0.95, Math.max(0.05, r.utilization + 0.004 * this.rng.normal()));
    const supplied = roundTo(r.supplied, 6);
    const borrowed = roundTo(supplied * r.utilization, 6);
    const utilization = borrowed / supplied;
    // Kinked rate curve: gentle to 80 % utilisation, steep above.
    const borrowRate = 0.05 + 0.1 * Math.min(utilization, 0.8) + Math.max(0, utilization - 0.8) * 2;
    const supplyRate = borrowRate * utilization * 0.9;
    return {
      time,
      token: r.token,
      tokenName: r.name,
      borrowYearlyRate: fmtNum(borrowRate, 8),
      supplyYearlyRate: fmtNum(supplyRate, 8),
      balance: fmtNum(supplied - borrowed, 6),
      utilization: fmtNum(utilization, 10),
      oraclePx: fmtRate(this.oraclePx(r.token), 6),
      ltv: r.ltv,
      totalSupplied: fmtNum(supplied, 6),
      totalBorrowed: fmtNum(borrowed, 6),
    };
  }

  private oraclePx(token: number): number {
    if (token === 0) return 1;
    if (token === 197) return this.x.byCoin.get('BTC')?.fair ?? 1;
    const spot = this.x.spotMarkets.find((m) => m.baseToken === token);
    return spot ? spot.fair : 1;
  }
}

/** Average price to fill IMPACT_NOTIONAL against one side, or null when the book is too thin. */
function impactPx(m: Market, buying: boolean): number | null {
  const side = buying ? m.asks : m.bids;
  let ntl = 0;
  for (const o of side) {
    const price = o.px / m.pxScale;
    ntl += price * (o.sz / m.szScale);
    if (ntl >= IMPACT_NOTIONAL) return price;
  }
  return null;
}

function initialSupply(token: number): number {
  return RESERVE_TOKENS.find((r) => r.token === token)?.supplied ?? 1;
}

function roundTo(value: number, decimals: number): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}
