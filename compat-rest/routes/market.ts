// /market/*: the market-history archive (bbo, spread, depth, slippage, book, liquidity report) per coin, in the
// data envelope, newest first, paged by `limit` within a `start_time`/`end_time` window (default: the last day).
// Times are naive UTC ISO text, as in every path-endpoint record.
import type { FastifyPluginAsync } from 'fastify';
import { naiveIso } from '../../platform/naive-iso.ts';
import * as history from '../../subgraphs/markets/service/history.ts';
import { dataEnvelope } from '../envelopes.ts';
import type { CompatServices } from '../info/types.ts';
import { limitSchema, type TimeWindowQuery, timeWindow, timeWindowSchema } from '../params.ts';

const DAY = 86_400_000;

interface CoinParams {
  coin: string;
}
interface WindowQuery extends TimeWindowQuery {
  limit: number;
}

const coinWindowSchema = {
  params: { type: 'object', properties: { coin: { type: 'string', minLength: 1 } }, required: ['coin'] },
  querystring: {
    type: 'object',
    properties: { ...timeWindowSchema, limit: limitSchema(1000, 100) },
  },
} as const;

type Series = typeof history.bboHistory;

export const marketRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { markets } = services;
  const pool = markets.pool;

  app.get('/coins', async () => {
    const started = performance.now();
    return dataEnvelope(await history.historyCoins(pool), started);
  });

  const series: [string, Series][] = [
    ['bbo', history.bboHistory],
    ['spread', history.spreadHistory],
    ['depth', history.depthHistory],
    ['slippage', history.slippageHistory as Series],
    ['book', history.bookHistory],
  ];
  for (const [name, query] of series) {
    app.get<{ Params: CoinParams; Querystring: WindowQuery }>(
      `/${name}/:coin`,
      { schema: coinWindowSchema },
      async (req) => {
        const started = performance.now();
        const window = { ...timeWindow(req.query, markets.now(), DAY), limit: req.query.limit };
        const { rows, hasMore } = await query(pool, req.params.coin, window);
        return dataEnvelope(
          rows.map((r) => ({ ...r, time: naiveIso(r.time) })),
          started,
          hasMore,
        );
      },
    );
  }

  app.get<{ Params: CoinParams; Querystring: TimeWindowQuery }>(
    '/liquidity-report/:coin',
    {
      schema: {
        params: coinWindowSchema.params,
        querystring: { type: 'object', properties: timeWindowSchema },
      },
    },
    async (req) => {
      const started = performance.now();
      const { startTime, endTime } = timeWindow(req.query, markets.now(), DAY);
      const report = await history.liquidityReport(pool, req.params.coin, startTime, endTime);
      return dataEnvelope(
        { ...report, start_time: naiveIso(report.start_time), end_time: naiveIso(report.end_time) },
        started,
      );
    },
  );
};
