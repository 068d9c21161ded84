// Candle: the exchange's OHLCV fields plus `closed` and `reconciled` (spec §2.3), (the candle subscriptions: live-capabilities.ts).
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import type { CandleFrame } from '../service/candles.ts';
import { CANDLE_INTERVALS, type CandleInterval } from '../service/intervals.ts';

export const CandleIntervalEnum = builder.enumType('CandleInterval', {
  description: "The exchange's 14 intervals plus 5s and 30s (enum names: _5s, _1m, ..., _1M)",
  values: Object.fromEntries(CANDLE_INTERVALS.map((i) => [`_${i}`, { value: i }])) as Record<
    string,
    { value: CandleInterval }
  >,
});

export const CandleRef = builder.objectRef<CandleFrame>('Candle').implement({
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
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
