// /users/* and /builders/* of the analytics domain (spec §4.3): leaderboard, performance (one and batch), equity
// history, PnL calendar, top trades and builder external activity, each a service call shaped into the data envelope
// (times as naive UTC ISO, spec's path-row convention). /users/{user}/account is the accounts domain's, under the
// same prefix: fastify keeps both groups' routes apart by path and method.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { perWalletCredits } from '../../../access/costs.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema, type TimeWindowQuery, timeWindow, timeWindowSchema } from '../../../kit/params.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import {
  DEFAULT_LEADERBOARD_PAGE_SIZE,
  DEFAULT_LIVE_HOURS,
  DEFAULT_TOP_TRADES,
  EQUITY_INTERVALS,
  type EquityInterval,
  LEADERBOARD_WINDOWS,
  type LeaderboardWindow,
  MAX_LEADERBOARD_PAGE,
  MAX_LEADERBOARD_PAGE_SIZE,
  MAX_LIVE_HOURS,
  MAX_MIN_TRADES,
  MAX_TOP_TRADES,
  MAX_WALLETS,
  METRICS,
  type Metric,
  TIMEFRAMES,
  type Timeframe,
  TRADE_SORTS,
  type TradeSort,
  WINDOWS,
  type Window,
} from '../service/index.ts';

/** Epoch-ms fields of a row as naive UTC ISO (null stays null). */
function isoTimes<T extends object>(row: T, keys: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const k of keys) if (typeof out[k] === 'number') out[k] = naiveIso(out[k] as number);
  return out as T;
}

const enumOf = (values: readonly string[]) => ({ type: 'string', enum: [...values] }) as const;
const int = (minimum: number, maximum: number) => ({ type: 'integer', minimum, maximum }) as const;
const userParams = { type: 'object', required: ['user'], properties: { user: addressSchema } } as const;
const wallets = { type: 'array', minItems: 1, maxItems: MAX_WALLETS, items: addressSchema } as const;
const batchCredits = (request: FastifyRequest) =>
  perWalletCredits((request.body as { addresses?: unknown })?.addresses);

export const analyticsUserRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { analytics } = services;

  app.get<{
    Querystring: {
      window?: LeaderboardWindow;
      by?: Metric;
      page?: number;
      limit?: number;
      min_trades?: number;
      hours?: number;
    };
  }>(
    '/leaderboard',
    {
      schema: {
        querystring: {
          type: 'object',
          properties: {
            window: enumOf(LEADERBOARD_WINDOWS),
            by: enumOf(METRICS),
            page: int(1, MAX_LEADERBOARD_PAGE),
            limit: { ...int(1, MAX_LEADERBOARD_PAGE_SIZE), default: DEFAULT_LEADERBOARD_PAGE_SIZE },
            min_trades: int(0, MAX_MIN_TRADES),
            hours: { ...int(1, MAX_LIVE_HOURS), default: DEFAULT_LIVE_HOURS },
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await analytics.leaderboard({
        window: q.window,
        by: q.by,
        page: q.page,
        limit: q.limit,
        minTrades: q.min_trades,
        hours: q.hours,
      });
      return {
        ...dataEnvelope(
          req,
          page.rows.map((r) => isoTimes(r, ['refreshed_at'])),
          { hasMore: page.hasMore, totalCount: page.totalCount },
        ),
        window: page.window,
        by: page.by,
        refreshed_at: page.refreshedAt === null ? null : naiveIso(page.refreshedAt),
      };
    },
  );

  app.get<{ Params: { user: string }; Querystring: TimeWindowQuery & { window?: Window } }>(
    '/:user/performance',
    {
      schema: {
        params: userParams,
        querystring: { type: 'object', properties: { window: enumOf(WINDOWS), ...timeWindowSchema } },
      },
    },
    async (req) => {
      const { startTime, endTime } = timeWindow(req.query);
      const perf = await analytics.performance({ user: req.params.user, window: req.query.window, startTime, endTime });
      return dataEnvelope(req, isoTimes(perf, ['start_time', 'end_time']));
    },
  );

  app.post<{ Body: { addresses: string[]; window?: Window; include_drawdown?: boolean } }>(
    '/batch/performance',
    {
      config: { credits: batchCredits },
      schema: {
        body: {
          type: 'object',
          required: ['addresses'],
          properties: { addresses: wallets, window: enumOf(WINDOWS), include_drawdown: { type: 'boolean' } },
        },
      },
    },
    async (req) => {
      const b = req.body;
      const entries = await analytics.batchPerformance({
        users: b.addresses,
        window: b.window,
        includeDrawdown: b.include_drawdown,
      });
      return dataEnvelope(
        req,
        entries.map((e) => isoTimes(e, ['start_time', 'end_time'])),
      );
    },
  );

  app.get<{ Params: { user: string }; Querystring: { interval?: EquityInterval; window?: Window } }>(
    '/:user/equity-history',
    {
      schema: {
        params: userParams,
        querystring: { type: 'object', properties: { interval: enumOf(EQUITY_INTERVALS), window: enumOf(WINDOWS) } },
      },
    },
    async (req) => {
      const h = await analytics.equityHistory({ user: req.params.user, ...req.query });
      return {
        ...dataEnvelope(
          req,
          h.points.map((p) => isoTimes(p, ['time'])),
        ),
        interval: h.interval,
        window: h.window,
        summary: h.summary,
      };
    },
  );

  app.get<{ Params: { user: string }; Querystring: { window?: Window } }>(
    '/:user/pnl-calendar',
    { schema: { params: userParams, querystring: { type: 'object', properties: { window: enumOf(WINDOWS) } } } },
    async (req) => {
      const c = await analytics.pnlCalendar({ user: req.params.user, window: req.query.window });
      return { ...dataEnvelope(req, c.days), window: c.window, totals: c.totals };
    },
  );

  app.get<{ Params: { user: string }; Querystring: { sort?: TradeSort; limit?: number; include_open?: boolean } }>(
    '/:user/top-trades',
    {
      schema: {
        params: userParams,
        querystring: {
          type: 'object',
          properties: {
            sort: enumOf(TRADE_SORTS),
            limit: { ...int(1, MAX_TOP_TRADES), default: DEFAULT_TOP_TRADES },
            include_open: { type: 'boolean' },
          },
        },
      },
    },
    async (req) => {
      const trades = await analytics.topTrades({
        user: req.params.user,
        sort: req.query.sort,
        limit: req.query.limit,
        includeOpen: req.query.include_open,
      });
      // Open positions carry status `open` and no `closed_at` (spec §2.3).
      return dataEnvelope(
        req,
        trades.map(({ closed_at, ...t }) =>
          isoTimes(t.status === 'open' ? t : { ...t, closed_at }, ['opened_at', 'closed_at']),
        ),
      );
    },
  );
};

export const builderRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.post<{
    Params: { builder: string };
    Body: { addresses: string[]; timeframe?: Timeframe; includeNoBuilder?: boolean };
  }>(
    '/:builder/external-activity',
    {
      config: { credits: batchCredits },
      schema: {
        params: { type: 'object', required: ['builder'], properties: { builder: addressSchema } },
        body: {
          type: 'object',
          required: ['addresses'],
          properties: { addresses: wallets, timeframe: enumOf(TIMEFRAMES), includeNoBuilder: { type: 'boolean' } },
        },
      },
    },
    async (req) => {
      const a = await services.analytics.externalActivity({
        builder: req.params.builder,
        users: req.body.addresses,
        timeframe: req.body.timeframe,
        includeNoBuilder: req.body.includeNoBuilder,
      });
      const times = ['first_fill', 'last_fill'];
      const data = a.data.map((w) => ({
        ...w,
        externalBuilders: w.externalBuilders.map((b) => isoTimes(b, times)),
        noBuilder: w.noBuilder && isoTimes(w.noBuilder, times),
        own: w.own && isoTimes(w.own, times),
      }));
      return { ...dataEnvelope(req, data), builder: a.builder, timeframe: a.timeframe, summary: a.summary };
    },
  );
};
