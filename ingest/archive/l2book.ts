// The public archive's recorded books (`market_data/<date>/<H>/l2Book/<coin>.lz4`; ingest/FORMATS.md, the public
// archive buckets): one line per recorded book, turned into the market-history series the live sampler writes (book,
// bbo, depth bands, slippage), measured the same way (domains/markets/service/book/depth.ts).
import {
  type HistoryBookRow,
  historyBboTable,
  historyBookTable,
  historyDepthTable,
  historySlippageTable,
} from '../../db/rows/markets.ts';
import { midPrice, type PriceLevel } from '../../domains/markets/service/book/coin-book.ts';
import { depthBands, impactBps } from '../../domains/markets/service/book/depth.ts';
import { REGISTER_HISTORY_COINS, SLIPPAGE_NOTIONALS } from '../../domains/markets/service/history.ts';
import { formatScaled, scaled } from '../../platform/decimal.ts';
import { array, dec, FieldError, int, object, str } from '../../platform/fields.ts';
import type { Batch } from '../batch.ts';

type WireLevel = HistoryBookRow['levels'][0][number];

export interface RecordedBook {
  coin: string;
  /** The book's own time (`raw.data.time`, ms); the recorder's clock (`time`) may be a second or more later. */
  time: number;
  levels: HistoryBookRow['levels'];
}

function wireLevels(value: unknown, key: string): WireLevel[] {
  return array(value, key).map((v, i) => {
    const level = object(v, `${key}[${i}]`);
    const n = int(level, 'n');
    if (n < 0) throw new FieldError(`${key}[${i}].n: must be >= 0, got ${n}`);
    return { px: dec(level, 'px'), sz: dec(level, 'sz'), n };
  });
}

/** One line: `{"time", "ver_num": 1, "raw": {"channel": "l2Book", "data": {coin, time, levels: [bids, asks]}}}`. */
export function parseRecordedBook(text: string): RecordedBook {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new FieldError('not valid JSON');
  }
  const line = object(parsed, 'line');
  if (line.ver_num !== 1) throw new FieldError(`ver_num: must be 1, got ${JSON.stringify(line.ver_num)}`);
  const raw = object(line.raw, 'raw');
  if (raw.channel !== 'l2Book')
    throw new FieldError(`raw.channel: must be "l2Book", got ${JSON.stringify(raw.channel)}`);
  const data = object(raw.data, 'raw.data');
  const sides = array(data.levels, 'raw.data.levels');
  if (sides.length !== 2) throw new FieldError('raw.data.levels: must be [bids, asks]');
  return {
    coin: str(data, 'coin'),
    time: int(data, 'time'),
    levels: [wireLevels(sides[0], 'bids'), wireLevels(sides[1], 'asks')],
  };
}

/** A printed level as the book measures take it (its size given, not summed from orders). */
function priceLevel(level: WireLevel): PriceLevel {
  return { px: level.px, pxNum: Number(level.px), orders: new Set(), size: scaled(level.sz), pxDec: scaled(level.px) };
}

/**
 * The series rows of one recorded book: the book itself and its best levels always; depth bands and slippage at the
 * sampler's notionals when both sides hold a level (no mid to measure from otherwise).
 */
export function addRecordedBook(batch: Batch, book: RecordedBook): void {
  const { coin, time, levels } = book;
  const [bids, asks] = levels;
  const bid = bids[0];
  const ask = asks[0];
  batch.add(historyBookTable, { coin, time, levels });
  batch.collect(REGISTER_HISTORY_COINS, [coin]);
  batch.add(historyBboTable, {
    coin,
    time,
    bid_px: bid?.px ?? null,
    bid_sz: bid?.sz ?? null,
    bid_n: bid?.n ?? null,
    ask_px: ask?.px ?? null,
    ask_sz: ask?.sz ?? null,
    ask_n: ask?.n ?? null,
  });
  if (!bid || !ask) return;
  const bidLevels = bids.map(priceLevel);
  const askLevels = asks.map(priceLevel);
  const mid = midPrice(scaled(bid.px), scaled(ask.px));
  batch.add(historyDepthTable, { coin, time, mid_px: formatScaled(mid), bands: depthBands(bidLevels, askLevels, mid) });
  for (const notional of SLIPPAGE_NOTIONALS) {
    const n = scaled(notional);
    batch.add(historySlippageTable, {
      coin,
      time,
      notional,
      buy_bps: impactBps(askLevels, n, mid, 'buy'),
      sell_bps: impactBps(bidLevels, n, mid, 'sell'),
    });
  }
}
