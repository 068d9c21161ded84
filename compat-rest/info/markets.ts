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
  optTimeWindow,
  orderedWindow,
  timeMs,
} from '../../platform/fields.ts';
import {
  CANDLE_INTERVALS,
  HISTORY_DATASET_NAMES,
  type HistoryDataset,
  type L2OptionsInput,
  MAX_RESERVE_HISTORY,
  MAX_TRADES,
  RESERVE_INTERVALS,
} from '../../subgraphs/markets/service/index.ts';
import { resultEnvelope } from '../envelopes.ts';
import { dexBody, marginTableBody, noFields, proxied, userBody } from './proxy.ts';
import { encodedJson, type InfoHandler, json, sharedBytes, sharedJson } from './types.ts';

const META_TTL_MS = 30_000;

function coinOf(body: Record<string, unknown>): string {
  return nonEmpty(body, 'coin');
}

/** l2Book's aggregation options as sent (the service checks them); null and absent both mean none. */
const aggregationOf = (body: Record<string, unknown>): L2OptionsInput => ({
  nSigFigs: body.nSigFigs,
  mantissa: body.mantissa,
});

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
    return sharedJson(markets.l2Book(coinOf(body), aggregationOf(body)));
  },

  /**
   * Several books in one answer: `{result: {coin: l2Book answer | null, ...}, cursor: null}` in the order asked, each
   * book the bytes its own l2Book answer is sent as.
   */
  async l2Books(body, { markets }) {
    const coins = array(body.coins, 'coins').map((c, i) => nonEmpty({ [`coins[${i}]`]: c }, `coins[${i}]`));
    const books = markets.l2Books(coins, aggregationOf(body));
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
    return json(resultEnvelope(await markets.availableDates({ coin, datasets })));
  },

  async candleSnapshot(body, { markets }) {
    const req = object(body.req, 'req');
    const coin = nonEmpty(req, 'coin');
    const interval = optOneOf(req, 'interval', CANDLE_INTERVALS);
    if (!interval) throw new FieldError(`req.interval: is required, one of ${CANDLE_INTERVALS.join(', ')}`);
    const startTime = timeMs(req, 'startTime');
    const endTime = optTimeMs(req, 'endTime');
    orderedWindow('req.startTime', startTime, endTime);
    return encodedJson(await markets.candleSnapshotJson(coin, interval, startTime, endTime));
  },

  async recentTrades(body, { markets }) {
    return json(await markets.recentTrades(coinOf(body), 100));
  },

  async trades(body, { markets }) {
    const limit = optIntIn(body, 'limit', 1, MAX_TRADES);
    return json(resultEnvelope(await markets.trades({ coin: coinOf(body), limit, ...optTimeWindow(body) })));
  },

  async fundingHistory(body, { markets }) {
    const coin = coinOf(body);
    const startTime = timeMs(body, 'startTime');
    const endTime = optTimeMs(body, 'endTime');
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
    const token = optIntIn(body, 'token', 0);
    const interval = optOneOf(body, 'interval', RESERVE_INTERVALS);
    const limit = optIntIn(body, 'limit', 1, MAX_RESERVE_HISTORY);
    return json(await markets.reserveHistory({ token, ...optTimeWindow(body), interval, limit }));
  },
};
