// The market-history series of a book recorded elsewhere (the public archive's l2Book lines, `npm run import`):
// its best levels, depth bands and slippage, measured as the live sampler measures a book (book/depth.ts).
import type { HistoryBboRow, HistoryBookRow, HistoryDepthRow, HistorySlippageRow } from '../../../db/rows/markets.ts';
import { formatScaled, scaled } from '../../../platform/decimal.ts';
import { midPrice, type PriceLevel } from './book/coin-book.ts';
import { depthBands, impactBps } from './book/depth.ts';
import { SLIPPAGE_NOTIONALS } from './history.ts';

type WireLevel = HistoryBookRow['levels'][0][number];

/** The rows a recorded book adds besides itself: its best levels; depth and slippage when both sides hold a level. */
export interface RecordedBookSeries {
  bbo: HistoryBboRow;
  depth: HistoryDepthRow | null;
  slippage: HistorySlippageRow[];
}

/** A printed level as the book measures take it (its size given, not summed from orders). */
function priceLevel(level: WireLevel): PriceLevel {
  return { px: level.px, pxNum: Number(level.px), orders: new Set(), size: scaled(level.sz), pxDec: scaled(level.px) };
}

/**
 * The series rows of one recorded book: its best levels always; depth bands and slippage at the sampler's notionals
 * when both sides hold a level (no mid to measure from otherwise).
 */
export function recordedBookSeries({ coin, time, levels }: HistoryBookRow): RecordedBookSeries {
  const [bids, asks] = levels;
  const bid = bids[0];
  const ask = asks[0];
  const bbo = {
    coin,
    time,
    bid_px: bid?.px ?? null,
    bid_sz: bid?.sz ?? null,
    bid_n: bid?.n ?? null,
    ask_px: ask?.px ?? null,
    ask_sz: ask?.sz ?? null,
    ask_n: ask?.n ?? null,
  };
  if (!bid || !ask) return { bbo, depth: null, slippage: [] };
  const bidLevels = bids.map(priceLevel);
  const askLevels = asks.map(priceLevel);
  const mid = midPrice(scaled(bid.px), scaled(ask.px));
  return {
    bbo,
    depth: { coin, time, mid_px: formatScaled(mid), bands: depthBands(bidLevels, askLevels, mid) },
    slippage: SLIPPAGE_NOTIONALS.map((notional) => {
      const n = scaled(notional);
      return {
        coin,
        time,
        notional,
        buy_bps: impactBps(askLevels, n, mid, 'buy'),
        sell_bps: impactBps(bidLevels, n, mid, 'sell'),
      };
    }),
  };
}
