// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins). Each follows one of the markets service's streams
// (subgraphs/markets/service/streams.ts), snapshot first; what is here is the wire: parameters and frame shapes.

import type { Channel } from '../../../kit/channel.ts';
import { optionalIn, requireString, SubscriptionError, sendStream, subscriptionInput } from '../../../kit/channel.ts';
import { CANDLE_INTERVALS, type CandleInterval, isSpotCoin, l2Options, type MarketsService } from '../service/index.ts';

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
      normalize: (sub) => {
        const dex = sub.dex;
        if (dex !== undefined && typeof dex !== 'string') throw new SubscriptionError('dex: must be a string');
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
        const { nSigFigs, mantissa } = subscriptionInput(() =>
          l2Options({ nSigFigs: sub.nSigFigs, mantissa: sub.mantissa }),
        );
        if (sub.fast !== undefined && typeof sub.fast !== 'boolean')
          throw new SubscriptionError('fast: must be a boolean');
        return { ...sub, coin: requireString(sub, 'coin'), nSigFigs, mantissa };
      },
      start(sub, ctx) {
        // The TS SDK's `fast`: the exchange's shallow book, 5 levels a side (the default is 20).
        const levels = sub.fast === true ? 5 : undefined;
        return sendStream(
          streams.l2Book(sub.coin as string, { nSigFigs: sub.nSigFigs, mantissa: sub.mantissa, levels }),
          ctx,
        );
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
