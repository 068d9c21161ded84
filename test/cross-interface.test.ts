// One question, three interfaces: the same capability asked over REST (`POST /info` and the path routes), GraphQL
// (through the router) and MCP (the tool server, with the MCP SDK's client) must give the same answer, field by
// field. Each interface adapts one service function; this test holds them to it. The node stops writing first, so
// every interface sees the same frozen state: books, mids and marks do not move between the three questions.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { mcpClient } from './mcp-client.ts';
import { type FrozenTestStack, startFrozenStack } from './stack.ts';
import {
  camel,
  canonical,
  epochTimes,
  FILL_SELECTION,
  fillRows,
  type Interfaces,
  interfacesOf,
  type Row,
} from './three-interfaces.ts';

let stack: FrozenTestStack;
let key: string;
let mcp: Client;
/** The user with the most fills, and the newest stored fill time. */
let user: string;
let lastFillTime: number;

let ask: Interfaces;
const rest = (body: unknown) => ask.rest(body);
const graphql = <T>(query: string, variables?: Row) => ask.graphql<T>(query, variables);
const tool = <T>(name: string, args: Row) => ask.tool<T>(name, args);

beforeAll(async () => {
  // Frozen data (a loaded history, no ingest): what is stored is all there is, committed.
  stack = await startFrozenStack({ historyMs: 90 * 60_000 });
  key = (await createKey(stack.db.pool, { scope: 'data', rateLimitPerMin: 100_000 })).key;
  mcp = await mcpClient(stack.urls.mcp, key);
  ask = interfacesOf(stack, key, mcp);
  // One market-history sample of the frozen books (the sampler's timer writes one every 10 s; the archive's
  // questions below need one whatever the timing),
  await stack.markets.history.sampleOnce();
  // and no more: a sample written between two interfaces' answers would move `dataCoverage`'s latest.
  await stack.markets.history.stop();
  const top = await stack.db.pool.query<{ user: string; last: string }>(
    `SELECT address AS user, max(time)::text AS last FROM accounts.fills GROUP BY address ORDER BY count(*) DESC LIMIT 1`,
  );
  user = top.rows[0]?.user as string;
  lastFillTime = Number(top.rows[0]?.last);
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await stack?.close();
}, 60_000);

describe('fills', () => {
  for (const aggregateByTime of [false, true]) {
    it(`a user's fills of a window are the same rows in the same order${aggregateByTime ? ', aggregated by time' : ''}`, async () => {
      const endTime = lastFillTime;
      const startTime = endTime - 30 * 60_000;
      const viaRest = (await rest({ type: 'userFillsByTime', user, startTime, endTime, aggregateByTime })) as Row[];
      const viaGraphql = await graphql<{ user: { fills: { edges: { node: Row }[] } } }>(
        `query ($u: String!, $s: Timestamp, $e: Timestamp, $a: Boolean!) {
          user(address: $u) { fills(first: 2000, startTime: $s, endTime: $e, aggregateByTime: $a) {
            edges { node { ${FILL_SELECTION} } } } } }`,
        { u: user, s: startTime, e: endTime, a: aggregateByTime },
      );
      const viaMcp = await tool<{ fills: Row[] }>('accounts_user_fills', { user, startTime, endTime, aggregateByTime });

      expect(viaRest.length).toBeGreaterThan(5);
      const expected = fillRows(viaRest);
      expect(fillRows(viaGraphql.user.fills.edges.map((e) => e.node))).toEqual(expected);
      expect(fillRows(viaMcp.fills)).toEqual(expected);
    });
  }

  it("a user's newest fills (no window) are the same on every interface", async () => {
    const viaRest = (await rest({ type: 'userFills', user })) as Row[];
    const viaGraphql = await graphql<{ user: { fills: { edges: { node: Row }[] } } }>(
      `query ($u: String!) { user(address: $u) { fills(first: 2000) { edges { node { ${FILL_SELECTION} } } } } }`,
      { u: user },
    );
    const viaMcp = await tool<{ fills: Row[] }>('accounts_user_fills', { user });
    expect(viaRest.length).toBeGreaterThan(5);
    const expected = fillRows(viaRest);
    expect(fillRows(viaGraphql.user.fills.edges.map((e) => e.node))).toEqual(expected);
    expect(fillRows(viaMcp.fills)).toEqual(expected);
  });
});

describe("every user's fills", () => {
  it('of a window, newest first: the same fills in the same order (REST compact rows, GraphQL, MCP)', async () => {
    const endTime = lastFillTime;
    const startTime = endTime - 10 * 60_000;
    const viaRest = (await rest({ type: 'allFills', startTime, endTime, order: 'desc', limit: 1000 })) as {
      result: Row[];
    };
    const viaGraphql = await graphql<{ fills: { edges: { node: Row & { user: { address: string } } }[] } }>(
      `query ($s: Timestamp!, $e: Timestamp) { fills(startTime: $s, endTime: $e, first: 1000) {
        edges { node { tid coin px sz user { address } } } } }`,
      { s: startTime, e: endTime },
    );
    const viaMcp = await tool<{ rows: Row[] }>('accounts_fills', { startTime, endTime, order: 'desc', limit: 1000 });
    const rows = (list: Row[]) => list.map((r) => canonical(r, ['tid', 'coin', 'px', 'sz', 'user']));
    expect(viaRest.result.length).toBeGreaterThan(10);
    const expected = rows(viaRest.result);
    expect(rows(viaGraphql.fills.edges.map(({ node }) => ({ ...node, user: node.user.address })))).toEqual(expected);
    expect(rows(viaMcp.rows)).toEqual(expected);
  });
});

describe('funding and ledger', () => {
  // The user with the most funding payments and the one with the most ledger updates (the fill leader may have few).
  const topOf = async (table: string) =>
    (
      await stack.db.pool.query<{ address: string }>(
        `SELECT address FROM accounts.${table} GROUP BY address ORDER BY count(*) DESC LIMIT 1`,
      )
    ).rows[0]?.address as string;

  it("a user's newest funding payments: the same payments in the same order", async () => {
    const who = await topOf('funding_payments');
    const FIELDS = ['time', 'coin', 'usdc', 'szi', 'fundingRate'];
    const res = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ type: 'userFunding', user: who, limit: 20 }),
    });
    const viaRest = ((await res.json()) as { time: number; delta: Row }[]).map((p) => ({ ...p.delta, time: p.time }));
    const viaGraphql = await graphql<{ user: { fundings: { edges: { node: Row }[] } } }>(
      `query ($u: String!) { user(address: $u) { fundings(first: 20) { edges { node { ${FIELDS.join(' ')} } } } } }`,
      { u: who },
    );
    const viaMcp = await tool<{ payments: { time: number; delta: Row }[] }>('accounts_funding_payments', {
      user: who,
      limit: 20,
    });
    const rows = (list: Row[]) => list.map((r) => canonical(r, FIELDS));
    expect(viaRest.length).toBeGreaterThan(0);
    expect(rows(viaGraphql.user.fundings.edges.map((e) => e.node))).toEqual(rows(viaRest));
    expect(rows(viaMcp.payments.map((p) => ({ ...p.delta, time: p.time })))).toEqual(rows(viaRest));
    expect(res.headers.get('x-has-more')).toBeDefined();
  });

  it("a user's newest ledger updates: the same updates in the same order", async () => {
    const who = await topOf('ledger_updates');
    const viaRest = (await rest({ type: 'userNonFundingLedgerUpdates', user: who, limit: 20 })) as Row[];
    const viaGraphql = await graphql<{ user: { ledgerUpdates: { edges: { node: Row }[] } } }>(
      `query ($u: String!) { user(address: $u) { ledgerUpdates(first: 20) { edges { node { time hash delta } } } } }`,
      { u: who },
    );
    const viaMcp = await tool<{ updates: Row[] }>('accounts_ledger_updates', { user: who, limit: 20 });
    const rows = (list: Row[]) => list.map((r) => canonical(r, ['time', 'hash', 'delta']));
    expect(viaRest.length).toBeGreaterThan(0);
    expect(rows(viaGraphql.user.ledgerUpdates.edges.map((e) => e.node))).toEqual(rows(viaRest));
    expect(rows(viaMcp.updates)).toEqual(rows(viaRest));
  });
});

describe('orders and account state', () => {
  // A window: the paged form every interface has (without one, REST lists the orders of the most recent status first
  // and does not page, spec §4.1 rule 1; a GraphQL connection always pages, by oid).
  it("a user's historical orders of a window: the same orders, statuses and times", async () => {
    const endTime = lastFillTime;
    const startTime = endTime - 20 * 60_000;
    const ORDER_FIELDS = ['coin', 'side', 'limitPx', 'sz', 'oid', 'timestamp', 'origSz', 'cloid', 'orderType'];
    const viaRest = (await rest({ type: 'historicalOrders', user, startTime, endTime })) as {
      order: Row;
      status: string;
      statusTimestamp: number;
    }[];
    const viaGraphql = await graphql<{
      user: { orders: { edges: { node: { order: Row; status: string; statusTimestamp: number } }[] } };
    }>(
      `query ($u: String!, $s: Timestamp, $e: Timestamp) { user(address: $u) {
        orders(first: 2000, startTime: $s, endTime: $e) { edges { node {
        status statusTimestamp order { ${ORDER_FIELDS.join(' ')} } } } } } }`,
      { u: user, s: startTime, e: endTime },
    );
    const viaMcp = await tool<{ orders: { order: Row; status: string; statusTimestamp: number }[] }>(
      'accounts_historical_orders',
      { user, startTime, endTime },
    );
    const rows = (list: { order: Row; status: string; statusTimestamp: number }[]) =>
      list.map((o) => ({
        ...canonical(o.order, ORDER_FIELDS),
        status: o.status,
        statusTimestamp: String(o.statusTimestamp),
      }));
    expect(viaRest.length).toBeGreaterThan(0);
    const expected = rows(viaRest);
    expect(rows(viaGraphql.user.orders.edges.map((e) => e.node))).toEqual(expected);
    expect(rows(viaMcp.orders)).toEqual(expected);
  });

  // The indexed account state (spec §2.3: `/users/{user}/account`); `clearinghouseState` is the node's, relayed.
  it("a user's account state: the same positions, values and marks", async () => {
    const POSITION_FIELDS = ['coin', 'szi', 'side', 'leverage', 'leverageType', 'entryPx', 'markPx', 'positionValue'];
    const more = ['unrealizedPnl', 'roe', 'funding', 'openedAt'];
    // (`asOf` is when each answer was computed.)
    const ACCOUNT_FIELDS = ['accountValue', 'cash', 'positionValue', 'unrealizedPnl', 'accountLeverage'];
    const res = await fetch(`${stack.urls.compat}/users/${user}/account`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const viaRest = camel(((await res.json()) as { data: Row }).data) as Row & { positions: Row[] };
    const viaGraphql = await graphql<{ user: { account: Row & { positions: Row[] } } }>(
      `query ($u: String!) { user(address: $u) { account { ${ACCOUNT_FIELDS.join(' ')} perpAccountEmpty
        positions { ${[...POSITION_FIELDS, ...more].join(' ')} } } } }`,
      { u: user },
    );
    const viaMcp = await tool<{ account: Row & { positions: Row[] } }>('accounts_account_state', { user });
    // Times: naive UTC ISO 8601 on the path routes (spec §2.3), epoch ms in GraphQL and MCP.
    const ms = (row: Row, fields: string[]) => canonical(epochTimes(row) as Row, fields);
    const state = (a: Row & { positions: Row[] }) => ({
      ...ms(a, [...ACCOUNT_FIELDS, 'perpAccountEmpty']),
      positions: a.positions.map((p) => ms(p, [...POSITION_FIELDS, ...more])),
    });
    expect(viaRest.positions.length).toBeGreaterThan(0);
    const expected = state(viaRest);
    expect(state(viaGraphql.user.account)).toEqual(expected);
    expect(state(camel(viaMcp.account) as Row & { positions: Row[] })).toEqual(expected);
  });
});

describe('markets', () => {
  it('candles of a window', async () => {
    const CANDLE_FIELDS = ['t', 'T', 'o', 'h', 'l', 'c', 'v', 'n'];
    const endTime = lastFillTime;
    const startTime = endTime - 60 * 60_000;
    const viaRest = (await rest({
      type: 'candleSnapshot',
      req: { coin: 'BTC', interval: '5m', startTime, endTime },
    })) as Row[];
    const viaGraphql = await graphql<{ market: { candles: Row[] } }>(
      `query ($s: Timestamp!, $e: Timestamp) { market(coin: "BTC") { candles(interval: _5m, startTime: $s, endTime: $e) {
        ${CANDLE_FIELDS.join(' ')} } } }`,
      { s: startTime, e: endTime },
    );
    const viaMcp = await tool<{ candles: Row[] }>('markets_candles', {
      coin: 'BTC',
      interval: '5m',
      startTime,
      endTime,
    });
    expect(viaRest.length).toBeGreaterThan(5);
    const expected = viaRest.map((c) => canonical(c, CANDLE_FIELDS));
    expect(viaGraphql.market.candles.map((c) => canonical(c, CANDLE_FIELDS))).toEqual(expected);
    expect(viaMcp.candles.map((c) => canonical(c, CANDLE_FIELDS))).toEqual(expected);
  });

  it('a book, whole and aggregated', async () => {
    for (const nSigFigs of [undefined, 3]) {
      const viaRest = (await rest({ type: 'l2Book', coin: 'ETH', nSigFigs })) as { levels: Row[][] };
      const viaGraphql = await graphql<{ market: { book: { time: number; bids: Row[]; asks: Row[] } } }>(
        `query ($n: Int) { market(coin: "ETH") { book(nSigFigs: $n) { time bids { px sz n } asks { px sz n } } } }`,
        { n: nSigFigs ?? null },
      );
      const viaMcp = await tool<{ book: { levels: Row[][] } }>('markets_l2_book', { coin: 'ETH', nSigFigs });
      const levels = (l: Row[][]) => l.map((side) => side.map((x) => canonical(x, ['px', 'sz', 'n'])));
      expect(viaRest.levels[0]?.length).toBeGreaterThan(0);
      const { bids, asks } = viaGraphql.market.book;
      expect(levels([bids, asks])).toEqual(levels(viaRest.levels));
      expect(levels(viaMcp.book.levels)).toEqual(levels(viaRest.levels));
    }
  });
});

describe('what a user holds now', () => {
  it('open orders and spot balances (the node relayed) and borrow/lend state (indexed)', async () => {
    const viaGraphql = await graphql<{
      user: { openOrders: Row[]; spotBalances: Row[]; borrowLendState: Row & { positions: Row[] } };
    }>(
      `query ($u: String!) { user(address: $u) {
        openOrders { coin side limitPx sz oid timestamp origSz cloid orderType }
        spotBalances { coin token total hold entryNtl }
        borrowLendState { health healthFactor positions { token supply { basis value } borrow { basis value } } } } }`,
      { u: user },
    );
    const ORDER = ['coin', 'side', 'limitPx', 'sz', 'oid', 'timestamp', 'origSz', 'cloid', 'orderType'];
    const orders = (rows: Row[]) => rows.map((r) => canonical(r, ORDER));
    const restOrders = (await rest({ type: 'frontendOpenOrders', user })) as Row[];
    expect(restOrders.length).toBeGreaterThan(0);
    expect(orders(viaGraphql.user.openOrders)).toEqual(orders(restOrders));
    const mcpOrders = await tool<{ frontendOpenOrders: Row[] }>('accounts_open_orders', { user });
    expect(orders(mcpOrders.frontendOpenOrders)).toEqual(orders(restOrders));

    const BALANCE = ['coin', 'token', 'total', 'hold', 'entryNtl'];
    const restSpot = (await rest({ type: 'spotClearinghouseState', user })) as { balances: Row[] };
    expect(viaGraphql.user.spotBalances.map((b) => canonical(b, BALANCE))).toEqual(
      restSpot.balances.map((b) => canonical(b, BALANCE)),
    );

    const restLend = (await rest({ type: 'borrowLendUserState', user })) as {
      tokenToState: [number, { supply: Row; borrow: Row }][];
      health: string;
      healthFactor: string | null;
    };
    const mcpLend = await tool<{ state: typeof restLend }>('accounts_borrow_lend_state', { user });
    const lend = (s: typeof restLend) => ({
      health: s.health,
      healthFactor: s.healthFactor,
      positions: s.tokenToState.map(([token, { supply, borrow }]) => ({ token, supply, borrow })),
    });
    const { borrowLendState } = viaGraphql.user;
    expect({ ...borrowLendState, healthFactor: borrowLendState.healthFactor ?? null }).toEqual(lend(restLend));
    expect(lend(mcpLend.state)).toEqual(lend(restLend));
  });
});

describe('coverage and the market-history archive', () => {
  it('dataCoverage, availableDates, a series of samples and the liquidity report', async () => {
    // Coverage: the same datasets, starts and latest events (the delay moves with the clock).
    const restCoverage = (await rest({ type: 'dataCoverage' })) as {
      result: { region: string; datasets: Record<string, { start: number | null; latest: number | null }> };
    };
    const gqlCoverage = await graphql<{
      dataCoverage: { region: string; datasets: { name: string; start: number | null; latest: number | null }[] };
    }>('{ dataCoverage { region datasets { name start latest } } }');
    const mcpCoverage = await tool<{ region: string; datasets: Record<string, Row> }>('markets_data_coverage', {});
    const startAndLatest = (d: Record<string, Row>) =>
      Object.fromEntries(Object.entries(d).map(([name, c]) => [name, { start: c.start, latest: c.latest }]));
    const expected = startAndLatest(restCoverage.result.datasets);
    expect(Object.keys(expected).length).toBeGreaterThan(5);
    expect(
      startAndLatest(Object.fromEntries(gqlCoverage.dataCoverage.datasets.map(({ name, ...c }) => [name, c]))),
    ).toEqual(expected);
    expect(startAndLatest(mcpCoverage.datasets)).toEqual(expected);
    expect(gqlCoverage.dataCoverage.region).toBe(restCoverage.result.region);

    // The archive: the sample taken of the frozen books (beforeAll), and any the sampler's timer wrote.
    const restDates = (await rest({ type: 'availableDates', coin: 'BTC' })) as { result: Record<string, Row> };
    const gqlDates = await graphql<{ availableDates: { coin: string; dataset: string; dates: string[] }[] }>(
      '{ availableDates(coin: "BTC") { coin dataset dates } }',
    );
    const byDataset = Object.fromEntries(gqlDates.availableDates.map((d) => [d.dataset, d.dates]));
    expect(byDataset).toEqual(restDates.result.BTC);
    expect(byDataset.bbo?.length).toBeGreaterThan(0);

    const endTime = Date.now();
    const page = await fetch(`${stack.urls.compat}/market/bbo/BTC?limit=5&end_time=${endTime}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const restBbo = (await page.json()) as { data: Row[] };
    const gqlBbo = await graphql<{ market: { history: { samples: Row[] } } }>(
      `query ($e: Timestamp) { market(coin: "BTC") { history(series: bbo, limit: 5, endTime: $e) { samples } } }`,
      { e: endTime },
    );
    const mcpBbo = await tool<{ rows: Row[] }>('markets_history', { series: 'bbo', coin: 'BTC', limit: 5, endTime });
    expect(restBbo.data.length).toBeGreaterThan(0);
    const bboTimes = (rows: Row[]) => rows.map((r) => [r.bid_px, r.ask_px]);
    expect(bboTimes(gqlBbo.market.history.samples)).toEqual(bboTimes(restBbo.data));
    expect(bboTimes(mcpBbo.rows)).toEqual(bboTimes(restBbo.data));

    const report = await fetch(`${stack.urls.compat}/market/liquidity-report/BTC?end_time=${endTime}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const restReport = (await report.json()) as { data: Row };
    const gqlReport = await graphql<{ market: { liquidityReport: Row } }>(
      `query ($e: Timestamp) { market(coin: "BTC") { liquidityReport(endTime: $e) } }`,
      { e: endTime },
    );
    const mcpReport = await tool<{ report: Row }>('markets_liquidity_report', { coin: 'BTC', endTime });
    expect((restReport.data as { samples: number }).samples).toBeGreaterThan(0);
    const expectedReport = epochTimes(camel(restReport.data));
    expect(camel(gqlReport.market.liquidityReport)).toEqual(expectedReport);
    expect(camel(mcpReport.report)).toEqual(expectedReport);
  });
});

describe('the graph links what a front end follows', () => {
  it('an outcome coin to its outcome, a HIP-3 coin to its dex, EVM records and liquidations to accounts', async () => {
    const { rows: outcomeFills } = await stack.db.pool.query<{ coin: string; outcome_id: number }>(
      'SELECT coin, outcome_id FROM hip4.fills LIMIT 1',
    );
    const hip4 = outcomeFills[0];
    expect(hip4).toBeDefined();
    const n = Number(hip4?.coin.slice(1));
    const links = await graphql<{
      outcomeMarket: { outcome: { outcomeId: number } | null; outcomeSide: number | null };
      plainMarket: { outcome: unknown; outcomeSide: unknown; dex: unknown };
      hip3Market: { dex: { name: string; snapshots: { coin: string }[] } | null };
      evmTransactions: { nodes: { to: string | null; toAccount: { address: string } | null }[] };
      venues: { deployer: { address: string; account: { address: string } } }[];
    }>(
      `query ($coin: String!) {
        outcomeMarket: market(coin: $coin) { outcome { outcomeId } outcomeSide }
        plainMarket: market(coin: "BTC") { outcome { outcomeId } outcomeSide dex { name } }
        hip3Market: market(coin: "xyz:GOLD") { dex { name snapshots { coin } } }
        evmTransactions(limit: 5) { nodes { to toAccount { address } } }
        venues { deployer { address account { address } } }
      }`,
      { coin: hip4?.coin },
    );
    // `#<10·o+s>` trades side s of outcome o (the spec's coin naming, worked by hand from the stored coin).
    expect(links.outcomeMarket).toEqual({ outcome: { outcomeId: Math.floor(n / 10) }, outcomeSide: n % 10 });
    expect(hip4?.outcome_id).toBe(Math.floor(n / 10));
    expect(links.plainMarket).toEqual({ outcome: null, outcomeSide: null, dex: null });
    expect(links.hip3Market.dex?.name).toBe('xyz');
    expect(links.hip3Market.dex?.snapshots.map((s) => s.coin)).toContain('xyz:GOLD');
    for (const tx of links.evmTransactions.nodes) {
      expect(tx.toAccount).toEqual(tx.to ? { address: tx.to.toLowerCase() } : null);
    }
    for (const v of links.venues) expect(v.deployer.account.address).toBe(v.deployer.address);

    // Followed into another subgraph: an EVM recipient's fills come from accounts.
    const recipient = links.evmTransactions.nodes.find((tx) => tx.to)?.to;
    if (recipient) {
      const followed = await graphql<{ evmTransactions: { nodes: { toAccount: { fills: { edges: unknown[] } } }[] } }>(
        '{ evmTransactions(limit: 1) { nodes { toAccount { fills(first: 1) { edges { cursor } } } } } }',
      );
      expect(Array.isArray(followed.evmTransactions.nodes[0]?.toAccount.fills.edges)).toBe(true);
    }

    // A builder to the fills routed through it and what it earned (the accounts subgraph extends Builder).
    const { rows: builders } = await stack.db.pool.query<{ builder: string; n: number; fees: string }>(
      `SELECT builder, count(*)::int AS n, sum(builder_fee)::text AS fees FROM accounts.fills
       WHERE builder IS NOT NULL GROUP BY builder ORDER BY count(*) DESC LIMIT 1`,
    );
    const top = builders[0];
    if (top) {
      const routed = await graphql<{
        builder: { fills: { edges: { node: { tid: string; user: { address: string } } }[] }; revenue: Row };
      }>(
        `query ($b: String!) { builder(address: $b) {
          fills(first: 5) { edges { node { tid user { address } } } } revenue { fills builderFees } } }`,
        { b: top.builder },
      );
      expect(routed.builder.revenue).toEqual({ fills: top.n, builderFees: top.fees });
      const tids = routed.builder.fills.edges.map((e) => e.node.tid);
      expect(tids.length).toBe(Math.min(5, top.n));
      const { rows: owners } = await stack.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM accounts.fills WHERE builder = $1 AND tid = ANY($2::bigint[])',
        [top.builder, tids],
      );
      expect(owners[0]?.n).toBeGreaterThanOrEqual(tids.length);
    }

    const liquidations = await graphql<{
      user: {
        liquidations: {
          liquidatedUser: string;
          liquidator: string;
          liquidatedAccount: { address: string };
          liquidatorAccount: { address: string };
        }[];
      };
    }>(
      `query ($u: String!) { user(address: $u) { liquidations(limit: 20) {
        liquidatedUser liquidator liquidatedAccount { address } liquidatorAccount { address } } } }`,
      { u: user },
    );
    for (const l of liquidations.user.liquidations) {
      expect(l.liquidatedAccount.address).toBe(l.liquidatedUser);
      expect(l.liquidatorAccount.address).toBe(l.liquidator);
    }
  });
});

describe('mids', () => {
  it('the same coins and prices, with and without a HIP-3 dex', async () => {
    for (const dex of [undefined, 'xyz']) {
      const viaRest = (await rest({ type: 'allMids', ...(dex ? { dex } : {}) })) as Record<string, string>;
      const viaGraphql = await graphql<{ allMids: { coin: string; mid: string }[] }>(
        'query ($d: String) { allMids(dex: $d) { coin mid } }',
        { d: dex ?? null },
      );
      const viaMcp = await tool<{ mids: Record<string, string> }>('markets_all_mids', dex ? { dex } : {});
      expect(Object.keys(viaRest).length).toBeGreaterThan(2);
      expect(Object.fromEntries(viaGraphql.allMids.map((m) => [m.coin, m.mid]))).toEqual(viaRest);
      expect(viaMcp.mids).toEqual(viaRest);
    }
  });
});

describe('HIP-4 and EVM lists', () => {
  it('HIP-4 fills and EVM transactions: the same rows in the same order, money as the same decimal text', async () => {
    const authed = { headers: { authorization: `Bearer ${key}` } };
    const restFills = (await (await fetch(`${stack.urls.compat}/hip4/fills?limit=20`, authed)).json()) as Row[];
    const gqlFills = await graphql<{ hip4Fills: Row[] }>(
      '{ hip4Fills(limit: 20) { coin outcomeId px sz side time hash } }',
    );
    const mcpFills = await tool<{ fills: Row[] }>('hip4_fills', { limit: 20 });
    const FILL = ['coin', 'outcomeId', 'px', 'sz', 'side', 'time', 'hash'];
    // The path route's `time_ms` (camel: `timeMs`) is GraphQL's `time`.
    const fills = (rows: Row[]) => rows.map((r) => canonical({ ...r, time: r.time ?? r.timeMs }, FILL));
    const asCamel = (rows: Row[]) => rows.map((r) => camel(r) as Row);
    expect(restFills.length).toBeGreaterThan(0);
    expect(fills(gqlFills.hip4Fills)).toEqual(fills(asCamel(restFills)));
    expect(fills(asCamel(mcpFills.fills))).toEqual(fills(asCamel(restFills)));

    const restTxs = (await (await fetch(`${stack.urls.compat}/evm/transactions?limit=10`, authed)).json()) as {
      data: Row[];
    };
    const gqlTxs = await graphql<{ evmTransactions: { nodes: Row[] } }>(
      '{ evmTransactions(limit: 10) { nodes { hash blockNumber to } } }',
    );
    const mcpTxs = await tool<{ rows: Row[] }>('evm_transactions', { limit: 10 });
    // The path route's record is the spec's (`tx_hash`), GraphQL's Transaction says `hash`.
    const TX = ['hash', 'blockNumber'];
    const txs = (rows: Row[]) => rows.map((r) => canonical({ hash: r.tx_hash, ...(camel(r) as Row) }, TX));
    expect(restTxs.data.length).toBeGreaterThan(0);
    expect(txs(gqlTxs.evmTransactions.nodes)).toEqual(txs(restTxs.data));
    expect(txs(mcpTxs.rows)).toEqual(txs(restTxs.data));
  });
});

describe('bad input to the fields the graph gained', () => {
  it('is a BAD_USER_INPUT naming the argument and its rule', async () => {
    const refused = async (query: string) => {
      const res = await fetch(stack.urls.router, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query }),
      });
      const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
      expect(body.errors?.[0]?.extensions?.code, query).toBe('BAD_USER_INPUT');
      return body.errors?.[0]?.message;
    };
    expect(await refused('{ fills(startTime: 0, endTime: 86400001) { edges { cursor } } }')).toMatch(
      /^endTime: must be at most 86400000 ms/,
    );
    expect(await refused('{ market(coin: "BTC") { history(series: bbo, limit: 1001) { hasMore } } }')).toBe(
      'limit: must be an integer from 1 to 1000, got 1001',
    );
    expect(await refused('{ availableDates(coin: "B\\u0000TC") { dates } }')).toMatch(/^coin: must not contain a NUL/);
    expect(await refused('{ builder(address: "0x1") { revenue { fills } } }')).toMatch(/^address: /);
  });
});
