// l2BookReplay: a coin's recorded books (the history sampler's, an archive import's) over a window, as the /ws replay
// of {type: "l2Book"} plays them (service/stored-books.ts). A recorded book is its own type: it stands at no block.
import { replayFields } from '../../../kit/replay-fields.ts';
import { FieldError } from '../../../platform/fields.ts';
import { builder, type MarketsContext } from '../builder.ts';
import type { L2BookAnswer } from '../service/book/coin-book.ts';
import { L2_BOOK_DIFF } from '../service/inputs.ts';
import { LevelRef } from './market.ts';

const RecordedBookRef = builder.objectRef<L2BookAnswer>('RecordedL2Book').implement({
  description: "A coin's book as recorded at a time (top 20 levels a side, unaggregated)",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    bids: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[0] }),
    asks: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[1] }),
  }),
});

/** The replay's coin and levels, read by l2Book's definition; aggregation refused (samples hold the raw levels). */
function readBooks(a: Record<string, unknown>): { coin: string; levels: number } {
  const q = L2_BOOK_DIFF.parse(a, 'graphql');
  for (const key of ['nSigFigs', 'mantissa'] as const) {
    if (q[key] != null) {
      throw new FieldError(
        `${key}: a replay gives the recorded books as recorded, unaggregated (leave it out), got ${q[key]}`,
      );
    }
  }
  return { coin: q.coin, levels: Math.min(q.nLevels ?? 20, 20) };
}

replayFields<MarketsContext>(builder, [
  {
    name: 'l2BookReplay',
    item: RecordedBookRef,
    list: false,
    description:
      "A coin's recorded books (every 10 s while sampled; imported archive books) over a window, paced by their " +
      'times at `speed`, at most 20 levels a side, with a gap frame where a minute or more holds none and a complete ' +
      'frame at the end (the /ws replay of l2Book)',
    args: (t) => L2_BOOK_DIFF.args(t),
    stream: (a, ctx) => {
      const { coin, levels } = readBooks(a);
      if (!ctx.markets.stored) throw new Error('replays need the service to follow the event bus');
      return ctx.markets.stored.books(async () => [coin], levels);
    },
    data: (event) => event,
    holes: (ctx, a) => async (_datasets, start, end) => {
      if (!ctx.markets.stored) return [];
      return ctx.markets.stored.bookHoles([readBooks(a).coin], start, end);
    },
  },
]);
