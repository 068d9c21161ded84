// /info types of the markets domain. Types the exchange itself answers keep the exchange's shape (so its SDKs
// work unchanged); the service's own types (currentDepth, trades, dataCoverage, l2Books, availableDates) use the
// result envelope.

import { resultEnvelope } from '../../../kit/envelopes.ts';
import { encodedJson, type InfoEntry, json, readInfo } from '../../../kit/info.ts';
import { nestedBody } from '../../../kit/input.ts';
import * as R from '../../../kit/response-schema.ts';
import {
  AVAILABLE_DATES,
  CANDLES,
  COIN,
  FUNDING_HISTORY,
  NO_INPUT,
  RESERVE_HISTORY,
  TRADES,
} from '../service/inputs.ts';

/** candleSnapshot's body nests its input in `req`: `{type, req: {coin, interval, startTime, endTime}}`. */
const CANDLE_SNAPSHOT = nestedBody('req', CANDLES);

export const marketsInfo: Record<string, InfoEntry> = {
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
