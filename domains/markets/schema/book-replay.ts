// RecordedL2Book: a coin's book as recorded (the history sampler's, an archive import's), what l2BookReplay sends
// (its replay of the l2Book subscription's recorded states: live-capabilities.ts). A recorded book is its own type: it
// stands at no block.
import { builder } from '../builder.ts';
import type { L2BookAnswer } from '../service/book/coin-book.ts';
import { LevelRef } from './market.ts';

export const RecordedBookRef = builder.objectRef<L2BookAnswer>('RecordedL2Book').implement({
  description: "A coin's book as recorded at a time (top 20 levels a side, unaggregated)",
  fields: (t) => ({
    coin: t.exposeString('coin'),
    time: t.expose('time', { type: 'Timestamp' }),
    bids: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[0] }),
    asks: t.field({ type: [LevelRef], listSize: { assumedSize: 20 }, resolve: (b) => b.levels[1] }),
  }),
});
