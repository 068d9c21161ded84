// The markets domain's stored streams (kit/resume.ts): a coin's trades as the live `trades` stream sends them, also
// read back from markets.trades, so that a subscriber resumes from any position the store holds and a window of them
// replays.
import type pg from 'pg';
import { type TradeRow, tradesTable } from '../../../db/rows/markets.ts';
import type { EventSource, TopicMap } from '../../../events/bus.ts';
import { blockOrderedReader, type StoredStream, storedPart } from '../../../kit/resume.ts';
import { toWireTrade, type WireTrade } from './market-data.ts';

export class MarketStoredStreams {
  constructor(
    private readonly bus: EventSource,
    private readonly pool: pg.Pool,
  ) {}

  /** A coin's trades, one batch per block (per live batch once live), in the order they executed. */
  trades(coin: string): StoredStream<WireTrade[]> {
    return {
      parts: [
        storedPart<WireTrade[], TradeRow>({
          source: this.bus as unknown as EventSource<TopicMap>,
          topic: 'trades',
          dataset: 'trades',
          select: (rows) => {
            const mine = rows.filter((r) => r.coin === coin);
            return mine.length ? [mine.map(toWireTrade)] : [];
          },
          ...blockOrderedReader<TradeRow>(this.pool, {
            from: 'markets.trades',
            columns: tradesTable.columns.join(', '),
            where: 'coin = $1',
            params: [coin],
            order: 'seq',
          }),
        }),
      ],
    };
  }
}
