// The router over the markets subgraph: a query over HTTP, a subscription over graphql-ws reaching the subgraph
// over graphql-ws, SSE, the operation limits; and the same subgraph under Apollo Gateway.
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountsSchema } from '../domains/accounts/schema/index.ts';
import { marketsSchema } from '../domains/markets/schema/index.ts';
import { graphqlWsClient, postGraphql } from '../test/graphql.ts';
import { wireTrade } from '../test/node-files.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';
import { composeSupergraph } from './compose.ts';
import { startRouter } from './server.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ historyMs: 3_600_000 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const gql = postGraphql;

const MARKET_QUERY = `query ($coin: String!) {
  market(coin: $coin) {
    coin mid
    book(nSigFigs: 3) { bids { px sz n } asks { px sz n } }
    trades(limit: 5) { coin side px sz time tid users { address } }
    candles(interval: _1m, startTime: 0) { t T o h l c v n closed reconciled }
    fast: candles(interval: _5s, startTime: 0) { t closed reconciled }
    assetCtx { funding openInterest markPx }
  }
  tokens { index reserve { tokenName utilization } }
  dexes { name snapshots { coin markPx volume24h trades24h market { mid } } }
  hip3TopMovers(limit: 2) { coin }
}`;

describe('router', () => {
  it('answers a markets query over HTTP', async () => {
    const { status, body } = await gql(stack.urls.router, MARKET_QUERY, { coin: 'BTC' });
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const m = body.data.market;
    expect(m.coin).toBe('BTC');
    expect(Number(m.mid)).toBeGreaterThan(0);
    expect(m.trades).toHaveLength(5);
    expect(typeof m.trades[0].time).toBe('number');
    expect(m.trades[0].users[0].address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(m.candles.length).toBeGreaterThan(10);
    // Stored buckets say what they are (spec §6): 1m ones recomputed from stored trades, 5s ones final unreconciled.
    type Flags = { closed: boolean; reconciled: boolean };
    const closed1m = m.candles.filter((c: Flags) => c.closed);
    expect(closed1m.length).toBeGreaterThan(10);
    expect(closed1m.every((c: Flags) => c.reconciled)).toBe(true);
    const closed5s = m.fast.filter((c: Flags) => c.closed);
    expect(closed5s.length).toBeGreaterThan(10);
    expect(closed5s.every((c: Flags) => !c.reconciled)).toBe(true);
    expect(m.book.bids.length).toBeGreaterThan(0);
    expect(body.data.tokens.map((t: { index: number }) => t.index)).toEqual([0, 150, 197, 268, 360]);
    expect(body.data.dexes).toEqual([{ name: 'xyz', snapshots: expect.any(Array) }]);
    expect(body.data.dexes[0].snapshots[0].coin).toMatch(/^xyz:/);
    expect(body.data.hip3TopMovers).toHaveLength(2);
  });

  it("answers each market's metadata from the node: perps of either dex and spot pairs", async () => {
    const info = '{ kind dex szDecimals maxLeverage marginTableId onlyIsolated isDelisted baseToken quoteToken }';
    const { body } = await gql(
      stack.urls.router,
      `{ btc: market(coin: "BTC") { info ${info} } hip3: market(coin: "xyz:XYZ100") { info ${info} }
         purr: market(coin: "PURR/USDC") { info ${info} } }`,
    );
    expect(body.errors).toBeUndefined();
    const none = { dex: null, maxLeverage: null, marginTableId: null, onlyIsolated: false, isDelisted: false };
    expect(body.data.btc.info).toEqual({
      ...none,
      kind: 'PERP',
      szDecimals: 5,
      maxLeverage: 40,
      marginTableId: 56,
      baseToken: null,
      quoteToken: null,
    });
    expect(body.data.hip3.info).toMatchObject({ kind: 'PERP', dex: 'xyz', szDecimals: 4, maxLeverage: 20 });
    expect(body.data.purr.info).toEqual({
      ...none,
      kind: 'SPOT',
      szDecimals: 0,
      baseToken: 'PURR',
      quoteToken: 'USDC',
    });
  });

  it("gives a perp's context as AssetCtx and a spot pair's as SpotAssetCtx, never one for the other", async () => {
    const ctxs = '{ assetCtx { funding markPx } spotAssetCtx { coin markPx circulatingSupply totalSupply } }';
    const { body } = await gql(
      stack.urls.router,
      `{ eth: market(coin: "ETH") ${ctxs} purr: market(coin: "PURR/USDC") ${ctxs} }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.eth.spotAssetCtx).toBeNull();
    expect(Number(body.data.eth.assetCtx.markPx)).toBeGreaterThan(0);
    expect(body.data.purr.assetCtx).toBeNull();
    expect(body.data.purr.spotAssetCtx).toMatchObject({ coin: 'PURR/USDC', circulatingSupply: expect.any(String) });

    const res = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { activeAssetCtx(coin: "PURR/USDC") { markPx } }' }),
    });
    const text = await res.text(); // refused: the stream ends after its one event
    expect(text).toContain('is a spot pair; subscribe to activeSpotAssetCtx');
  });

  it.each([
    // A capability read through its input definition (kit/input.ts) says the value it got, as /info does.
    ['Market.trades', (n: number) => `{ market(coin: "BTC") { trades(limit: ${n}) { tid } } }`, 1000, true],
    ['hip3TopMovers', (n: number) => `{ hip3TopMovers(limit: ${n}) { coin } }`, 100, true],
    [
      'Token.reserveHistory',
      (n: number) => `{ token(index: 0) { reserveHistory(limit: ${n}) { time } } }`,
      10_000,
      true,
    ],
  ])('takes %s limits 1 to its maximum and refuses 0 and one more', async (_name, query, max, saysGot) => {
    for (const n of [1, max]) expect((await gql(stack.urls.router, query(n))).body.errors).toBeUndefined();
    for (const n of [0, max + 1]) {
      const { body } = await gql(stack.urls.router, query(n));
      expect(body.errors?.[0]).toMatchObject({
        message: `limit: must be an integer from 1 to ${max}${saysGot ? `, got ${n}` : ''}`,
        extensions: { code: 'BAD_USER_INPUT' },
      });
    }
  });

  it('refuses book arguments out of their sets', async () => {
    for (const args of ['nSigFigs: 1', 'nSigFigs: 6', 'nSigFigs: 4, mantissa: 2', 'nSigFigs: 5, mantissa: 3']) {
      const { body } = await gql(stack.urls.router, `{ market(coin: "BTC") { book(${args}) { coin } } }`);
      expect(body.errors?.[0]?.message).toMatch(/^(nSigFigs|mantissa): (must be|only with)/);
    }
  });

  it('delivers trades over graphql-ws, from the subgraph over graphql-ws', async () => {
    const client = graphqlWsClient(stack.urls.router);
    try {
      const batch = await new Promise<{ coin: string; px: string }[]>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no trades within 20 s')), 20_000);
        client.subscribe<{ trades: { coin: string; px: string }[] }>(
          { query: 'subscription { trades(coin: "BTC") { coin px time users { address } } }' },
          {
            next: (r) => {
              clearTimeout(timer);
              if (r.errors) reject(new Error(JSON.stringify(r.errors)));
              else resolve(r.data?.trades ?? []);
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(batch.length).toBeGreaterThan(0);
      expect(batch[0]?.coin).toBe('BTC');
    } finally {
      await client.dispose();
    }
  });

  // Retried: about one CI run in three (quiet machine too) one of the four clients never got the first batch, after
  // every count below said all were subscribed, when the batch went to the markets live bus; the race was not found
  // (issue 39's closing note). The message says which client it was.
  it('shares one execution, and one subgraph subscription, among identical subscriptions', { retry: 2 }, async () => {
    // Up to 30 s: a machine under other load (CI beside benchmarks) took longer than 10 s to pass a batch through.
    const waitFor = async (what: string | (() => string), ok: () => boolean | Promise<boolean>) => {
      for (let i = 0; i < 1200 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 25));
      expect(await ok(), typeof what === 'string' ? what : what()).toBe(true);
    };
    const stats = stack.subscriptions;
    const upstream = async () => (await stats.markets()).streams;
    // The subscriptions of earlier tests end asynchronously after their clients leave.
    const idle = { streams: 0, subscribers: 0 };
    await waitFor('no subscription left', async () => (await stats.router()).streams + (await upstream()) === 0);
    // The trades subscription follows the stored stream: trades of blocks after every stored one, as ingest
    // publishes them on the bus (a subscriber takes a block it has not had yet).
    const { rows } = await stack.db.pool.query<{ b: string | null }>(
      'SELECT max(block_number) AS b FROM markets.trades',
    );
    let block = Number(rows[0]?.b ?? 0) + 1_000_000;
    const publish = (...trades: [string, number][]) => {
      block++;
      stack.bus.publish(
        'trades',
        trades.map(([coin, tid], seq) => {
          const { users, ...trade } = wireTrade(coin, tid);
          return { ...trade, block_number: block, seq, buyer: users[0], seller: users[1], fees: '0' };
        }),
      );
    };
    const clients = Array.from({ length: 4 }, () => graphqlWsClient(stack.urls.router));
    const received: { coin: string; tid: string }[][][] = clients.map(() => []);
    const coins = ['SHARED', 'SHARED', 'SHARED', 'OTHER'];
    const ends = clients.map((client, i) =>
      client.subscribe<{ trades: { coin: string; tid: string }[] }>(
        { query: 'subscription ($coin: String!) { trades(coin: $coin) { coin tid } }', variables: { coin: coins[i] } },
        { next: (r) => received[i]?.push(r.data?.trades ?? []), error: () => {}, complete: () => {} },
      ),
    );
    try {
      await waitFor('4 router subscribers', async () => (await stats.router()).subscribers === 4);
      // Two distinct operations (SHARED, OTHER): two executions in the router, two upstream subscriptions.
      expect((await stats.router()).streams).toBe(2);
      await waitFor('2 upstream subscriptions', async () => (await upstream()) === 2);
      expect(await stats.markets()).toEqual({ streams: 2, subscribers: 2 });
      publish(['SHARED', 1], ['OTHER', 2], ['SHARED', 3]);
      await waitFor(
        () => `every client got its batch (batches per client: ${received.map((r) => r.length).join(', ')})`,
        () => received.every((r) => r.length === 1),
      );
      expect(received.slice(0, 3)).toEqual(
        Array(3).fill([
          [
            { coin: 'SHARED', tid: '1' },
            { coin: 'SHARED', tid: '3' },
          ],
        ]),
      );
      expect(received[3]).toEqual([[{ coin: 'OTHER', tid: '2' }]]);

      // Followers leave one by one; the shared execution ends with the last of them.
      ends[0]?.();
      ends[3]?.();
      await waitFor('OTHER stream ended', async () => (await upstream()) === 1);
      publish(['SHARED', 4]);
      await waitFor('the two left got it', () => received[1]?.length === 2 && received[2]?.length === 2);
      expect(received[0]).toHaveLength(1);
      ends[1]?.();
      ends[2]?.();
      await waitFor('every stream ended', async () => (await upstream()) === 0);
      await waitFor('router idle', async () => (await stats.router()).streams === 0);
      expect(await stats.markets()).toEqual(idle);
    } finally {
      for (const end of ends) end();
      await Promise.all(clients.map((c) => c.dispose()));
    }
  });

  it('merges identical in-flight requests: all answered by pass-through, and cross-subgraph ones to markets only', async () => {
    const counted = <T extends object>(service: T, method: keyof T & string) => {
      const original = service[method] as (...args: unknown[]) => unknown;
      let calls = 0;
      Object.assign(service, {
        [method]: (...args: unknown[]) => {
          calls++;
          return original.apply(service, args);
        },
      });
      return { calls: () => calls, restore: () => Object.assign(service, { [method]: original }) };
    };
    const trades = counted(stack.markets, 'trades');
    const accountState = counted(stack.accounts, 'accountState');
    const at = <T>(n: number, f: () => Promise<T>) => Promise.all(Array.from({ length: n }, f));
    try {
      // 12 at once: at 24, each crossing query reading two traders' account states (several statements each) over
      // the test stack's 20 connections now and then waited past the pool's 3 s on a loaded 2-core CI run.
      const n = 12;
      const markets = await at(n, () => gql(stack.urls.router, '{ market(coin: "BTC") { trades(limit: 5) { px } } }'));
      expect(trades.calls()).toBeLessThan(n);
      // One subgraph alone answers it: pass-through shares the fetch and its bytes, accounts too.
      const user = '0x56fb916e2767e1048b78e3c76532b8b104febc76';
      const accounts = await at(n, () =>
        gql(stack.urls.router, `{ user(address: "${user}") { account { accountValue } } }`),
      );
      expect(accountState.calls()).toBeLessThan(n);
      // Across subgraphs the executor merges markets' fetch (configured on) but not the accounts entity fetches
      // (configured off: per-user answers seldom meet, and merging clones each answer).
      const before = accountState.calls();
      const crossing = await at(n, () =>
        gql(stack.urls.router, '{ market(coin: "BTC") { trades(limit: 1) { users { account { accountValue } } } } }'),
      );
      expect(accountState.calls() - before).toBeGreaterThanOrEqual(n);
      for (const answer of [...markets, ...accounts, ...crossing]) expect(answer.body.errors).toBeUndefined();
    } finally {
      trades.restore();
      accountState.restore();
    }
  });

  it('serves a graphql-ws subscription that comes before any HTTP request', async () => {
    const supergraphSdl = composeSupergraph([{ name: 'markets', url: stack.urls.markets, schema: marketsSchema }]);
    const router = await startRouter({ supergraphSdl, port: 0 });
    const client = graphqlWsClient(router.url);
    try {
      const first = await new Promise<unknown>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no trades within 20 s')), 20_000);
        client.subscribe(
          { query: 'subscription { trades(coin: "ETH") { px } }' },
          {
            next: (r) => {
              clearTimeout(timer);
              resolve(r);
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(first).toMatchObject({ data: { trades: expect.any(Array) } });
    } finally {
      await client.dispose();
      await router.close();
    }
  });

  it('delivers candle frames over SSE', async () => {
    const ac = new AbortController();
    const res = await fetch(stack.urls.router, {
      method: 'POST',
      signal: ac.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        query: 'subscription { candle(coin: "BTC", interval: _5s) { t o c closed reconciled } }',
      }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      if (text.includes('event: next')) break;
    }
    ac.abort();
    const data = JSON.parse(/data: (.*)/.exec(text.slice(text.indexOf('event: next')))?.[1] ?? '{}');
    expect(data.data.candle).toMatchObject({ closed: expect.any(Boolean), reconciled: expect.any(Boolean) });
  });

  it('rejects an operation that is too deep, too long or too costly', async () => {
    const supergraphSdl = composeSupergraph([
      { name: 'markets', url: stack.urls.markets, schema: marketsSchema },
      { name: 'accounts', url: stack.urls.accounts, schema: accountsSchema },
    ]);
    const router = await startRouter({
      supergraphSdl,
      port: 0,
      limits: { maxDepth: 3, maxTokens: 300, maxCost: 5000 },
    });
    try {
      expect((await gql(router.url, '{ allMids { coin mid } }')).body.errors).toBeUndefined();
      const deep = await gql(router.url, '{ market(coin: "BTC") { trades { users { address } } } }');
      expect(deep.body.errors?.[0]?.message).toMatch(/depth limit of 3 exceeded/);
      const aliases = Array.from({ length: 100 }, (_, i) => `m${i}: market(coin: "BTC") { coin }`).join(' ');
      const long = await gql(router.url, `{ ${aliases} }`);
      expect(long.body.errors?.[0]?.message).toMatch(/Token limit of 300 exceeded/);
      const costly = await gql(router.url, '{ markets { trades(limit: 1000) { px } } }');
      expect(costly.body.errors?.[0]?.message).toMatch(/cost .* exceeded/);

      // The same limits hold for subscriptions, over graphql-ws (the refusal comes as the result's errors) and SSE.
      const tooDeep = 'subscription { trades(coin: "BTC") { users { address fills { coin } } } }';
      const client = graphqlWsClient(router.url);
      try {
        const refused = await new Promise<unknown>((resolve) => {
          client.subscribe({ query: tooDeep }, { next: resolve, error: resolve, complete: () => {} });
        });
        expect(JSON.stringify(refused)).toMatch(/depth limit of 3 exceeded/);
      } finally {
        await client.dispose();
      }
      const sse = await fetch(router.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: tooDeep }),
      });
      expect(await sse.text()).toMatch(/depth limit of 3 exceeded/);
    } finally {
      await router.close();
    }
  });

  it('keeps many subgraph requests in flight without a listener warning', async () => {
    // Each in-flight subgraph request listens to an abort signal; were it the executor's one shared signal, the
    // eleventh would have node warn of a "possible memory leak" in the router's log.
    const supergraphSdl = composeSupergraph([{ name: 'markets', url: stack.urls.markets, schema: marketsSchema }]);
    const router = await startRouter({
      supergraphSdl,
      port: 0,
      deduplicateInflightRequests: false,
      passThrough: false,
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          gql(router.url, `{ market(coin: "BTC") { trades(limit: ${i + 1}) { px } } }`),
        ),
      );
      for (const [i, a] of answers.entries()) expect(a.body.data.market.trades).toHaveLength(i + 1);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await router.close();
    }
  });

  it('serves the same subgraph under Apollo Gateway', async () => {
    const supergraphSdl = composeSupergraph([{ name: 'markets', url: stack.urls.markets, schema: marketsSchema }]);
    const server = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl }) });
    const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
    try {
      const { body } = await gql(url, MARKET_QUERY, { coin: 'ETH' });
      expect(body.errors).toBeUndefined();
      expect(body.data.market.coin).toBe('ETH');
      expect(body.data.market.trades).toHaveLength(5);
    } finally {
      await server.stop();
    }
  });
});
