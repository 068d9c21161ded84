// The markets domain's stored streams (kit/resume.ts): a coin's trades as the live `trades` stream sends them, also
// read back from markets.trades, so that a subscriber resumes from any position the store holds and a window of them
// replays; a coin's candles, made of the same trades (stored-candles.ts); and the recorded books, which only replay
// (stored-books.ts).
import type pg from 'pg';
import { type TradeRow, tradesTable } from '../../../db/rows/markets.ts';
import type { EventSource, TopicMap } from '../../../events/bus.ts';
import { blockOrderedReader, type Hole, type StoredStream, storedPart } from '../../../kit/resume.ts';
import type { L2BookAnswer } from './book/coin-book.ts';
import type { CandleFrame } from './candles.ts';
import type { CandleInterval } from './intervals.ts';
import { toWireTrade, type WireTrade } from './market-data.ts';
import { bookSampleHoles, recordedBooks } from './stored-books.ts';
import { type LiveCandles, storedCandles } from './stored-candles.ts';
import { type TradeSelection, tradeFilter } from './streams.ts';

export class MarketStoredStreams {
  constructor(
    private readonly bus: EventSource,
    private readonly pool: pg.Pool,
    private readonly liveCandles: LiveCandles = () => [],
  ) {}

  /** The recorded books of some coins (stored-books.ts), at most `levels` a side: only replayed, never resumed. */
  books(coins: () => Promise<string[]>, levels: number): StoredStream<L2BookAnswer> {
    return recordedBooks(this.bus as unknown as EventSource<TopicMap>, this.pool, coins, levels);
  }

  /** Where a window has no recorded book of the coins: a replay's gaps. */
  bookHoles(coins: string[], start: number, end: number): Promise<Hole[]> {
    return bookSampleHoles(this.pool, coins, start, end);
  }

  /** A coin's candle of one interval, made of its trades (stored-candles.ts); one call per subscriber. */
  candle(coin: string, interval: CandleInterval): StoredStream<CandleFrame> {
    return storedCandles(this.bus as unknown as EventSource<TopicMap>, this.pool, coin, interval, this.liveCandles);
  }

  /**
   * A coin's trades, one batch per block (per live batch once live), in the order they executed; or those of several
   * coins (streams.ts TradeSelection: a list, or a dex's markets by their names), one batch per block for all of them.
   */
  trades(coin: string | TradeSelection): StoredStream<WireTrade[]> {
    const wanted = typeof coin === 'string' ? (c: string) => c === coin : tradeFilter(coin);
    return {
      parts: [
        storedPart<WireTrade[], TradeRow>({
          source: this.bus as unknown as EventSource<TopicMap>,
          topic: 'trades',
          dataset: 'trades',
          select: (rows) => {
            const mine = rows.filter((r) => wanted(r.coin));
            return mine.length ? [mine.map(toWireTrade)] : [];
          },
          ...blockOrderedReader<TradeRow>(this.pool, {
            from: 'markets.trades',
            columns: tradesTable.columns.join(', '),
            ...tradesWhere(coin),
            order: 'seq',
          }),
        }),
      ],
    };
  }
}

/** The SQL condition of a trades selection (the same coins as tradeFilter's). */
function tradesWhere(coin: string | TradeSelection): { where: string; params: unknown[] } {
  if (typeof coin === 'string') return { where: 'coin = $1', params: [coin] };
  if ('coins' in coin) return { where: 'coin = ANY($1::text[])', params: [[...coin.coins]] };
  if (coin.dex === '') return { where: "strpos(coin, ':') = 0", params: [] };
  return { where: 'starts_with(coin, $1)', params: [`${coin.dex}:`] };
}
