// /users/* and /builders/* of the analytics domain (spec §4.3): leaderboard, performance (one and batch), equity
// history, PnL calendar, top trades and builder external activity, each a service call shaped into the data envelope
// (times as naive UTC ISO, spec's path-row convention). /users/{user}/account is the accounts domain's, under the
// same prefix: fastify keeps both groups' routes apart by path and method.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { perWalletCredits } from '../../../access/costs.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import {
  BATCH_PERFORMANCE,
  EQUITY_HISTORY,
  EXTERNAL_ACTIVITY,
  LEADERBOARD,
  PERFORMANCE,
  PNL_CALENDAR,
  TOP_TRADES,
} from '../service/index.ts';

/** Epoch-ms fields of a row as naive UTC ISO (null stays null). */
function isoTimes<T extends object>(row: T, keys: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const k of keys) if (typeof out[k] === 'number') out[k] = naiveIso(out[k] as number);
  return out as T;
}

const batchCredits = (request: FastifyRequest) =>
  perWalletCredits((request.body as { addresses?: unknown })?.addresses);

// Each route reads its capability's input definition before the call is charged (kit/route-input.ts).
const leaderboardInput = routeInput(LEADERBOARD);
const performanceInput = routeInput(PERFORMANCE);
const equityHistoryInput = routeInput(EQUITY_HISTORY);
const pnlCalendarInput = routeInput(PNL_CALENDAR);
const topTradesInput = routeInput(TOP_TRADES);
const batchPerformanceInput = routeInput(BATCH_PERFORMANCE, (req) => req.body as Record<string, unknown>);
const externalActivityInput = routeInput(EXTERNAL_ACTIVITY, (req) => ({
  ...(req.body as object),
  builder: (req.params as { builder: string }).builder,
}));

/** A POST body's schema: the definition's fields as the path routes name them, `required` those it needs. */
const bodyOf = (input: { querystring(omit?: never[]): Readonly<Record<string, unknown>> }, required: string[]) => ({
  ...input.querystring(),
  required,
});

export const analyticsUserRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { analytics } = services;

  app.get(
    '/leaderboard',
    { schema: { querystring: leaderboardInput.querystring() }, config: leaderboardInput.config },
    async (req) => {
      const page = await analytics.leaderboard(leaderboardInput.of(req));
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

  app.get(
    '/:user/performance',
    {
      schema: {
        params: performanceInput.params({ user: 'user' }),
        querystring: performanceInput.querystring(['user']),
      },
      config: performanceInput.config,
    },
    async (req) => {
      const perf = await analytics.performance(performanceInput.of(req));
      return dataEnvelope(req, isoTimes(perf, ['start_time', 'end_time']));
    },
  );

  app.post(
    '/batch/performance',
    {
      config: { credits: batchCredits, ...batchPerformanceInput.config },
      schema: { body: bodyOf(batchPerformanceInput, ['addresses']) },
    },
    async (req) => {
      const entries = await analytics.batchPerformance(batchPerformanceInput.of(req));
      return dataEnvelope(
        req,
        entries.map((e) => isoTimes(e, ['start_time', 'end_time'])),
      );
    },
  );

  app.get(
    '/:user/equity-history',
    {
      schema: {
        params: equityHistoryInput.params({ user: 'user' }),
        querystring: equityHistoryInput.querystring(['user']),
      },
      config: equityHistoryInput.config,
    },
    async (req) => {
      const h = await analytics.equityHistory(equityHistoryInput.of(req));
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

  app.get(
    '/:user/pnl-calendar',
    {
      schema: {
        params: pnlCalendarInput.params({ user: 'user' }),
        querystring: pnlCalendarInput.querystring(['user']),
      },
      config: pnlCalendarInput.config,
    },
    async (req) => {
      const c = await analytics.pnlCalendar(pnlCalendarInput.of(req));
      return { ...dataEnvelope(req, c.days), window: c.window, totals: c.totals };
    },
  );

  app.get(
    '/:user/top-trades',
    {
      schema: { params: topTradesInput.params({ user: 'user' }), querystring: topTradesInput.querystring(['user']) },
      config: topTradesInput.config,
    },
    async (req) => {
      const trades = await analytics.topTrades(topTradesInput.of(req));
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
  app.post(
    '/:builder/external-activity',
    {
      config: { credits: batchCredits, ...externalActivityInput.config },
      schema: {
        params: externalActivityInput.params({ builder: 'builder' }),
        body: bodyOf(externalActivityInput, ['addresses']),
      },
    },
    async (req) => {
      const a = await services.analytics.externalActivity(externalActivityInput.of(req));
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
