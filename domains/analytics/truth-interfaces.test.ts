// Issue 30: the analytics answers of the hand-computed history (test/analytics-truth-history.ts) asked over REST,
// GraphQL and MCP are the same, field by field: each interface calls the same service function
// (truth.test.ts holds the REST answers to the hand-worked values).
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilityTools } from '../../mcp/capability-tools.ts';
import { CAROL, DAVE, ERIN, FRANK, OWN, startTruthStack, type TruthStack } from '../../test/analytics-truth-history.ts';
import { ANALYTICS_CAPABILITIES } from './capabilities.ts';
import { analyticsSchema } from './schema/index.ts';

let stack: TruthStack;
beforeAll(async () => {
  stack = await startTruthStack();
});
afterAll(() => stack?.stop());
const rest: TruthStack['rest'] = (...args) => stack.rest(...args);

describe('GraphQL and MCP give the REST answers', () => {
  const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  /** A REST answer as the service gives it: ISO times back to epoch ms. */
  const fromRest = (v: unknown): unknown =>
    typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/.test(v)
      ? Date.parse(`${v}Z`)
      : Array.isArray(v)
        ? v.map(fromRest)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fromRest(x)]))
          : v;
  /** A GraphQL selection of every key of `sample` (camelCased; nested objects and lists of objects followed). */
  const selection = (sample: object): string =>
    Object.entries(sample)
      .map(([k, v]) => {
        const inner = Array.isArray(v) ? v[0] : v;
        return inner && typeof inner === 'object' ? `${camel(k)} { ${selection(inner)} }` : camel(k);
      })
      .join(' ');
  /** A GraphQL answer with REST's snake_case keys. */
  const snake = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(snake)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]),
          )
        : v;
  const gql = async (source: string) => {
    const r = await graphql({ schema: analyticsSchema, source, contextValue: { analytics: stack.analytics } });
    if (r.errors) throw new Error(r.errors.map((e) => e.message).join('; '));
    return JSON.parse(JSON.stringify(r.data));
  };
  const mcp = async (name: string, args: Record<string, unknown>) => {
    const tool = capabilityTools('analytics', ANALYTICS_CAPABILITIES).find((t) => t.name === name);
    if (!tool?.read) throw new Error(`no tool ${name}`);
    const context = { services: stack.services, signal: new AbortController().signal };
    // The arguments read once, as the tool server reads them, then the call.
    return JSON.parse(JSON.stringify(await tool.call(tool.read(args), context)));
  };
  const user = (fields: string) =>
    `{ _entities(representations: [{ __typename: "User", address: "${CAROL}" }]) { ... on User { ${fields} } } }`;

  it('performance', async () => {
    const { data } = await rest('GET', `/users/${CAROL}/performance?window=all`);
    const { address: _, ...fields } = data;
    const g = await gql(user(`performance(window: ALL) { ${selection(fields)} }`));
    expect(snake(g._entities[0].performance)).toEqual(fromRest(fields));
    expect(await mcp('analytics_performance', { user: CAROL, window: 'all' })).toEqual(fromRest(data));
  });

  it('PnL calendar', async () => {
    const body = await rest('GET', `/users/${FRANK}/pnl-calendar?window=7d`);
    const rest7d = { window: body.window, days: body.data, totals: body.totals };
    const g = await gql(
      `{ _entities(representations: [{ __typename: "User", address: "${FRANK}" }]) {
           ... on User { pnlCalendar(window: D7) { ${selection(rest7d)} } } } }`,
    );
    expect(snake(g._entities[0].pnlCalendar)).toEqual(rest7d);
    expect(await mcp('analytics_pnl_calendar', { user: FRANK, window: '7d' })).toEqual({ address: FRANK, ...rest7d });
  });

  it('top trades with open positions', async () => {
    const { data } = await rest('GET', `/users/${CAROL}/top-trades?sort=pnl_abs`);
    // REST leaves closed_at out of an open trade; GraphQL and MCP give it as null.
    const withClose = data.map((t: object) => ({ closed_at: null, ...t }));
    const g = await gql(user(`topTrades(sort: PNL_ABS) { ${selection(withClose[2])} }`));
    expect(snake(g._entities[0].topTrades)).toEqual(fromRest(withClose));
    expect((await mcp('analytics_top_trades', { user: CAROL, sort: 'pnl_abs' })).trades).toEqual(fromRest(withClose));
  });

  it('equity history and the leaderboard', async () => {
    const eq = await rest('GET', `/users/${DAVE}/equity-history?window=all`);
    const g = await gql(
      `{ _entities(representations: [{ __typename: "User", address: "${DAVE}" }]) {
           ... on User { equityHistory(window: ALL) { summary { ${selection(eq.summary)} } } } } }`,
    );
    expect(snake(g._entities[0].equityHistory.summary)).toEqual(eq.summary);
    expect((await mcp('analytics_equity_history', { user: DAVE, window: 'all' })).summary).toEqual(eq.summary);
    const board = await rest('GET', '/users/leaderboard?window=7d&by=pnl');
    const lg = await gql(`{ leaderboard(window: D7, by: PNL) { rows { ${selection(board.data[0])} } } }`);
    expect(snake(lg.leaderboard.rows)).toEqual(fromRest(board.data));
    // Each ranked user's own rank is the row's (User.leaderboardRank, the refresh's numbering); an unranked one null.
    for (const row of board.data as { rank: number; address: string }[]) {
      const own = await gql(
        `{ _entities(representations: [{ __typename: "User", address: "${row.address}" }]) {
             ... on User { leaderboardRank(window: D7, by: PNL) } } }`,
      );
      expect(own._entities[0].leaderboardRank).toBe(row.rank);
    }
    const nobody = await gql(
      `{ _entities(representations: [{ __typename: "User", address: "0x${'9'.repeat(40)}" }]) {
           ... on User { leaderboardRank(window: D7) } } }`,
    );
    expect(nobody._entities[0].leaderboardRank).toBeNull();
  });

  it('batch performance and builder external activity', async () => {
    const batch = await rest('POST', '/users/batch/performance', {
      addresses: [ERIN, DAVE],
      window: 'all',
      include_drawdown: true,
    });
    const { address: _, ...fields } = batch.data[0];
    const g = await gql(
      `{ batchPerformance(addresses: ["${ERIN}", "${DAVE}"], window: ALL, includeDrawdown: true) {
           address performance { ${selection(fields)} } } }`,
    );
    const { address: __, ...dave } = batch.data[1];
    expect(g.batchPerformance.map((e: { performance: object }) => snake(e.performance))).toEqual(
      fromRest([fields, dave]),
    );
    const tool = await mcp('analytics_batch_performance', {
      addresses: [ERIN, DAVE],
      window: 'all',
      includeDrawdown: true,
    });
    expect(tool.data).toEqual(fromRest(batch.data));

    const activity = await rest('POST', `/builders/${OWN}/external-activity`, {
      addresses: [ERIN, DAVE, CAROL],
      timeframe: '24h',
    });
    const sums = 'fills notional coins firstFill lastFill';
    const ga = await gql(
      `{ builder(address: "${OWN}") { externalActivity(addresses: ["${ERIN}", "${DAVE}", "${CAROL}"], timeframe: H24) {
           timeframe summary { wallets flagged ownOnly noBuilderOnly inactive }
           wallets { address flagged externalVolume externalBuilders { builder ${sums} } noBuilder { ${sums} }
                     own { ${sums} } } } } }`,
    );
    const { wallets, ...rest24h } = snake(ga.builder.externalActivity) as { wallets: unknown };
    // The REST keys externalBuilders and noBuilder are the spec's camelCase: compared with both sides snake_cased.
    expect({ ...rest24h, data: wallets }).toEqual(
      snake(fromRest({ timeframe: '24h', summary: activity.summary, data: activity.data })),
    );
    const ma = await mcp('analytics_builder_external_activity', {
      builder: OWN,
      addresses: [ERIN, DAVE, CAROL],
      timeframe: '24h',
    });
    expect(ma).toEqual(fromRest({ builder: OWN, timeframe: '24h', data: activity.data, summary: activity.summary }));
  });
});
