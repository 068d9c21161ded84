// Candle: the exchange's OHLCV fields plus `closed` and `reconciled` (spec §2.3), and the candle subscriptions.
import {
  CURSOR_DESCRIPTION,
  type Cursored,
  cursorOf,
  cursorOn,
  liveIterator,
  STORED_AFTER_DESCRIPTION,
  storedIterator,
} from '../../../kit/live.ts';
import { replayFields } from '../../../kit/replay-fields.ts';
import { holesFrom } from '../../../kit/resume.ts';
import { builder, type MarketsContext } from '../builder.ts';
import type { CandleFrame } from '../service/candles.ts';
import { ALL_CANDLES_STREAM, CANDLE_STREAM } from '../service/inputs.ts';
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

builder.subscriptionFields((t) => ({
  candle: t.field({
    type: CandleRef,
    description:
      'Updates of one coin and interval; each bucket ends with one closed frame. With `after` or `positions`, the ' +
      "stored stream made of the coin's trades, each frame with its cursor: a bucket's closed frame then comes " +
      "just before the next bucket's first update (docs/interfaces.md)",
    args: {
      ...CANDLE_STREAM.args(t, { types: { interval: CandleIntervalEnum } }),
      after: t.arg.string({ description: STORED_AFTER_DESCRIPTION }),
      positions: t.arg.boolean({ description: 'true: from now, each frame with its cursor (as with `after`)' }),
    },
    subscribe: (_root, { after, positions, ...a }, ctx) => {
      const { coin, interval } = CANDLE_STREAM.parse(a, 'graphql');
      const stored = ctx.markets.stored;
      if (stored && (after != null || positions)) return storedIterator(stored.candle(coin, interval), after);
      return liveIterator(ctx.markets.streams.candle(coin, interval));
    },
    resolve: (frame: CandleFrame | Cursored<CandleFrame>) => ('event' in frame ? cursorOn(frame) : frame),
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

replayFields<MarketsContext>(builder, [
  {
    name: 'candleReplay',
    item: CandleRef,
    list: false,
    description:
      "A coin's candle of one interval over a stored window, made of its stored trades, paced by their times at " +
      '`speed`, as candle sends it with `after`, with a gap frame where the store has a hole and a complete frame at ' +
      'the end (the /ws replay subscription)',
    args: (t) => CANDLE_STREAM.args(t, { types: { interval: CandleIntervalEnum } }),
    stream: (a, ctx) => {
      const { coin, interval } = CANDLE_STREAM.parse(a, 'graphql');
      if (!ctx.markets.stored) throw new Error('replays need the service to follow the event bus');
      return ctx.markets.stored.candle(coin, interval);
    },
    data: (event, cursor) => cursorOn({ event: event as CandleFrame, cursor }),
    holes: (ctx) => holesFrom(ctx.coverage),
  },
]);
