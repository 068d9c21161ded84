// The markets domain's live streams, each defined once with its rules (which coin, when an event is due, what it
// carries): GraphQL subscriptions and /ws channels adapt these and add only their transport's policy.
//
// Books go out in every block in which the levels a subscriber sees change (issue 41: what the services clients
// moved to send; the exchange's own l2Book pushes every 0.5-5 s), whole (l2Book) or as the changed levels
// (l2BookDiff, one diff per coin and options for all its followers). Mids are conflated to one event per
// BOOK_FRAME_MS: each is every coin's mid, which a client replaces half a second later. bbo, trades, candles and
// contexts carry every change.
import type { AssetCtxRow } from '../../../db/rows/markets.ts';
import {
  conflated,
  type LiveStream,
  type ResumableStream,
  type SnapshotStream,
  topicStream,
} from '../../../kit/live.ts';
import { type L2DiffEvent, L2DiffFeed, sameLevels } from './book/l2-diff.ts';
import type { L4CoinUpdates } from './book/l4-updates.ts';
import type { BboAnswer, L2BookAnswer, L2Level, L2Options, L4BookAnswer } from './book.ts';
import type { CandleFrame } from './candles.ts';
import { isSpotCoin } from './coins.ts';
import type { MarketsService, PerpAssetCtx, SpotAssetCtx } from './index.ts';
import type { CandleInterval } from './intervals.ts';
import type { WireTrade } from './market-data.ts';

/** The least time between two mids events of one subscriber. */
export const BOOK_FRAME_MS = 500;

/** An l2BookDiff frame's data: the snapshot (prevHeight null), then each block's changed levels. */
export type L2BookDiffFrame =
  | {
      coin: string;
      time: number;
      height: number;
      prevHeight: null;
      snapshot: true;
      levels: [L2Level[], L2Level[]];
    }
  | L2DiffEvent;

/** An l4Book frame's data, as order_book_server sends it: the snapshot first, then each block's updates. */
export type L4BookFrame = { Snapshot: L4BookAnswer } | { Updates: L4CoinUpdates };

/** A coin's context as it changes: a perp's or, for a spot pair ("PURR/USDC", "@1"), a spot pair's. */
export type ActiveAssetCtx = { coin: string; ctx: PerpAssetCtx } | { coin: string; ctx: SpotAssetCtx };

/** The service as its streams read it: live state only. */
type LiveMarkets = Pick<
  MarketsService,
  | 'books'
  | 'live'
  | 'tradeEvents'
  | 'candles'
  | 'meta'
  | 'allMids'
  | 'firstDexMids'
  | 'hasCtx'
  | 'mid'
  | 'perpAssetCtx'
  | 'spotAssetCtx'
>;

const sameBbo = (a: L2Level | null, b: L2Level | null) =>
  a === b || (a !== null && b !== null && a.px === b.px && a.sz === b.sz && a.n === b.n);

export class MarketStreams {
  /**
   * A trades batch split by coin, once per batch whoever asks first: every subscriber of a coin gets the same
   * array, which /ws then encodes once for all of them.
   */
  private readonly tradesByCoin = new WeakMap<readonly WireTrade[], Map<string, WireTrade[]>>();
  private readonly updateFrames = new WeakMap<L4CoinUpdates, L4BookFrame>();
  private readonly diffFeeds = new Map<string, L2DiffFeed>();

  constructor(private readonly markets: LiveMarkets) {}

  /** The coins whose book changed, per block. */
  private bookChanges(coin?: string): LiveStream<readonly string[]> {
    return {
      subscribe: (onEvent) =>
        this.markets.live.subscribe('books', (coins) => (coin === undefined || coins.includes(coin)) && onEvent(coins)),
    };
  }

  /**
   * Mids of one perp dex ('': the first, with spot, as the exchange's allMids without `dex`) or of every coin
   * (null), conflated. An unknown dex is UnknownDexError (asking the node, hence async).
   */
  async allMids(dex: string | null): Promise<SnapshotStream<Readonly<Record<string, string>>>> {
    const markets = this.markets;
    let current: () => Readonly<Record<string, string>>;
    if (dex === null) current = () => markets.allMids();
    else if (dex === '') current = () => markets.firstDexMids();
    else {
      const coins = (await markets.meta(dex)).universe.map((u) => u.name);
      current = () => markets.allMids(coins);
    }
    return { snapshot: current, ...conflated(this.bookChanges(), current, BOOK_FRAME_MS) };
  }

  /**
   * A coin's book at the given aggregation and depth (as L2_BOOK_STREAM checked it), in every block in which the
   * levels shown change (a change deeper than them, or inside an aggregated level's total, sends nothing).
   */
  l2Book(coin: string, options: L2Options): SnapshotStream<L2BookAnswer> {
    const books = this.markets.books;
    const current = () => books.l2(coin, options);
    return {
      snapshot: current,
      subscribe: (onEvent) => {
        let last = current();
        return this.bookChanges(coin).subscribe(() => {
          const now = current();
          if (!now || sameLevels(now, last)) return;
          last = now;
          onEvent(now);
        });
      },
    };
  }

  /**
   * A coin's book as a snapshot, then per block the levels that changed (L2DiffFeed): one feed per coin and options,
   * shared by its followers. The snapshot is the feed's own last state, so its diffs apply to it exactly.
   */
  l2BookDiff(coin: string, options: L2Options): SnapshotStream<L2BookDiffFrame> {
    const books = this.markets.books;
    const key = `${coin} ${options.nSigFigs ?? ''} ${options.mantissa ?? 1} ${options.levels ?? ''}`;
    const feed = () => {
      let f = this.diffFeeds.get(key);
      if (!f) {
        f = new L2DiffFeed(
          () => books.l2(coin, options),
          () => books.height,
          (listener) => this.bookChanges(coin).subscribe(listener),
          () => this.diffFeeds.delete(key),
        );
        this.diffFeeds.set(key, f);
      }
      return f;
    };
    let snapshotFeed: L2DiffFeed | null = null;
    return {
      snapshot: () => {
        snapshotFeed = feed();
        const { book, height } = snapshotFeed.state();
        return book && { coin, time: book.time, height, prevHeight: null, snapshot: true, levels: book.levels };
      },
      subscribe: (onEvent) => (snapshotFeed ?? feed()).subscribe(onEvent),
    };
  }

  /**
   * A coin's L4 book: the snapshot (every resting order), then each block's order statuses and raw diffs of the coin
   * (never conflated: a follower applies every one). The updates a subscriber gets are those of blocks after its
   * snapshot's height, so that none is applied twice.
   */
  l4Book(coin: string): SnapshotStream<L4BookFrame> {
    const { books, live } = this.markets;
    return {
      snapshot: () => {
        const answer = books.l4(coin);
        return answer && { Snapshot: answer };
      },
      subscribe: (onEvent) => {
        const from = books.height;
        return live.subscribe('l4Updates', (blocks) => {
          for (const block of blocks) {
            const updates = block.height > from ? block.byCoin.get(coin) : undefined;
            if (updates) onEvent(this.updatesFrame(updates));
          }
        });
      },
    };
  }

  /** One frame object per coin and block, which /ws encodes once for all its subscribers. */
  private updatesFrame(updates: L4CoinUpdates): L4BookFrame {
    let frame = this.updateFrames.get(updates);
    if (!frame) {
      frame = { Updates: updates };
      this.updateFrames.set(updates, frame);
    }
    return frame;
  }

  /** A coin's best bid and offer, only when one of them changed since the last event (or the subscription). */
  bbo(coin: string): SnapshotStream<BboAnswer> {
    const { books } = this.markets;
    return {
      snapshot: () => books.bbo(coin),
      subscribe: (onEvent) => {
        let last = books.bbo(coin)?.bbo ?? [null, null];
        return this.bookChanges(coin).subscribe(() => {
          const now = books.bbo(coin);
          if (!now || (sameBbo(now.bbo[0], last[0]) && sameBbo(now.bbo[1], last[1]))) return;
          last = now.bbo;
          onEvent(now);
        });
      },
    };
  }

  /** A coin's trades, one batch per block. */
  trades(coin: string): ResumableStream<WireTrade[]> {
    return topicStream(
      this.markets.tradeEvents,
      'trades',
      (batch) => {
        const mine = this.groupTrades(batch).get(coin);
        return mine ? [mine] : [];
      },
      coin,
    );
  }

  private groupTrades(batch: readonly WireTrade[]): Map<string, WireTrade[]> {
    let byCoin = this.tradesByCoin.get(batch);
    if (!byCoin) {
      byCoin = new Map();
      for (const trade of batch) {
        const list = byCoin.get(trade.coin);
        if (list) list.push(trade);
        else byCoin.set(trade.coin, [trade]);
      }
      this.tradesByCoin.set(batch, byCoin);
    }
    return byCoin;
  }

  /** A coin's candle of one interval at each update, starting from the open one; each bucket ends with a closed frame. */
  candle(coin: string, interval: CandleInterval): SnapshotStream<CandleFrame> {
    return {
      snapshot: () => this.markets.candles.current(coin, interval) ?? null,
      ...topicStream(this.markets.live, 'candles', (frames) => frames.filter((f) => f.s === coin && f.i === interval)),
    };
  }

  /** Every coin's candle of one interval at each update. */
  allCandles(interval: CandleInterval): LiveStream<CandleFrame> {
    return topicStream(this.markets.live, 'candles', (frames) => frames.filter((f) => f.i === interval));
  }

  /**
   * A coin's context each time the node reports one for it; its snapshot once the coin has a context or a price
   * (a spot pair that trades has one before the node's first context row for it).
   */
  activeAssetCtx(coin: string): SnapshotStream<ActiveAssetCtx> {
    const markets = this.markets;
    const current = (): ActiveAssetCtx =>
      isSpotCoin(coin) ? { coin, ctx: markets.spotAssetCtx(coin) } : { coin, ctx: markets.perpAssetCtx(coin) };
    const mine = (rows: readonly AssetCtxRow[]) => rows.some((r) => r.coin === coin);
    return {
      snapshot: () => (markets.hasCtx(coin) || markets.mid(coin) !== null ? current() : null),
      ...topicStream(markets.live, 'assetCtxs', (rows) => (mine(rows) ? [current()] : [])),
    };
  }
}
