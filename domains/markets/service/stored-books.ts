// Books as recorded: the market-history sampler's top-20 book of every coin every 10 s (history.ts), and the books an
// archive import wrote to the same table (ingest/archive/import.ts), played back as l2Book frames by a replay
// (kit/resume.ts replayStored). Books are state, not history: a subscription resumed with `after` gets a fresh
// snapshot, never these; only a replay of a window reads them.
import type pg from 'pg';
import type { HistoryBookRow } from '../../../db/rows/markets.ts';
import type { EventSource, TopicMap } from '../../../events/bus.ts';
import { blockOrderedReader, type Hole, type StoredStream, storedPart } from '../../../kit/resume.ts';
import type { L2BookAnswer } from './book/coin-book.ts';

/** A stretch of a window at least this long without a sample of the coins is a hole (the sampler takes one each 10 s). */
export const BOOK_SAMPLE_GAP_MS = 60_000;

/** A sample as read: its time standing for its block too (a sample belongs to no block). */
type SampleRow = HistoryBookRow & { block_number: number };

/**
 * The recorded books of `coins` (resolved when first read), each sample an l2Book frame `{coin, time, levels}` with
 * at most `levels` levels a side. A sample's position is `time-time`.
 */
export function recordedBooks(
  source: EventSource<TopicMap>,
  pool: pg.Pool,
  coins: () => Promise<string[]>,
  levels: number,
): StoredStream<L2BookAnswer> {
  let reader: ReturnType<typeof blockOrderedReader<SampleRow>> | undefined;
  const readerOf = async () => {
    reader ??= blockOrderedReader<SampleRow>(pool, {
      from: '(SELECT coin, time, time AS block_number, levels FROM markets.history_book) AS samples',
      columns: 'coin, time, block_number, levels',
      where: 'coin = ANY($1::text[])',
      params: [await coins()],
      order: 'coin',
    });
    return reader;
  };
  return {
    parts: [
      storedPart<L2BookAnswer, SampleRow>({
        source,
        // Never followed live: a replay reads the store only.
        topic: 'bookSamples',
        select: (rows) =>
          rows.map((r) => ({
            coin: r.coin,
            time: r.time,
            levels: [r.levels[0].slice(0, levels), r.levels[1].slice(0, levels)],
          })),
        read: async (after, limit, bounds) => (await readerOf()).read(after, limit, bounds),
        head: async () => (await readerOf()).head(),
      }),
    ],
  };
}

/** The stretches of [start, end) of at least BOOK_SAMPLE_GAP_MS without a sample of any of `coins`. */
export async function bookSampleHoles(pool: pg.Pool, coins: string[], start: number, end: number): Promise<Hole[]> {
  const { rows } = await pool.query<{ time: number }>(
    'SELECT DISTINCT time FROM markets.history_book WHERE coin = ANY($1::text[]) AND time >= $2 AND time < $3 ORDER BY time',
    [coins, start, end],
  );
  const holes: Hole[] = [];
  // From the window's start, or just after a sample, to the next sample, or the window's end.
  let from = start;
  for (const { time } of rows) {
    if (time - from >= BOOK_SAMPLE_GAP_MS) holes.push({ from, to: time });
    from = time + 1;
  }
  if (end - from >= BOOK_SAMPLE_GAP_MS) holes.push({ from, to: end });
  return holes;
}
