// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins). Each follows one of the markets service's streams
// (subgraphs/markets/service/streams.ts), snapshot first; what is here is the wire: parameters and frame shapes.

import type { Channel } from '../../../kit/channel.ts';
import { optionalIn, requireString, SubscriptionError, sendStream, subscriptionInput } from '../../../kit/channel.ts';
import {
  ALL_MIDS,
  CANDLE_INTERVALS,
  type CandleInterval,
  isSpotCoin,
  L2_BOOK,
  type MarketsService,
} from '../service/index.ts';

/** A subscription's `interval`, required, one of the candle intervals. */
function intervalParam(sub: Record<string, unknown>): CandleInterval {
  const interval = optionalIn(sub, 'interval', CANDLE_INTERVALS);
  if (!interval) throw new SubscriptionError('interval: is required');
  return interval;
}

export function marketChannels(markets: MarketsService): Channel[] {
  const { streams } = markets;
  return [
    {
      type: 'allMids',
      // The mids' input (ALL_MIDS) but `coins`, which the exchange's channel does not take.
      normalize: (sub) => {
        subscriptionInput(() => ALL_MIDS.parse({ dex: sub.dex }, 'info'));
        return { ...sub };
      },
      async start(sub, ctx) {
        const dex = typeof sub.dex === 'string' ? sub.dex : '';
        const mids = await subscriptionInput(() => streams.allMids(dex));
        // The SDK drops frames carrying dex "" for the default dex: omit the key there.
        return sendStream(mids, ctx, (all) => ({ mids: all, ...(dex ? { dex } : {}) }));
      },
    },
    {
      type: 'l2Book',
      normalize: (sub) => {
        const coin = requireString(sub, 'coin');
        const book = subscriptionInput(() =>
          L2_BOOK.parse({ coin, nSigFigs: sub.nSigFigs, mantissa: sub.mantissa }, 'info'),
        );
        if (sub.fast !== undefined && typeof sub.fast !== 'boolean')
          throw new SubscriptionError('fast: must be a boolean');
        // The subscription as acknowledged: no aggregation reads null, as the exchange echoes it.
        return { ...sub, coin, nSigFigs: book.nSigFigs ?? null, mantissa: book.mantissa ?? null };
      },
      start(sub, ctx) {
        // The TS SDK's `fast`: the exchange's shallow book, 5 levels a side (the default is 20).
        const levels = sub.fast === true ? 5 : undefined;
        const aggregation = { nSigFigs: sub.nSigFigs as number | null, mantissa: sub.mantissa as 1 | 2 | 5 | null };
        return sendStream(streams.l2Book(sub.coin as string, { ...aggregation, levels }), ctx);
      },
    },
    {
      type: 'trades',
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start: (sub, ctx) => sendStream(streams.trades(sub.coin as string), ctx),
    },
    {
      type: 'bbo',
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start: (sub, ctx) => sendStream(streams.bbo(sub.coin as string), ctx),
    },
    {
      type: 'candle',
      normalize: (sub) => {
        requireString(sub, 'coin');
        intervalParam(sub);
        return { ...sub };
      },
      start: (sub, ctx) => sendStream(streams.candle(sub.coin as string, sub.interval as CandleInterval), ctx),
    },
    {
      type: 'allCandles',
      normalize: (sub) => {
        intervalParam(sub);
        return { ...sub };
      },
      start: (sub, ctx) => sendStream(streams.allCandles(sub.interval as CandleInterval), ctx),
    },
    {
      type: 'activeAssetCtx',
      channelName: (sub) => (isSpotCoin(String(sub.coin)) ? 'activeSpotAssetCtx' : 'activeAssetCtx'),
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start: (sub, ctx) => sendStream(streams.activeAssetCtx(sub.coin as string), ctx),
    },
  ];
}
