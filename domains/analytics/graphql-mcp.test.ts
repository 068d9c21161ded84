// The analytics domain's GraphQL fields and MCP tools on the hand-written history (test/analytics-history.ts),
// derived by the real job: the PnL agreeing with the accounts domain's fills to the cent, the fields' exact answers
// and input errors, and each tool answering as its route does.
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainServices, StartedServices } from '../../kit/domain.ts';
import { capabilityTools } from '../../mcp/capability-tools.ts';
import { Upstream } from '../../platform/upstream.ts';
import { compatServicesOf } from '../../stack.ts';
import { ALICE, BOB, BUILDER, D2, H } from '../../test/analytics-history.ts';
import { type AnalyticsServices, startAnalyticsServices } from '../../test/analytics-services.ts';
import type { TestDatabase } from '../../test/db.ts';
import { addr } from '../../test/node-files.ts';
import { accountsSchema } from '../accounts/schema/index.ts';
import type { AccountsService } from '../accounts/service/index.ts';
import { ANALYTICS_CAPABILITIES } from './capabilities.ts';
import { analyticsSchema } from './schema/index.ts';
import type { AnalyticsService } from './service/index.ts';

let services: AnalyticsServices;
let db: TestDatabase;
let started: StartedServices;

beforeAll(async () => {
  services = await startAnalyticsServices();
  ({ db, started } = services);
});
afterAll(async () => {
  await services?.close();
});

describe('GraphQL', () => {
  const run = async (schema: typeof analyticsSchema, source: string, contextValue: object) => {
    const r = await graphql({ schema, source, contextValue });
    if (r.errors) throw new Error(r.errors.map((e) => e.message).join('; '));
    return JSON.parse(JSON.stringify(r.data));
  };
  const analytics = () => ({ analytics: (started.services as unknown as { analytics: AnalyticsService }).analytics });

  it('User.pnlCalendar agrees with the accounts domain’s fills to the cent, summed both ways', async () => {
    const accounts = (started.services as unknown as { accounts: AccountsService }).accounts;
    const fills = await run(
      accountsSchema,
      `{ user(address: "${ALICE}") { fills(first: 2000) { edges { node { px sz closedPnl fee } } } } }`,
      { accounts },
    );
    let realized = 0;
    let fees = 0;
    let volume = 0;
    for (const { node } of fills.user.fills.edges) {
      realized += Number(node.closedPnl);
      fees += Number(node.fee);
      volume += Number(node.px) * Number(node.sz);
    }
    const { _entities } = await run(
      analyticsSchema,
      `{ _entities(representations: [{ __typename: "User", address: "${ALICE}" }]) {
           ... on User { pnlCalendar(window: ALL) { totals { realizedPnl fees volume fills } days { netPnl } }
                         roundTrips { realizedPnl fees } } } }`,
      analytics(),
    );
    const [user] = _entities;
    const cents = (n: number) => Math.round(n * 100);
    expect(cents(Number(user.pnlCalendar.totals.realizedPnl))).toBe(cents(realized));
    expect(cents(Number(user.pnlCalendar.totals.fees))).toBe(cents(fees));
    expect(cents(Number(user.pnlCalendar.totals.volume))).toBe(cents(volume));
    expect(user.pnlCalendar.totals.fills).toBe(fills.user.fills.edges.length);
    // And the round trips split the same PnL and fees among them.
    const trips = user.roundTrips as { realizedPnl: string; fees: string }[];
    expect(cents(trips.reduce((s, t) => s + Number(t.realizedPnl), 0))).toBe(cents(realized));
    expect(cents(trips.reduce((s, t) => s + Number(t.fees), 0))).toBe(cents(fees));
  });

  it('leaderboard, User.performance/topTrades/equityHistory, batchPerformance and Builder.externalActivity', async () => {
    const data = await run(
      analyticsSchema,
      `{ leaderboard(window: ALL, by: PNL) { totalCount rows { rank address pnl } }
         batchPerformance(addresses: ["${BOB}", "${ALICE}"], window: ALL) { address performance { netPnl maxDrawdown } }
         builder(address: "${BUILDER}") { externalActivity(addresses: ["${ALICE}"], timeframe: D30) {
           summary { flagged } wallets { externalVolume } } }
         _entities(representations: [{ __typename: "User", address: "${ALICE}" }]) {
           ... on User { performance(window: ALL) { wins losses maxDrawdown }
                         topTrades(sort: LOSS, limit: 1) { coin pnl closedAt }
                         equityHistory(window: ALL, interval: D1) { summary { points } } } } }`,
      analytics(),
    );
    expect(data.leaderboard).toEqual({
      totalCount: 2,
      rows: [
        { rank: 1, address: BOB, pnl: '49.15' },
        { rank: 2, address: ALICE, pnl: '3.02' },
      ],
    });
    expect(data.batchPerformance).toEqual([
      { address: BOB, performance: { netPnl: '49.15', maxDrawdown: null } },
      { address: ALICE, performance: { netPnl: '3.02', maxDrawdown: null } },
    ]);
    expect(data.builder.externalActivity).toEqual({ summary: { flagged: 1 }, wallets: [{ externalVolume: '102' }] });
    expect(data._entities[0]).toEqual({
      performance: { wins: 2, losses: 1, maxDrawdown: '18.59' },
      topTrades: [{ coin: 'ETH', pnl: '-16', closedAt: D2 + 4 * H }],
      equityHistory: { summary: { points: 3 } },
    });
  });

  it('bad arguments are input errors', async () => {
    const r = await graphql({
      schema: analyticsSchema,
      source: `{ batchPerformance(addresses: ["0x1"]) { address } }`,
      contextValue: analytics(),
    });
    expect(r.errors?.[0]?.message).toMatch(/addresses\[0\]/);
    const many = JSON.stringify(Array.from({ length: 501 }, (_, i) => addr(i + 1)));
    const capped = await graphql({
      schema: analyticsSchema,
      source: `{ batchPerformance(addresses: ${many}) { address } }`,
      contextValue: analytics(),
    });
    expect(capped.errors?.[0]?.message).toMatch(/1 to 500/);
  });
});

describe('MCP tools', () => {
  const analyticsTools = capabilityTools('analytics', ANALYTICS_CAPABILITIES);
  /** A tool whose `call` and `credits` take the arguments as sent: read once first, as the tool server reads them. */
  const tool = (name: string) => {
    const found = analyticsTools.find((t) => t.name === name);
    if (!found?.read) throw new Error(`no tool ${name}`);
    const read = found.read;
    return {
      ...found,
      call: (args: Record<string, unknown>, ctx: ReturnType<typeof context>) => found.call(read(args), ctx),
      credits: (args: Record<string, unknown>) => found.credits?.(read(args)),
    };
  };
  const context = () => ({
    services: compatServicesOf(
      started.services as unknown as DomainServices,
      new Upstream('http://127.0.0.1:9'),
      db.pool,
    ),
    signal: new AbortController().signal,
  });

  it('each answers as its route does; the batch tools cost 3 credits per wallet', async () => {
    expect(analyticsTools.every((t) => /^analytics_[a-z_]+$/.test(t.name))).toBe(true);
    const calendar = await tool('analytics_pnl_calendar').call({ user: ALICE, window: 'all' }, context());
    expect(calendar.totals).toMatchObject({ net_pnl: '3.02', profitable_days: 2, losing_days: 1 });
    const batch = tool('analytics_batch_performance');
    expect(batch.credits?.({ addresses: [ALICE, BOB] })).toBe(6);
    const entries = await batch.call({ addresses: [BOB, ALICE], window: 'all' }, context());
    expect((entries.data as { address: string }[]).map((e) => e.address)).toEqual([BOB, ALICE]);
    expect(tool('analytics_builder_external_activity').credits({ builder: BUILDER, addresses: [ALICE] })).toBe(3);
    const board = await tool('analytics_leaderboard').call({ window: 'all', by: 'volume' }, context());
    expect(tool('analytics_leaderboard').summary?.(board)).toBe('2 of 2 accounts by volume');
    const trades = await tool('analytics_top_trades').call({ user: ALICE, sort: 'loss', limit: 1 }, context());
    expect(trades.trades).toEqual([expect.objectContaining({ coin: 'ETH', pnl: '-16' })]);
    for (const name of ['analytics_performance', 'analytics_equity_history']) {
      expect(await tool(name).call({ user: ALICE, window: 'all' }, context())).toMatchObject({ address: ALICE });
    }
  });
});
