// /info types of the markets domain. Types the exchange itself answers keep the exchange's shape (so its SDKs
// work unchanged); the service's own types (currentDepth, trades, dataCoverage, l2Books, availableDates) use the
// result envelope.

import {
  array,
  FieldError,
  nonEmpty,
  object,
  optIntIn,
  optOneOf,
  optStr,
  optTimeMs,
  orderedWindow,
  timeMs,
} from '../../platform/fields.ts';
import { BookQueryError, type L2Options } from '../../subgraphs/markets/service/book.ts';
import { availableDates, HISTORY_DATASET_NAMES, type HistoryDataset } from '../../subgraphs/markets/service/history.ts';
import { CANDLE_INTERVALS } from '../../subgraphs/markets/service/intervals.ts';
import { RESERVE_INTERVALS } from '../../subgraphs/markets/service/reserves.ts';
import { resultEnvelope } from '../envelopes.ts';
import { dexBody, marginTableBody, noFields, proxied, userBody } from './proxy.ts';
import { encodedJson, type InfoHandler, json, sharedBytes, sharedJson } from './types.ts';

const DAY = 86_400_000;
const META_TTL_MS = 30_000;

function coinOf(body: Record<string, unknown>): string {
  return nonEmpty(body, 'coin');
}

/** l2Book's aggregation options; null and absent both mean none (the Python SDK sends nulls). */
function l2Options(body: Record<string, unknown>): L2Options {
  const nSigFigs = optIntIn(body, 'nSigFigs', 2, 5) as 2 | 3 | 4 | 5 | undefined;
  const mantissa = optIntIn(body, 'mantissa', 1, 5) as 1 | 2 | 5 | undefined;
  return { nSigFigs: nSigFigs ?? null, mantissa: mantissa ?? null };
}

/** A book query's own errors (bad aggregation) are the caller's. */
function bookQuery<T>(query: () => T): T {
  try {
    return query();
  } catch (err) {
    if (err instanceof BookQueryError) throw new FieldError(err.message);
    throw err;
  }
}

export const marketsInfo: Record<string, InfoHandler> = {
  meta: proxied(META_TTL_MS, dexBody),
  spotMeta: proxied(META_TTL_MS, noFields),
  perpDexs: proxied(META_TTL_MS, noFields),
  marginTable: proxied(META_TTL_MS, marginTableBody),
  maxMarketOrderNtls: proxied(META_TTL_MS, noFields),
  leadingVaults: proxied(10_000, userBody),

  async metaAndAssetCtxs(body, { markets }) {
    return json(await markets.metaAndAssetCtxs(optStr(body, 'dex') ?? ''));
  },

  async spotMetaAndAssetCtxs(_body, { markets }) {
    return json(await markets.spotMetaAndAssetCtxs());
  },

  async allMids(body, { markets }) {
    const dex = optStr(body, 'dex') ?? '';
    if (dex === '') return sharedJson(markets.firstDexMids());
    const meta = await markets.meta(dex);
    return json(markets.allMids(meta.universe.map((u) => u.name)));
  },

  async l2Book(body, { markets }) {
    const coin = coinOf(body);
    const opts = l2Options(body);
    return sharedJson(bookQuery(() => markets.books.l2(coin, opts)));
  },

  /**
   * Several books in one answer: `{result: {coin: l2Book answer | null, ...}, cursor: null}` in the order asked, each
   * book the bytes its own l2Book answer is sent as.
   */
  async l2Books(body, { markets }) {
    const coins = array(body.coins, 'coins').map((c, i) => nonEmpty({ [`coins[${i}]`]: c }, `coins[${i}]`));
    const opts = l2Options(body);
    const books = bookQuery(() => markets.l2Books(coins, opts));
    const parts = [...books].map(([coin, book]) =>
      Buffer.concat([Buffer.from(`${JSON.stringify(coin)}:`), book ? sharedBytes(book) : Buffer.from('null')]),
    );
    const comma = Buffer.from(',');
    const joined = parts.flatMap((p, i) => (i ? [comma, p] : [p]));
    return encodedJson(Buffer.concat([Buffer.from('{"result":{'), ...joined, Buffer.from('},"cursor":null}')]));
  },

  /** `{result: {coin: {dataset: ["YYYY-MM-DD", ...]}}, cursor: null}`; `coin` and `dataset` optional filters. */
  async availableDates(body, { markets }) {
    const coin = body.coin === undefined || body.coin === null ? undefined : coinOf(body);
    const dataset = optOneOf(body, 'dataset', HISTORY_DATASET_NAMES);
    const datasets: HistoryDataset[] = dataset ? [dataset] : HISTORY_DATASET_NAMES;
    return json(resultEnvelope(await availableDates(markets.pool, { coin, datasets })));
  },

  async candleSnapshot(body, { markets }) {
    const req = object(body.req, 'req');
    const coin = nonEmpty(req, 'coin');
    const interval = optOneOf(req, 'interval', CANDLE_INTERVALS);
    if (!interval) throw new FieldError(`req.interval: is required, one of ${CANDLE_INTERVALS.join(', ')}`);
    const startTime = timeMs(req, 'startTime');
    const endTime = optTimeMs(req, 'endTime') ?? markets.now();
    orderedWindow('req.startTime', startTime, endTime);
    return encodedJson(await markets.candleSnapshotJson(coin, interval, startTime, endTime));
  },

  async recentTrades(body, { markets }) {
    return json(await markets.recentTrades(coinOf(body), 100));
  },

  async trades(body, { markets }) {
    const startTime = optTimeMs(body, 'startTime');
    const endTime = optTimeMs(body, 'endTime');
    orderedWindow('startTime', startTime, endTime);
    const limit = optIntIn(body, 'limit', 1, 1000) ?? 100;
    return json(resultEnvelope(await markets.trades({ coin: coinOf(body), limit, startTime, endTime })));
  },

  async fundingHistory(body, { markets }) {
    const coin = coinOf(body);
    const startTime = timeMs(body, 'startTime');
    const endTime = optTimeMs(body, 'endTime') ?? markets.now();
    orderedWindow('startTime', startTime, endTime);
    return json(await markets.fundingHistory(coin, startTime, endTime));
  },

  async currentDepth(body, { markets }) {
    return json(resultEnvelope(markets.books.depth(coinOf(body))));
  },

  async dataCoverage(_body, { markets, coverage }) {
    const datasets = await coverage(markets.now());
    return json(resultEnvelope({ region: process.env.REGION ?? 'local', datasets }));
  },

  async allBorrowLendReserveStates(_body, { markets }) {
    return json(await markets.allReserveStates());
  },

  async borrowLendReserveHistory(body, { markets }) {
    const now = markets.now();
    const token = optIntIn(body, 'token', 0);
    const startTime = optTimeMs(body, 'startTime') ?? now - 7 * DAY;
    const endTime = optTimeMs(body, 'endTime') ?? now;
    orderedWindow('startTime', startTime, endTime);
    const interval = optOneOf(body, 'interval', RESERVE_INTERVALS);
    const limit = optIntIn(body, 'limit', 1, 10_000) ?? 1000;
    return json(await markets.reserveHistory({ token, startTime, endTime, interval, limit }));
  },
};
