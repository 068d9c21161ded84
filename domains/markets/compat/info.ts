// /info types of the markets domain. Types the exchange itself answers keep the exchange's shape (so its SDKs
// work unchanged); the service's own types (currentDepth, trades, dataCoverage, l2Books, availableDates) use the
// result envelope.

import { resultEnvelope } from '../../../kit/envelopes.ts';
import { encodedJson, type InfoEntry, json, readInfo, sharedBytes, sharedJson } from '../../../kit/info.ts';
import { nestedBody } from '../../../kit/input.ts';
import * as R from '../../../kit/response-schema.ts';
import {
  AVAILABLE_DATES,
  CANDLES,
  COIN,
  FUNDING_HISTORY,
  L2_BOOK,
  L2_BOOKS,
  NO_INPUT,
  RESERVE_HISTORY,
  TRADES,
} from '../service/inputs.ts';

/** candleSnapshot's body nests its input in `req`: `{type, req: {coin, interval, startTime, endTime}}`. */
const CANDLE_SNAPSHOT = nestedBody('req', CANDLES);

export const marketsInfo: Record<string, InfoEntry> = {
  l2Book: readInfo({
    schema: L2_BOOK.body(),
    read: (body) => L2_BOOK.parse(body, 'info'),
    handler: async (q, { markets }) => sharedJson(markets.l2Book(q)),
    response: R.orNull(R.l2Book),
  }),

  /**
   * Several books in one answer: `{result: {coin: l2Book answer | null, ...}, cursor: null}` in the order asked, each
   * book the bytes its own l2Book answer is sent as.
   */
  l2Books: readInfo({
    schema: L2_BOOKS.body(),
    read: (body) => L2_BOOKS.parse(body, 'info'),
    async handler(q, { markets }) {
      const books = markets.l2Books(q);
      const parts = [...books].map(([coin, book]) =>
        Buffer.concat([Buffer.from(`${JSON.stringify(coin)}:`), book ? sharedBytes(book) : Buffer.from('null')]),
      );
      const comma = Buffer.from(',');
      const joined = parts.flatMap((p, i) => (i ? [comma, p] : [p]));
      return encodedJson(Buffer.concat([Buffer.from('{"result":{'), ...joined, Buffer.from('},"cursor":null}')]));
    },
    response: R.resultOf(R.mapOf(R.orNull(R.l2Book))),
  }),

  /** `{result: {coin: {dataset: ["YYYY-MM-DD", ...]}}, cursor: null}`; `coin` and `dataset` optional filters. */
  availableDates: readInfo({
    schema: AVAILABLE_DATES.body(),
    read: (body) => AVAILABLE_DATES.parse(body, 'info'),
    handler: async (q, { markets }) => json(resultEnvelope(await markets.availableDates(q))),
    response: R.resultOf(R.mapOf(R.mapOf(R.list({ type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' })))),
  }),

  candleSnapshot: readInfo({
    schema: CANDLE_SNAPSHOT.body(),
    read: (body) => CANDLE_SNAPSHOT.parse(body),
    handler: async (q, { markets }) => encodedJson(await markets.candleSnapshotJson(q)),
    response: R.list(R.wireCandle),
  }),

  recentTrades: readInfo({
    schema: COIN.body(),
    read: (body) => COIN.parse(body, 'info'),
    handler: async ({ coin }, { markets }) => json(await markets.recentTrades(coin, 100)),
    response: R.list(R.wireTrade),
  }),

  trades: readInfo({
    schema: TRADES.body(),
    read: (body) => TRADES.parse(body, 'info'),
    handler: async (q, { markets }) => json(resultEnvelope(await markets.trades(q))),
    response: R.resultOf(R.list(R.wireTrade)),
  }),

  fundingHistory: readInfo({
    schema: FUNDING_HISTORY.body(),
    read: (body) => FUNDING_HISTORY.parse(body, 'info'),
    handler: async (q, { markets }) => json(await markets.fundingHistory(q)),
    response: R.list(R.record({ coin: R.str, fundingRate: R.decimal, premium: R.decimal, time: R.ms })),
  }),

  currentDepth: readInfo({
    schema: COIN.body(),
    read: (body) => COIN.parse(body, 'info'),
    handler: async ({ coin }, { markets }) => json(resultEnvelope(markets.books.depth(coin))),
    /** USD depth within each band of basis points around the mid; `null` without a two-sided book. */
    response: R.resultOf(
      R.orNull(
        R.record({
          coin: R.str,
          time: R.ms,
          midPx: R.decimal,
          depth: R.mapOf(R.record({ bidDepthUsd: R.decimal, askDepthUsd: R.decimal })),
        }),
      ),
    ),
  }),

  dataCoverage: {
    schema: NO_INPUT.body(),
    async handler(_body, { markets, coverage }) {
      return json(resultEnvelope(await coverage(markets.now())));
    },
    response: R.resultOf(
      R.record({
        region: R.str,
        datasets: R.mapOf(
          R.record({
            start: { type: ['integer', 'null'] },
            latest: { type: ['integer', 'null'] },
            earliest: { type: ['integer', 'null'] },
            delaySeconds: { type: ['number', 'null'] },
          }),
        ),
        backfills: R.list(R.record({ lane: R.str, until: R.int, loadedThrough: R.mapOf(R.int) })),
      }),
    ),
  },

  allBorrowLendReserveStates: {
    schema: NO_INPUT.body(),
    handler: async (_body, { markets }) => json(await markets.allReserveStates()),
    response: R.list(R.tuple(R.int, R.record(R.reserveStateFields))),
  },

  borrowLendReserveHistory: readInfo({
    schema: RESERVE_HISTORY.body(),
    read: (body) => RESERVE_HISTORY.parse(body, 'info'),
    handler: async (q, { markets }) => json(await markets.reserveHistory(q)),
    response: R.record({
      token: { type: ['integer', 'null'] },
      interval: { type: ['string', 'null'] },
      history: R.list(R.record({ time: R.ms, token: R.int, tokenName: R.str, ...R.reserveStateFields })),
    }),
  }),
};
