// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins); and order_book_server's l4Book. Each follows one of the
// markets service's streams (domains/markets/service/streams.ts), snapshot first; what is here is the wire:
// parameters and frame shapes.

import { type Channel, readChannel, sendStream, storedFrames } from '../../../kit/channel.ts';
import {
  ALL_CANDLES_STREAM,
  ALL_MIDS,
  CANDLE_STREAM,
  COIN,
  isSpotCoin,
  L2_BOOK_DIFF,
  L2_BOOK_STREAM,
  L4_BOOK,
  type MarketsService,
} from '../service/index.ts';

// A subscription is read as the definition reads an /info body: the exchange's names, `type` and the keys a
// definition does not hold left to the ack, which echoes them as sent.

/** A subscription's `coin` (trades, bbo, activeAssetCtx). */
const readCoin = (sub: Record<string, unknown>) => COIN.parse(sub, 'info');

export function marketChannels(markets: MarketsService): Channel[] {
  const { streams } = markets;
  const stored = markets.stored as NonNullable<MarketsService['stored']>;
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
        coin: book.coin,
        nSigFigs: book.nSigFigs ?? null,
        mantissa: book.mantissa ?? null,
      }),
      // order_book_server's `nLevels` (1 to 100, default 20); else the TS SDK's `fast`: the exchange's shallow book,
      // 5 levels a side. Sent in every block in which the levels shown change.
      start: ({ coin, fast, nLevels, ...aggregation }, ctx) =>
        sendStream(streams.l2Book(coin, { ...aggregation, levels: nLevels ?? (fast ? 5 : undefined) }), ctx),
    }),
    // GoldRush's and Alchemy's l2BookDiff: {coin,time,height,prevHeight:null,snapshot:true,levels} first, then per
    // block in which the levels shown change {coin,time,height,prevHeight,bids,asks} of the changed levels only.
    readChannel({
      type: 'l2BookDiff',
      read: (sub) => L2_BOOK_DIFF.parse(sub, 'info'),
      normalize: (sub, book) => ({
        ...sub,
        coin: book.coin,
        nSigFigs: book.nSigFigs ?? null,
        mantissa: book.mantissa ?? null,
        nLevels: book.nLevels ?? null,
      }),
      start: ({ coin, nLevels, ...aggregation }, ctx) =>
        sendStream(streams.l2BookDiff(coin, { ...aggregation, levels: nLevels }), ctx),
    }),
    // order_book_server's l4Book: {"Snapshot":{coin,time,height,levels}} first, then {"Updates":{time,height,
    // order_statuses,book_diffs}} per block in which the coin has any.
    readChannel({
      type: 'l4Book',
      read: (sub) => L4_BOOK.parse(sub, 'info'),
      start: ({ coin }, ctx) => sendStream(streams.l4Book(coin), ctx),
    }),
    readChannel({
      type: 'trades',
      read: readCoin,
      start: ({ coin }, ctx) => sendStream(streams.trades(coin), ctx),
      ...(markets.stored
        ? { stored: ({ coin }: { coin: string }) => storedFrames(stored.trades(coin), (t) => t) }
        : {}),
    }),
    readChannel({ type: 'bbo', read: readCoin, start: ({ coin }, ctx) => sendStream(streams.bbo(coin), ctx) }),
    readChannel({
      type: 'candle',
      read: (sub) => CANDLE_STREAM.parse(sub, 'info'),
      start: ({ coin, interval }, ctx) => sendStream(streams.candle(coin, interval), ctx),
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
