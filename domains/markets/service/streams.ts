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
import { isHip3Coin } from '../../../wire/coins.ts';
import type { L2Options } from './book/aggregation.ts';
import type { L2BookAnswer, L2Level } from './book/coin-book.ts';
import { type L2DiffEvent, L2DiffFeed, sameLevels } from './book/l2-diff.ts';
import type { L4CoinUpdates } from './book/l4-updates.ts';
import type { BboAnswer, L4BookAnswer } from './book.ts';
import type { CandleFrame } from './candles.ts';
import { isSpotCoin } from './coins.ts';
import type { MarketsService } from './index.ts';
import type { CandleInterval } from './intervals.ts';
import type { WireTrade } from './market-data.ts';
import type { PerpAssetCtx, SpotAssetCtx } from './meta.ts';

/**
 * Whose trades a trades subscription of several coins follows: a list of coins, or every market of a perp dex by its
 * name ("" the main dex: every coin but the HIP-3 `dex:COIN` perps; a HIP-3 dex its `dex:` coins), so that one
 * listed after the subscription starts is followed too, and the store reads the same coins back (stored-streams.ts).
 */
export type TradeSelection = { coins: readonly string[] } | { dex: string };

/** Whether a trade's coin is one of the selection's. */
export function tradeFilter(selection: TradeSelection): (coin: string) => boolean {
  if ('coins' in selection) {
    const set = new Set(selection.coins);
    return (coin) => set.has(coin);
  }
  const { dex } = selection;
  return dex === '' ? (coin) => !isHip3Coin(coin) : (coin) => coin.startsWith(`${dex}:`);
}

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

  /** Who follows each coin's book changes (bookChanges(coin)), and the one subscription to the books topic for them. */
  private readonly bookFollowers = new Map<string, Set<(coins: readonly string[]) => void>>();
  private stopBooks: (() => void) | null = null;

  /**
   * The coins whose book changed, per block (with a coin: only the blocks that changed it). The followers of one coin
   * are found by the coin, not by asking each follower: a block costs its changed coins, not the subscriptions (a
   * thousand clients on 50 coins each are 50 000 followers).
   */
  private bookChanges(coin?: string): LiveStream<readonly string[]> {
    if (coin === undefined)
      return { subscribe: (onEvent) => this.markets.live.subscribe('books', (coins) => onEvent(coins)) };
    return {
      subscribe: (onEvent) => {
        let followers = this.bookFollowers.get(coin);
        if (!followers) {
          followers = new Set();
          this.bookFollowers.set(coin, followers);
        }
        // One function per subscription: the same listener twice is two followers.
        const follower = (coins: readonly string[]) => onEvent(coins);
        followers.add(follower);
        this.stopBooks ??= this.markets.live.subscribe('books', (coins) => {
          for (const changed of coins) {
            const set = this.bookFollowers.get(changed);
            if (set) for (const f of set) f(coins);
          }
        });
        return () => {
          followers.delete(follower);
          if (followers.size === 0 && this.bookFollowers.get(coin) === followers) this.bookFollowers.delete(coin);
          if (this.bookFollowers.size === 0) {
            this.stopBooks?.();
            this.stopBooks = null;
          }
        };
      },
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

  /**
   * Several coins' L4 books on one subscription: each coin's snapshot, then per block one Updates frame holding the
   * records of every coin followed (each record names its coin), for blocks after the snapshots' height. One coin is
   * l4Book's own stream (its frames shared by every subscriber of the coin).
   */
  l4Books(coins: readonly string[]): { snapshots(): L4BookFrame[] } & LiveStream<L4BookFrame> {
    if (coins.length === 1) {
      const one = this.l4Book(coins[0] as string);
      return {
        snapshots: () => {
          const frame = one.snapshot();
          return frame ? [frame] : [];
        },
        subscribe: one.subscribe,
      };
    }
    const { books, live } = this.markets;
    return {
      snapshots: () =>
        coins.flatMap((coin) => {
          const answer = books.l4(coin);
          return answer ? [{ Snapshot: answer }] : [];
        }),
      subscribe: (onEvent) => {
        const from = books.height;
        return live.subscribe('l4Updates', (blocks) => {
          for (const block of blocks) {
            if (block.height <= from) continue;
            let merged: L4CoinUpdates | null = null;
            for (const coin of coins) {
              const updates = block.byCoin.get(coin);
              if (!updates) continue;
              merged ??= { time: block.time, height: block.height, order_statuses: [], book_diffs: [] };
              merged.order_statuses.push(...updates.order_statuses);
              merged.book_diffs.push(...updates.book_diffs);
            }
            if (merged) onEvent({ Updates: merged });
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

  /**
   * A coin's trades, one batch per block. Several coins (a list, or a dex's markets by their names: tradedOn): one
   * batch per block holding the trades of all of them, in the order they executed, each naming its coin.
   */
  trades(coin: string | TradeSelection): ResumableStream<WireTrade[]> {
    if (typeof coin === 'string') {
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
    const wanted = tradeFilter(coin);
    return topicStream(this.markets.tradeEvents, 'trades', (batch) => {
      const mine = batch.filter((t) => wanted(t.coin));
      return mine.length ? [mine] : [];
    });
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
