// /market/*: the market-history archive (bbo, spread, depth, slippage, book) per coin, in the data envelope, newest
// first, paged by `limit` within a `start_time`/`end_time` window (the service's default: the last day). Times are
// naive UTC ISO text, as in every path-endpoint record. The live L4 book of a coin (/market/l4book/{coin}) and the
// liquidity report (/market/liquidity-report/{coin}) are capabilities' routes (state-capabilities.ts).
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelopeOf, naiveTime } from '../../../kit/answers.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import * as R from '../../../kit/response-schema.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import { HISTORY_SERIES_NAMES } from '../service/history.ts';
import { MARKET_HISTORY } from '../service/inputs.ts';

const nullableDecimal = R.orNull(R.decimal);
const level = R.record({ px: R.decimal, sz: R.decimal, n: R.int });
/** Each series' samples (history.ts), newest first; `time` naive UTC ISO. */
const SERIES_ROWS = {
  bbo: R.record({
    time: naiveTime,
    bid_px: nullableDecimal,
    bid_sz: nullableDecimal,
    bid_n: R.orNull(R.int),
    ask_px: nullableDecimal,
    ask_sz: nullableDecimal,
    ask_n: R.orNull(R.int),
  }),
  spread: R.record({
    time: naiveTime,
    bid_px: R.decimal,
    ask_px: R.decimal,
    spread: R.decimal,
    spread_bps: R.decimal,
  }),
  depth: R.record({
    time: naiveTime,
    mid_px: R.decimal,
    bands: R.mapOf(R.record({ bidDepthUsd: R.decimal, askDepthUsd: R.decimal })),
  }),
  slippage: R.record({ time: naiveTime, notional: R.decimal, buy_bps: nullableDecimal, sell_bps: nullableDecimal }),
  book: R.record({ time: naiveTime, levels: R.tuple(R.list(level), R.list(level)) }),
};
const coinParams = { type: 'object', properties: { coin: { type: 'string', minLength: 1 } }, required: ['coin'] };

export const marketRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { markets } = services;

  app.get('/coins', { schema: { answer: { body: dataEnvelopeOf(R.list(R.str)) } } }, async (req) =>
    dataEnvelope(req, await markets.historyCoins()),
  );

  for (const series of HISTORY_SERIES_NAMES) {
    // Each route reads its input definition before the call is charged (kit/route-input.ts).
    const input = routeInput(MARKET_HISTORY, (req) => ({
      ...(req.query as object),
      ...(req.params as object),
      series,
    }));
    app.get(
      `/${series}/:coin`,
      {
        schema: {
          params: coinParams,
          querystring: input.querystring(['series', 'coin']),
          answer: { body: dataEnvelopeOf(R.list(SERIES_ROWS[series])) },
        },
        config: input.config,
      },
      async (req) => {
        const page = await markets.marketHistory(input.of(req));
        const records = page.rows.map((r) => ({ ...r, time: naiveIso(r.time) }));
        return dataEnvelope(req, records, page);
      },
    );
  }
};
