// The markets streams' rules, held once where they live: bbo only when it changed, books in every block in which
// the levels shown change, the book's option rule, and one trades array per coin and block for every subscriber
// (what /ws encodes once).
import { describe, expect, it } from 'vitest';
import type { BookDiffRow } from '../../../db/rows/markets.ts';
import { InProcessBus } from '../../../events/bus.ts';
import type { LiveStream } from '../../../kit/live.ts';
import { OrderBooks } from './book.ts';
import type { MarketEvents } from './index.ts';
import { L2_BOOK } from './inputs.ts';
import type { WireTrade } from './market-data.ts';
import { MarketStreams } from './streams.ts';

let block = 0;
const diff = (oid: number, side: 'A' | 'B', px: string, sz: string | null, coin = 'BTC'): BookDiffRow => ({
  block_number: ++block,
  time: block,
  address: '0xu',
  oid,
  coin,
  side,
  px,
  kind: sz === null ? 'remove' : 'new',
  sz,
  orig_sz: null,
});

/** Books and the service's live bus, fed the way the service feeds them: diffs, then the changed coins. */
function setup() {
  const books = new OrderBooks();
  books.loadSnapshot([], 0, 0);
  const live = new InProcessBus<MarketEvents>();
  const streams = new MarketStreams({ books, live, tradeEvents: live } as unknown as ConstructorParameters<
    typeof MarketStreams
  >[0]);
  const apply = (...diffs: BookDiffRow[]) => {
    const changed = books.applyDiffs(diffs);
    if (changed.size) live.publish('books', [...changed]);
  };
  return { books, live, streams, apply };
}

function collect<T>(stream: LiveStream<T>): T[] {
  const events: T[] = [];
  stream.subscribe((e) => events.push(e));
  return events;
}

describe('bbo', () => {
  it('sends an event only when the best bid or offer changed since the last one (or the subscription)', () => {
    const { streams, apply } = setup();
    apply(diff(1, 'B', '99.0', '1.0'), diff(2, 'A', '101.0', '1.0'));
    const stream = streams.bbo('BTC');
    expect(stream.snapshot()?.bbo.map((l) => l?.px)).toEqual(['99.0', '101.0']);
    const events = collect(stream);
    apply(diff(3, 'B', '98.0', '5.0')); // a deeper level: the bbo is the same
    apply(diff(4, 'A', '200.0', '1.0', 'ETH')); // another coin
    expect(events).toEqual([]);
    apply(diff(5, 'B', '99.0', '2.0')); // size at the best bid
    apply(diff(6, 'A', '100.5', '1.0')); // a better offer
    apply(diff(7, 'B', '97.0', '1.0')); // deeper again
    expect(events.map((e) => e.bbo.map((l) => l && `${l.px}x${l.sz}`))).toEqual([
      ['99.0x3.0', '101.0x1.0'],
      ['99.0x3.0', '100.5x1.0'],
    ]);
    apply(diff(6, 'A', '100.5', null)); // the offer goes: back to 101
    expect(events.at(-1)?.bbo[1]?.px).toBe('101.0');
  });
});

describe('l2Book', () => {
  it('sends the book in every block in which the levels shown change, and only then', () => {
    const { streams, apply } = setup();
    apply(diff(1, 'B', '9901.0', '1.0'));
    const events = collect(streams.l2Book('BTC', { nSigFigs: 2, levels: 2 }));
    apply(diff(2, 'B', '9950.0', '1.0')); // the same level at 2 figures (9900): its size and count change
    apply(diff(3, 'A', '1.0', '1.0', 'ETH')); // another coin
    apply(diff(4, 'B', '8000.0', '1.0')); // a second level
    apply(diff(5, 'B', '7000.0', '1.0')); // a third: deeper than the 2 shown, nothing sent
    expect(events.map((b) => b.levels[0].map((l) => `${l.sz}x${l.n}`))).toEqual([['2.0x2'], ['2.0x2', '1.0x1']]);
  });

  it('follows the book at the aggregation its input definition read (null and absent both mean none)', () => {
    const { streams } = setup();
    const q = L2_BOOK.parse({ coin: 'BTC', nSigFigs: null, mantissa: null }, 'info');
    expect(streams.l2Book(q.coin, q).snapshot()).toBeNull();
    expect(() => L2_BOOK.parse({ coin: 'BTC', nSigFigs: 5, mantissa: 3 })).toThrow(
      'mantissa: must be one of 1, 2, 5, got 3',
    );
  });
});

describe('trades', () => {
  it("gives every subscriber of a coin the same array per block, with that coin's trades only", () => {
    const { live, streams } = setup();
    const a = collect(streams.trades('BTC'));
    const b = collect(streams.trades('BTC'));
    const eth = collect(streams.trades('ETH'));
    const trade = (coin: string, tid: number) => ({ coin, tid }) as WireTrade;
    live.publish('trades', [trade('BTC', 1), trade('ETH', 2), trade('BTC', 3)]);
    live.publish('trades', [trade('SOL', 4)]);
    expect(a.map((batch) => batch.map((t) => t.tid))).toEqual([[1, 3]]);
    expect(b[0]).toBe(a[0]);
    expect(eth.map((batch) => batch.map((t) => t.tid))).toEqual([[2]]);
  });
});
