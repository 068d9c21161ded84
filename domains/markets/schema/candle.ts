// Candle: the exchange's OHLCV fields plus `closed` and `reconciled` (spec §2.3), and the candle subscriptions.
import { liveIterator } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import {
  ALL_CANDLES_STREAM,
  CANDLE_INTERVALS,
  CANDLE_STREAM,
  type CandleFrame,
  type CandleInterval,
} from '../service/index.ts';

export const CandleIntervalEnum = builder.enumType('CandleInterval', {
  description: "The exchange's 14 intervals plus 5s and 30s (enum names: _5s, _1m, ..., _1M)",
  values: Object.fromEntries(CANDLE_INTERVALS.map((i) => [`_${i}`, { value: i }])) as Record<
    string,
    { value: CandleInterval }
  >,
});

export const CandleRef = builder.objectRef<CandleFrame>('Candle').implement({
  fields: (t) => ({
    coin: t.exposeString('s'),
    interval: t.field({ type: CandleIntervalEnum, resolve: (c) => c.i }),
    t: t.expose('t', { type: 'Timestamp', description: 'Bucket open' }),
    T: t.expose('T', { type: 'Timestamp', description: 'Bucket close (next open minus 1 ms)' }),
    o: t.expose('o', { type: 'Decimal' }),
    h: t.expose('h', { type: 'Decimal' }),
    l: t.expose('l', { type: 'Decimal' }),
    c: t.expose('c', { type: 'Decimal' }),
    v: t.expose('v', { type: 'Decimal', description: 'Base volume' }),
    n: t.exposeInt('n', { description: 'Number of trades' }),
    closed: t.exposeBoolean('closed', { description: 'The bucket is over' }),
    reconciled: t.exposeBoolean('reconciled', {
      description: 'Values recomputed from stored trades (false: live state only, or a 5s/30s bucket)',
    }),
  }),
});

builder.subscriptionFields((t) => ({
  candle: t.field({
    type: CandleRef,
    description: 'Updates of one coin and interval; each bucket ends with one closed frame',
    args: CANDLE_STREAM.args(t, { types: { interval: CandleIntervalEnum } }),
    subscribe: (_root, a, ctx) => {
      const { coin, interval } = CANDLE_STREAM.parse(a, 'graphql');
      return liveIterator(ctx.markets.streams.candle(coin, interval));
    },
    resolve: (frame) => frame,
  }),
  allCandles: t.field({
    type: CandleRef,
    description: 'Updates of every coin for one interval',
    args: ALL_CANDLES_STREAM.args(t, { types: { interval: CandleIntervalEnum } }),
    subscribe: (_root, a, ctx) =>
      liveIterator(ctx.markets.streams.allCandles(ALL_CANDLES_STREAM.parse(a, 'graphql').interval)),
    resolve: (frame) => frame,
  }),
}));
