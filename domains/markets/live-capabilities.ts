// The markets domain's live capabilities (kit/capability.ts `live`): a coin's trades and candle, stored streams
// resumed and replayed from the store (the coin's stored trades), and the streams of state (every candle of an
// interval, the mids, a coin's book and its diffs, its best bid and offer, its asset context, its L4 updates), from
// now on, each keeping the latest events for a slow reader. Their subscriptions, the /ws channels in the exchange's
// shapes (snapshot first; l2Book, l2BookDiff, l4Book, trades and bbo also take `coins`, 1 to 100, or `dex`, every
// market of a perp dex, in place of `coin`: one subscription counting as one per coin, each frame naming its coin)
// and the MCP tools collecting trades, candles, the best bid and offer and the mids are made from this list, in the
// order of the channels.
import type { Capability } from '../../kit/capability.ts';
import { liveCapability } from '../../kit/capability.ts';
import { sendStream, sendStreams, storedFrames } from '../../kit/channel.ts';
import type { InputOf } from '../../kit/input.ts';
import type { LiveStream } from '../../kit/live.ts';
import { compareDecimal } from '../../platform/decimal.ts';
import { FieldError } from '../../platform/fields.ts';
import { RecordedBookRef } from './schema/book-replay.ts';
import { CandleIntervalEnum, CandleRef } from './schema/candle.ts';
import { L4BookUpdatesRef } from './schema/l4-book.ts';
import {
  AssetCtxRef,
  BboRef,
  BookDiffRef,
  BookRef,
  bboOf,
  MidRef,
  midsList,
  SpotAssetCtxRef,
} from './schema/market.ts';
import { TradeRef } from './schema/trade.ts';
import type { L2DiffEvent } from './service/book/l2-diff.ts';
import type { L4CoinUpdates } from './service/book/l4-updates.ts';
import { isSpotCoin } from './service/coins.ts';
import type { MarketsService } from './service/index.ts';
import {
  type Aggregation,
  ALL_CANDLES_STREAM,
  ALL_MIDS,
  CANDLE_STREAM,
  COIN,
  COIN_STREAM,
  COLLECT_BBO,
  COLLECT_CANDLES,
  COLLECT_MIDS,
  COLLECT_TRADES,
  type CoinSelection,
  L2_BOOK_DIFF,
  L2_BOOK_DIFF_STREAM,
  L2_BOOK_STREAM,
  L4_BOOK,
} from './service/inputs.ts';
import type { WireTrade } from './service/market-data.ts';
import type { PerpAssetCtx, SpotAssetCtx } from './service/meta.ts';

/** Stored streams are followed where the service follows the event bus. */
const storing = (markets: MarketsService) => markets.stored !== null && markets.stored !== undefined;

/** The stored streams of a service that has them (`storing`); a replay on one without them is refused. */
function storedOf(markets: MarketsService): NonNullable<MarketsService['stored']> {
  if (!markets.stored) throw new Error('replays need the service to follow the event bus');
  return markets.stored;
}

/** Each coin's first, last, low and high mid over some samples of the mids (null: none had it). */
function midsMoves(samples: readonly Record<string, string>[], coins: readonly string[]) {
  return Object.fromEntries(
    coins.map((coin) => {
      // Prices stay decimal text, compared exactly.
      const pxs = samples.flatMap((m) => (m[coin] === undefined ? [] : [m[coin] as string]));
      if (pxs.length === 0) return [coin, null];
      const low = pxs.reduce((a, b) => (compareDecimal(b, a) < 0 ? b : a));
      const high = pxs.reduce((a, b) => (compareDecimal(b, a) > 0 ? b : a));
      return [coin, { first: pxs[0], last: pxs.at(-1), low, high }];
    }),
  );
}

/** The selection's own keys as read: only the one sent (the ack echoes the others as sent, that is not at all). */
const selectionOf = ({ coin, coins, dex }: CoinSelection): CoinSelection =>
  coin !== undefined ? { coin } : coins !== undefined ? { coins } : { dex };

/**
 * The coins of a subscription's selection, read once per subscription (its weight and its start ask for it; a dex
 * asks the node, whose answers are cached).
 */
const selected = new WeakMap<CoinSelection, Promise<string[]>>();
function coinsOf(markets: MarketsService, input: CoinSelection): Promise<string[]> {
  let coins = selected.get(input);
  if (!coins) {
    coins = markets.selectedCoins(input);
    selected.set(input, coins);
  }
  return coins;
}

/** Each coin counts as one subscription. */
const weight = async (markets: MarketsService, input: CoinSelection) => (await coinsOf(markets, input)).length;

/** Trades of several coins: the list, or the dex's markets by their names (streams.ts TradeSelection). */
const tradeSelection = ({ coin, coins, dex }: CoinSelection) =>
  coin !== undefined ? coin : coins !== undefined ? { coins: [...new Set(coins)] } : { dex: dex as string };

type L2BookInput = InputOf<typeof L2_BOOK_STREAM>;

/**
 * The recorded books of a selection (service/stored-books.ts) as recorded: at most 20 levels a side (5 `fast`),
 * unaggregated (nSigFigs or mantissa refused, named as `named` words the field), and where a window holds none.
 */
function recordedBooks(
  markets: MarketsService,
  input: CoinSelection & Aggregation & { nLevels?: number; fast?: boolean },
  named: (key: string) => string = (key) => key,
) {
  for (const key of ['nSigFigs', 'mantissa'] as const) {
    if (input[key] != null) {
      throw new FieldError(
        `${named(key)}: a replay gives the recorded books as recorded, unaggregated (leave it out), got ${input[key]}`,
      );
    }
  }
  const coins = () => coinsOf(markets, input);
  return {
    stream: storedOf(markets).books(coins, Math.min(input.nLevels ?? (input.fast ? 5 : 20), 20)),
    holes: async (start: number, end: number) => storedOf(markets).bookHoles(await coins(), start, end),
  };
}

/** The refusal of a coin of the other kind on an asset-context subscription. */
function badSpotCoin(coin: string, use: string): FieldError {
  const kind = isSpotCoin(coin) ? 'a spot pair' : 'not a spot pair';
  return new FieldError(`coin: ${JSON.stringify(coin)} is ${kind}; subscribe to ${use}`);
}

// Pure live streams (no snapshot on subscribe, nothing of the caller): what lets equal operations share one
// execution (platform/shared-subscriptions.ts). Books and mids are conflated by the stream (service/streams.ts);
// each of those keeps the latest 10 events for a slow reader, older states being worth nothing.
export const LIVE_CAPABILITIES: readonly Capability<MarketsService>[] = [
  liveCapability({
    name: 'allMidsStream',
    input: ALL_MIDS,
    live: {
      name: 'allMids',
      live: ({ streams }, { dex }) => streams.allMids(dex ?? ''),
      subscription: {
        type: MidRef,
        batch: 200,
        omit: ['coins'],
        queue: 10,
        description: 'The mids of the `dex` rule of Query.allMids, each time a book changes (at most every 500 ms)',
        of: (mids) => midsList(mids as Record<string, string>),
      },
      collect: {
        name: 'markets_collect_mids',
        title: 'Collect mid price changes',
        description:
          'Follows the mid prices of some coins for `seconds` (1 to 60), sampled at most every half second: first, ' +
          'last, low and high mid per coin. For "how did BTC move in the last 30 seconds".',
        input: COLLECT_MIDS,
        // Every dex's mids: the coins asked may be of any.
        stream: ({ streams }) => streams.allMids(null),
        max: 10_000,
        snapshot: true,
        answer: (samples: Record<string, string>[], { coins }) => ({
          mids: midsMoves(samples, coins),
          samples: samples.length,
        }),
      },
      channel: {
        // The mids' input (ALL_MIDS) but `coins`, which the exchange's channel does not take.
        read: (sub) => ALL_MIDS.parse({ dex: sub.dex }, 'info'),
        normalize: (sub) => ({ ...sub }),
        // The SDK drops frames carrying dex "" for the default dex: omit the key there.
        frame: (all, { dex }) => ({ mids: all, ...(dex ? { dex } : {}) }),
      },
    },
  }),
  liveCapability({
    name: 'l2BookStream',
    input: L2_BOOK_DIFF,
    live: {
      name: 'l2Book',
      live: ({ streams }, q) => streams.l2Book(q.coin, { ...q, levels: q.nLevels }),
      subscription: {
        type: BookRef,
        queue: 10,
        description: "A coin's book (nLevels a side) in every block in which the levels shown change",
        recorded: {
          type: RecordedBookRef,
          description:
            "A coin's recorded books (every 10 s while sampled; imported archive books) over a window, paced by " +
            'their times at `speed`, at most 20 levels a side, with a gap frame where a minute or more holds none and ' +
            'a complete frame at the end (the /ws replay of l2Book)',
          states: (markets, input) => recordedBooks(markets, input),
        },
      },
      channel: {
        read: (sub) => L2_BOOK_STREAM.parse(sub, 'info'),
        // The subscription as acknowledged: no aggregation reads null, as the exchange echoes it.
        normalize: (sub, book: L2BookInput) => ({
          ...sub,
          ...selectionOf(book),
          nSigFigs: book.nSigFigs ?? null,
          mantissa: book.mantissa ?? null,
        }),
        weight,
        // order_book_server's `nLevels` (1 to 100, default 20); else the TS SDK's `fast`: the exchange's shallow book,
        // 5 levels a side. Sent in every block in which the levels shown change.
        async start(markets, input: L2BookInput, ctx) {
          const { fast, nLevels, nSigFigs, mantissa } = input;
          const options = { nSigFigs, mantissa, levels: nLevels ?? (fast ? 5 : undefined) };
          return sendStreams(
            (await coinsOf(markets, input)).map((coin) => markets.streams.l2Book(coin, options)),
            ctx,
          );
        },
        // A replay plays the recorded books (the history sampler's, an archive's), as recorded: at most 20 levels a
        // side, unaggregated; a gap where a minute or more has none (service/stored-books.ts).
        replay: (markets, input: L2BookInput) => {
          const { stream, holes } = recordedBooks(markets, input, (key) => `stream.${key}`);
          return storedFrames(stream, (book) => book, holes);
        },
      },
    },
  }),
  liveCapability({
    name: 'l2BookDiffStream',
    input: L2_BOOK_DIFF,
    live: {
      name: 'l2BookDiff',
      live: ({ streams }, q): LiveStream<L2DiffEvent> => {
        const stream = streams.l2BookDiff(q.coin, { ...q, levels: q.nLevels });
        return { subscribe: (onEvent) => stream.subscribe((e) => 'bids' in e && onEvent(e)) };
      },
      subscription: {
        type: BookDiffRef,
        description:
          "A coin's changed levels (nLevels a side), one event per block in which they change; sz 0 removes a " +
          'level. Subscribe, then read Market.book with the same arguments and apply the events above its height',
      },
      // GoldRush's and Alchemy's l2BookDiff: {coin,time,height,prevHeight:null,snapshot:true,levels} first, then per
      // block in which the levels shown change {coin,time,height,prevHeight,bids,asks} of the changed levels only.
      channel: {
        read: (sub) => L2_BOOK_DIFF_STREAM.parse(sub, 'info'),
        normalize: (sub, book: InputOf<typeof L2_BOOK_DIFF_STREAM>) => ({
          ...sub,
          ...selectionOf(book),
          nSigFigs: book.nSigFigs ?? null,
          mantissa: book.mantissa ?? null,
          nLevels: book.nLevels ?? null,
        }),
        weight,
        async start(markets, input: InputOf<typeof L2_BOOK_DIFF_STREAM>, ctx) {
          const options = { nSigFigs: input.nSigFigs, mantissa: input.mantissa, levels: input.nLevels };
          return sendStreams(
            (await coinsOf(markets, input)).map((coin) => markets.streams.l2BookDiff(coin, options)),
            ctx,
          );
        },
      },
    },
  }),
  liveCapability({
    name: 'l4BookStream',
    input: L4_BOOK,
    live: {
      name: 'l4Book',
      live: ({ streams }, { coin }): LiveStream<L4CoinUpdates & { coin: string }> => {
        const stream = streams.l4Book(coin);
        return {
          subscribe: (onEvent) =>
            stream.subscribe((frame) => 'Updates' in frame && onEvent({ ...frame.Updates, coin })),
        };
      },
      subscription: {
        type: L4BookUpdatesRef,
        description:
          "A coin's order statuses and raw book diffs, one event per block that has any: subscribe, then read " +
          'Market.l4Book and apply the events whose height is above its height',
      },
      // order_book_server's l4Book: {"Snapshot":{coin,time,height,levels}} first, then {"Updates":{time,height,
      // order_statuses,book_diffs}} per block in which the coin has any. Several coins: a Snapshot per coin, then one
      // Updates per block with the records of all of them (each record names its coin).
      channel: {
        read: (sub) => COIN_STREAM.parse(sub, 'info'),
        normalize: (sub, input: CoinSelection) => ({ ...sub, ...selectionOf(input) }),
        weight,
        async start(markets, input: CoinSelection, ctx) {
          const l4 = markets.streams.l4Books(await coinsOf(markets, input));
          for (const frame of l4.snapshots()) ctx.send(frame);
          return l4.subscribe((frame) => ctx.send(frame));
        },
      },
    },
  }),
  liveCapability({
    name: 'tradesStream',
    input: COIN,
    live: {
      name: 'trades',
      // Resumed from the store where the service has its stored stream (a bus), else from the bus's log.
      stored: (markets, input: CoinSelection) => storedOf(markets).trades(tradeSelection(input)),
      storing,
      resumable: ({ streams }, { coin }) => streams.trades(coin),
      subscription: {
        type: TradeRef,
        batch: 20,
        description: 'Trades of a coin as they happen, one batch per block',
        replay:
          'Trades of a coin in a stored window, paced by their own times at `speed`, as trades sends them, with a ' +
          'gap frame where the store has a hole and a complete frame at the end (the /ws replay subscription)',
      },
      collect: {
        name: 'markets_collect_trades',
        title: 'Collect live trades',
        description:
          'Waits and collects the trades of a coin as they happen, for `seconds` (1 to 60) or until `maxTrades` ' +
          '(default 500, at most 5000): for "watch BTC trades for 10 seconds". Returns the trades, their count and ' +
          'volume.',
        input: COLLECT_TRADES,
        max: ({ maxTrades }) => maxTrades,
        items: (batch) => batch,
        answer: (trades: WireTrade[], { coin }) => ({
          coin,
          trades,
          count: trades.length,
          volume: trades.reduce((sum, t) => sum + Number(t.sz), 0),
        }),
        summary: (r) => `${r.count} ${r.coin} trades in ${r.seconds} s (volume ${r.volume})`,
      },
      // Several coins: one frame per block with the trades of all of them (each names its coin).
      channel: {
        read: (sub) => COIN_STREAM.parse(sub, 'info'),
        normalize: (sub, input: CoinSelection) => ({ ...sub, ...selectionOf(input) }),
        weight,
        start: ({ streams }, input: CoinSelection, ctx) => sendStream(streams.trades(tradeSelection(input)), ctx),
      },
    },
  }),
  liveCapability({
    name: 'bboStream',
    input: COIN,
    live: {
      name: 'bbo',
      live: ({ streams }, { coin }) => streams.bbo(coin),
      subscription: {
        type: BboRef,
        queue: 10,
        description: 'The best bid and offer of a coin, when they change',
        of: (b) => bboOf(b),
      },
      collect: {
        name: 'markets_collect_bbo',
        title: 'Collect best bid/offer changes',
        description:
          "Follows a coin's best bid and offer for `seconds` (1 to 60): the current one, then each change. For " +
          'spread and top-of-book moves over a short time.',
        input: COLLECT_BBO,
        max: 10_000,
        snapshot: true,
        answer: (updates) => ({ updates }),
      },
      channel: {
        read: (sub) => COIN_STREAM.parse(sub, 'info'),
        normalize: (sub, input: CoinSelection) => ({ ...sub, ...selectionOf(input) }),
        weight,
        start: async (markets, input: CoinSelection, ctx) =>
          sendStreams(
            (await coinsOf(markets, input)).map((coin) => markets.streams.bbo(coin)),
            ctx,
          ),
      },
    },
  }),
  liveCapability({
    name: 'candleStream',
    input: CANDLE_STREAM,
    live: {
      name: 'candle',
      live: ({ streams }, { coin, interval }) => streams.candle(coin, interval),
      // Resumed and replayed from the coin's stored trades (service/stored-candles.ts: what a position means).
      stored: (markets, { coin, interval }) => storedOf(markets).candle(coin, interval),
      storing,
      subscription: {
        type: CandleRef,
        types: { interval: CandleIntervalEnum },
        description:
          'Updates of one coin and interval; each bucket ends with one closed frame. With `after` or `positions`, ' +
          "the stored stream made of the coin's trades, each frame with its cursor: a bucket's closed frame then " +
          "comes just before the next bucket's first update (docs/interfaces.md)",
        positions: 'true: from now, each frame with its cursor (as with `after`)',
        replay:
          "A coin's candle of one interval over a stored window, made of its stored trades, paced by their times at " +
          '`speed`, as candle sends it with `after`, with a gap frame where the store has a hole and a complete ' +
          'frame at the end (the /ws replay subscription)',
      },
      collect: {
        name: 'markets_collect_candles',
        title: 'Collect live candle updates',
        description:
          "Follows a coin's open candle of one interval for `seconds` (1 to 60): every update, each bucket ending " +
          'with a closed frame. Starts with the open candle.',
        input: COLLECT_CANDLES,
        max: 10_000,
        snapshot: true,
        answer: (candles) => ({ candles }),
      },
      channel: {},
    },
  }),
  liveCapability({
    name: 'allCandlesStream',
    input: ALL_CANDLES_STREAM,
    live: {
      name: 'allCandles',
      live: ({ streams }, { interval }) => streams.allCandles(interval),
      subscription: {
        type: CandleRef,
        types: { interval: CandleIntervalEnum },
        description: 'Updates of every coin for one interval',
      },
      channel: {},
    },
  }),
  liveCapability({
    name: 'activeAssetCtxStream',
    input: COIN,
    live: {
      name: 'activeAssetCtx',
      live: ({ streams }, { coin }) => {
        if (isSpotCoin(coin)) throw badSpotCoin(coin, 'activeSpotAssetCtx');
        return streams.activeAssetCtx(coin);
      },
      subscription: {
        type: AssetCtxRef,
        description: "A perp's context as it changes (a spot pair's: activeSpotAssetCtx)",
        of: (c) => ({ coin: c.coin, ...(c.ctx as PerpAssetCtx) }),
      },
      // One channel for both kinds: a spot pair's frames on activeSpotAssetCtx.
      channel: {
        channelName: (sub) => (isSpotCoin(String(sub.coin)) ? 'activeSpotAssetCtx' : 'activeAssetCtx'),
        start: ({ streams }, { coin }, ctx) => sendStream(streams.activeAssetCtx(coin), ctx),
      },
    },
  }),
  liveCapability({
    name: 'activeSpotAssetCtxStream',
    input: COIN,
    live: {
      name: 'activeSpotAssetCtx',
      live: ({ streams }, { coin }) => {
        if (!isSpotCoin(coin)) throw badSpotCoin(coin, 'activeAssetCtx');
        return streams.activeAssetCtx(coin);
      },
      subscription: {
        type: SpotAssetCtxRef,
        description: "A spot pair's context as it changes",
        of: (c) => c.ctx as SpotAssetCtx,
      },
    },
  }),
];
