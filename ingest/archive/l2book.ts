// The public archive's recorded books (`market_data/<date>/<H>/l2Book/<coin>.lz4`; ingest/FORMATS.md, the public
// archive buckets): one line per recorded book, turned into the market-history series the live sampler writes (book,
// bbo, depth bands, slippage), measured the same way (markets' port: recordedBookSeries).
import {
  type HistoryBookRow,
  historyBboTable,
  historyBookTable,
  historyDepthTable,
  historySlippageTable,
} from '../../db/rows/markets.ts';
import { REGISTER_HISTORY_COINS, recordedBookSeries } from '../../domains/markets/port.ts';
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

/**
 * The series rows of one recorded book (markets' recordedBookSeries): the book itself and its best levels always;
 * depth bands and slippage when both sides hold a level.
 */
export function addRecordedBook(batch: Batch, book: RecordedBook): void {
  const { bbo, depth, slippage } = recordedBookSeries(book);
  batch.add(historyBookTable, book);
  batch.collect(REGISTER_HISTORY_COINS, [book.coin]);
  batch.add(historyBboTable, bbo);
  if (depth) batch.add(historyDepthTable, depth);
  for (const row of slippage) batch.add(historySlippageTable, row);
}
