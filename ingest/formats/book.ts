// node_raw_book_diffs_by_block: not stored; each diff is published for the live order books.
import type { BookDiffRow } from '../../db/rows/markets.ts';
import { address, dec, FieldError, int, object, side, str } from '../../platform/fields.ts';
import type { StreamLoader } from './loader.ts';

export function parseBookDiff(event: unknown, blockNumber: number, time: number): BookDiffRow {
  const e = object(event, 'event');
  const diff = e.raw_book_diff;
  const base = {
    block_number: blockNumber,
    time,
    address: address(e, 'user'),
    oid: int(e, 'oid'),
    coin: str(e, 'coin'),
    side: side(e, 'side'),
    px: dec(e, 'px'),
  };
  if (diff === 'remove') return { ...base, kind: 'remove', sz: null, orig_sz: null };
  const d = object(diff, 'raw_book_diff');
  if (d.new !== undefined) return { ...base, kind: 'new', sz: dec(object(d.new, 'new'), 'sz'), orig_sz: null };
  if (d.update !== undefined) {
    const u = object(d.update, 'update');
    return { ...base, kind: 'update', sz: dec(u, 'newSz'), orig_sz: dec(u, 'origSz') };
  }
  throw new FieldError('raw_book_diff: must be new, update or "remove"');
}

export const bookDiffsLoader: StreamLoader = {
  stream: 'node_raw_book_diffs_by_block',
  liveOnly: true,
  loadBlock(ctx, events, batch) {
    for (const event of events) batch.publish('bookDiffs', parseBookDiff(event, ctx.blockNumber, ctx.blockTime));
  },
};
