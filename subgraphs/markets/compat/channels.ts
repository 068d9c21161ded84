// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins). Each follows one of the markets service's streams
// (subgraphs/markets/service/streams.ts), snapshot first; what is here is the wire: parameters and frame shapes.

import { type Channel, sendStream } from '../../../kit/channel.ts';
import {
  ALL_CANDLES_STREAM,
  ALL_MIDS,
  CANDLE_STREAM,
  COIN,
  isSpotCoin,
  L2_BOOK_STREAM,
  type MarketsService,
} from '../service/index.ts';

// A subscription is read as the definition reads an /info body: the exchange's names, `type` and the keys a
// definition does not hold left to the ack, which echoes them as sent.

/** A subscription's `coin` (trades, bbo, activeAssetCtx). */
const coinOf = (sub: Record<string, unknown>) => COIN.parse(sub, 'info').coin;

export function marketChannels(markets: MarketsService): Channel[] {
  const { streams } = markets;
  return [
    {
      type: 'allMids',
      // The mids' input (ALL_MIDS) but `coins`, which the exchange's channel does not take.
      normalize: (sub) => {
        ALL_MIDS.parse({ dex: sub.dex }, 'info');
        return { ...sub };
      },
      async start(sub, ctx) {
        const { dex = '' } = ALL_MIDS.parse({ dex: sub.dex }, 'info');
        const mids = await streams.allMids(dex);
        // The SDK drops frames carrying dex "" for the default dex: omit the key there.
        return sendStream(mids, ctx, (all) => ({ mids: all, ...(dex ? { dex } : {}) }));
      },
    },
    {
      type: 'l2Book',
      normalize: (sub) => {
        const book = L2_BOOK_STREAM.parse(sub, 'info');
        // The subscription as acknowledged: no aggregation reads null, as the exchange echoes it.
        return { ...sub, coin: book.coin, nSigFigs: book.nSigFigs ?? null, mantissa: book.mantissa ?? null };
      },
      start(sub, ctx) {
        const { coin, fast, ...aggregation } = L2_BOOK_STREAM.parse(sub, 'info');
        // The TS SDK's `fast`: the exchange's shallow book, 5 levels a side (the default is 20).
        return sendStream(streams.l2Book(coin, { ...aggregation, levels: fast ? 5 : undefined }), ctx);
      },
    },
    {
      type: 'trades',
      normalize: (sub) => ({ ...sub, coin: coinOf(sub) }),
      start: (sub, ctx) => sendStream(streams.trades(coinOf(sub)), ctx),
    },
    {
      type: 'bbo',
      normalize: (sub) => ({ ...sub, coin: coinOf(sub) }),
      start: (sub, ctx) => sendStream(streams.bbo(coinOf(sub)), ctx),
    },
    {
      type: 'candle',
      normalize: (sub) => ({ ...sub, ...CANDLE_STREAM.parse(sub, 'info') }),
      start(sub, ctx) {
        const { coin, interval } = CANDLE_STREAM.parse(sub, 'info');
        return sendStream(streams.candle(coin, interval), ctx);
      },
    },
    {
      type: 'allCandles',
      normalize: (sub) => ({ ...sub, ...ALL_CANDLES_STREAM.parse(sub, 'info') }),
      start: (sub, ctx) => sendStream(streams.allCandles(ALL_CANDLES_STREAM.parse(sub, 'info').interval), ctx),
    },
    {
      type: 'activeAssetCtx',
      channelName: (sub) => (isSpotCoin(String(sub.coin)) ? 'activeSpotAssetCtx' : 'activeAssetCtx'),
      normalize: (sub) => ({ ...sub, coin: coinOf(sub) }),
      start: (sub, ctx) => sendStream(streams.activeAssetCtx(coinOf(sub)), ctx),
    },
  ];
}
