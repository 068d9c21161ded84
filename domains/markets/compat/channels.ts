// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins); and order_book_server's l4Book. Each follows one of the
// markets service's streams (domains/markets/service/streams.ts), snapshot first; what is here is the wire:
// parameters and frame shapes. l2Book, l2BookDiff, l4Book, trades and bbo also take `coins` (1 to 100) or `dex` (every
// market of a perp dex) in place of `coin`: one subscription counting as one per coin, each frame naming its coin.

import { type Channel, readChannel, sendStream, sendStreams, storedFrames } from '../../../kit/channel.ts';
import type { InputOf } from '../../../kit/input.ts';
import { FieldError } from '../../../platform/fields.ts';
import { isSpotCoin } from '../service/coins.ts';
import type { MarketsService } from '../service/index.ts';
import {
  ALL_CANDLES_STREAM,
  ALL_MIDS,
  CANDLE_STREAM,
  COIN,
  COIN_STREAM,
  type CoinSelection,
  L2_BOOK_DIFF_STREAM,
  L2_BOOK_STREAM,
} from '../service/inputs.ts';
import type { CandleInterval } from '../service/intervals.ts';

// A subscription is read as the definition reads an /info body: the exchange's names, `type` and the keys a
// definition does not hold left to the ack, which echoes them as sent.

/** A subscription's `coin` (trades, bbo, activeAssetCtx). */
const readCoin = (sub: Record<string, unknown>) => COIN.parse(sub, 'info');

/** The selection's own keys as read: only the one sent (the ack echoes the others as sent, that is not at all). */
const selectionOf = ({ coin, coins, dex }: CoinSelection): CoinSelection =>
  coin !== undefined ? { coin } : coins !== undefined ? { coins } : { dex };

type L2BookInput = InputOf<typeof L2_BOOK_STREAM>;

export function marketChannels(markets: MarketsService): Channel[] {
  const { streams } = markets;
  const stored = markets.stored as NonNullable<MarketsService['stored']>;
  /**
   * The coins of a subscription's selection, read once per subscription (its weight and its start ask for it; a dex
   * asks the node, whose answers are cached).
   */
  const selected = new WeakMap<CoinSelection, Promise<string[]>>();
  const coinsOf = (input: CoinSelection) => {
    let coins = selected.get(input);
    if (!coins) {
      coins = markets.selectedCoins(input);
      selected.set(input, coins);
    }
    return coins;
  };
  /** Each coin counts as one subscription. */
  const weight = async (input: CoinSelection) => (await coinsOf(input)).length;
  /** Trades of several coins: the list, or the dex's markets by their names (streams.ts TradeSelection). */
  const tradeSelection = ({ coin, coins, dex }: CoinSelection) =>
    coin !== undefined ? coin : coins !== undefined ? { coins: [...new Set(coins)] } : { dex: dex as string };
  return [
    readChannel({
      type: 'allMids',
      // The mids' input (ALL_MIDS) but `coins`, which the exchange's channel does not take.
      read: (sub) => ALL_MIDS.parse({ dex: sub.dex }, 'info'),
      normalize: (sub) => ({ ...sub }),
      async start({ dex = '' }, ctx) {
        const mids = await streams.allMids(dex);
        // The SDK drops frames carrying dex "" for the default dex: omit the key there.
        return sendStream(mids, ctx, (all) => ({ mids: all, ...(dex ? { dex } : {}) }));
      },
    }),
    readChannel({
      type: 'l2Book',
      read: (sub) => L2_BOOK_STREAM.parse(sub, 'info'),
      // The subscription as acknowledged: no aggregation reads null, as the exchange echoes it.
      normalize: (sub, book) => ({
        ...sub,
        ...selectionOf(book),
        nSigFigs: book.nSigFigs ?? null,
        mantissa: book.mantissa ?? null,
      }),
      weight,
      // order_book_server's `nLevels` (1 to 100, default 20); else the TS SDK's `fast`: the exchange's shallow book,
      // 5 levels a side. Sent in every block in which the levels shown change.
      async start(input, ctx) {
        const { fast, nLevels, nSigFigs, mantissa } = input;
        const options = { nSigFigs, mantissa, levels: nLevels ?? (fast ? 5 : undefined) };
        return sendStreams(
          (await coinsOf(input)).map((coin) => streams.l2Book(coin, options)),
          ctx,
        );
      },
      // A replay plays the recorded books (the history sampler's, an archive's), as recorded: at most 20 levels a side,
      // unaggregated; a gap where a minute or more has none (service/stored-books.ts).
      ...(markets.stored
        ? {
            replay: (input: L2BookInput) => {
              for (const key of ['nSigFigs', 'mantissa'] as const) {
                if (input[key] != null) {
                  throw new FieldError(
                    `stream.${key}: a replay gives the recorded books as recorded, unaggregated (leave it out), got ${input[key]}`,
                  );
                }
              }
              const coins = () => coinsOf(input);
              return storedFrames(
                stored.books(coins, Math.min(input.nLevels ?? (input.fast ? 5 : 20), 20)),
                (book) => book,
                async (start, end) => stored.bookHoles(await coins(), start, end),
              );
            },
          }
        : {}),
    }),
    // GoldRush's and Alchemy's l2BookDiff: {coin,time,height,prevHeight:null,snapshot:true,levels} first, then per
    // block in which the levels shown change {coin,time,height,prevHeight,bids,asks} of the changed levels only.
    readChannel({
      type: 'l2BookDiff',
      read: (sub) => L2_BOOK_DIFF_STREAM.parse(sub, 'info'),
      normalize: (sub, book) => ({
        ...sub,
        ...selectionOf(book),
        nSigFigs: book.nSigFigs ?? null,
        mantissa: book.mantissa ?? null,
        nLevels: book.nLevels ?? null,
      }),
      weight,
      async start(input, ctx) {
        const options = { nSigFigs: input.nSigFigs, mantissa: input.mantissa, levels: input.nLevels };
        return sendStreams(
          (await coinsOf(input)).map((coin) => streams.l2BookDiff(coin, options)),
          ctx,
        );
      },
    }),
    // order_book_server's l4Book: {"Snapshot":{coin,time,height,levels}} first, then {"Updates":{time,height,
    // order_statuses,book_diffs}} per block in which the coin has any. Several coins: a Snapshot per coin, then one
    // Updates per block with the records of all of them (each record names its coin).
    readChannel({
      type: 'l4Book',
      read: (sub) => COIN_STREAM.parse(sub, 'info'),
      normalize: (sub, input) => ({ ...sub, ...selectionOf(input) }),
      weight,
      async start(input, ctx) {
        const l4 = streams.l4Books(await coinsOf(input));
        for (const frame of l4.snapshots()) ctx.send(frame);
        return l4.subscribe((frame) => ctx.send(frame));
      },
    }),
    // Several coins: one frame per block with the trades of all of them (each names its coin).
    readChannel({
      type: 'trades',
      read: (sub) => COIN_STREAM.parse(sub, 'info'),
      normalize: (sub, input) => ({ ...sub, ...selectionOf(input) }),
      weight,
      start: (input, ctx) => sendStream(streams.trades(tradeSelection(input)), ctx),
      ...(markets.stored
        ? { stored: (input: CoinSelection) => storedFrames(stored.trades(tradeSelection(input)), (t) => t) }
        : {}),
    }),
    readChannel({
      type: 'bbo',
      read: (sub) => COIN_STREAM.parse(sub, 'info'),
      normalize: (sub, input) => ({ ...sub, ...selectionOf(input) }),
      weight,
      start: async (input, ctx) =>
        sendStreams(
          (await coinsOf(input)).map((coin) => streams.bbo(coin)),
          ctx,
        ),
    }),
    readChannel({
      type: 'candle',
      read: (sub) => CANDLE_STREAM.parse(sub, 'info'),
      start: ({ coin, interval }, ctx) => sendStream(streams.candle(coin, interval), ctx),
      // Resumed and replayed from the coin's stored trades (service/stored-candles.ts: what a position means).
      ...(markets.stored
        ? {
            stored: ({ coin, interval }: { coin: string; interval: CandleInterval }) =>
              storedFrames(stored.candle(coin, interval), (c) => c),
          }
        : {}),
    }),
    readChannel({
      type: 'allCandles',
      read: (sub) => ALL_CANDLES_STREAM.parse(sub, 'info'),
      start: ({ interval }, ctx) => sendStream(streams.allCandles(interval), ctx),
    }),
    readChannel({
      type: 'activeAssetCtx',
      channelName: (sub) => (isSpotCoin(String(sub.coin)) ? 'activeSpotAssetCtx' : 'activeAssetCtx'),
      read: readCoin,
      start: ({ coin }, ctx) => sendStream(streams.activeAssetCtx(coin), ctx),
    }),
  ];
}
