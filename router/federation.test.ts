// The accounts subgraph beside markets behind the router: a query crossing from a market's trades to its traders'
// fills (markets' Trade.users resolved as accounts' User), a user's fills over two pages, orders and account state,
// input errors, and the userFills and liquidations subscriptions over graphql-ws.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphqlAnswer, graphqlWsClient, postGraphql } from '../test/graphql.ts';
import { type FrozenTestStack, startFrozenStack } from '../test/stack.ts';

let stack: FrozenTestStack;
let active: string;
beforeAll(async () => {
  stack = await startFrozenStack({ historyMs: 3_600_000 });
  // The account with the most fills in the last stored minute (a market maker): it fills every few blocks.
  const { rows } = await stack.db.pool.query<{ address: string }>(
    `SELECT address FROM accounts.fills WHERE time > (SELECT max(time) - 60000 FROM accounts.fills)
     GROUP BY address ORDER BY count(*) DESC LIMIT 1`,
  );
  active = rows[0]?.address as string;
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

type Answer = GraphqlAnswer;

async function gql(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  return (await postGraphql(stack.urls.router, query, variables)).body;
}

/** The first frame of a subscription through the router over graphql-ws (data or errors). */
async function firstFrame(client: Client, query: string, variables: Record<string, unknown>): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no frame within 20 s')), 20_000);
    const done = (a: Answer) => {
      clearTimeout(timer);
      resolve(a);
    };
    client.subscribe<unknown>(
      { query, variables },
      {
        next: (r) => done(r as Answer),
        error: (err) => done({ errors: Array.isArray(err) ? err : [{ message: String(err) }] }),
        complete: () => {},
      },
    );
  });
}

const FILLS_PAGE = `query ($address: String!, $first: Int!, $after: String, $endTime: Timestamp) {
  user(address: $address) {
    address
    fills(first: $first, after: $after, endTime: $endTime) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { cursor node { coin px sz side time tid oid startPosition crossed fee liquidation { method } orderType } }
    }
  }
}`;

describe('accounts through the router', () => {
  it("goes from a market's trades to the traders' recent fills", async () => {
    const { data, errors } = await gql(`{
      market(coin: "BTC") { trades(limit: 3) { users { address fills(first: 5) { edges { node { coin px time } } } } } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.market.trades).toHaveLength(3);
    for (const trade of data.market.trades) {
      for (const user of trade.users) {
        expect(user.address).toMatch(/^0x[0-9a-f]{40}$/);
        // Every trader of a stored trade has stored fills.
        expect(user.fills.edges.length).toBeGreaterThan(0);
        expect(user.fills.edges[0].node).toMatchObject({ coin: expect.any(String), px: expect.any(String) });
        expect(typeof user.fills.edges[0].node.time).toBe('number');
      }
    }
  });

  it("pages a user's fills without losing or repeating one", async () => {
    const endTime = Date.now() - 1000;
    const vars = { address: active.toUpperCase().replace('0X', '0x'), endTime };
    const one = await gql(FILLS_PAGE, { ...vars, first: 40 });
    const p1 = await gql(FILLS_PAGE, { ...vars, first: 20 });
    expect(p1.errors).toBeUndefined();
    expect(p1.data.user.address).toBe(active);
    const page1 = p1.data.user.fills;
    expect(page1.pageInfo.hasNextPage).toBe(true);
    expect(page1.totalCount).toBeGreaterThan(40);
    const p2 = await gql(FILLS_PAGE, { ...vars, first: 20, after: page1.pageInfo.endCursor });
    expect(p2.errors).toBeUndefined();
    const tids = (edges: { node: { tid: string } }[]) => edges.map((e) => e.node.tid);
    const paged = [...tids(page1.edges), ...tids(p2.data.user.fills.edges)];
    expect(paged).toHaveLength(40);
    expect(new Set(paged).size).toBe(40);
    expect(paged).toEqual(tids(one.data.user.fills.edges));
    const node = page1.edges[0].node;
    expect(page1.edges[0].cursor).toMatch(new RegExp(`^${node.time}:\\d+:\\d+:${node.tid}$`));
    expect(node).toMatchObject({ startPosition: expect.stringMatching(/^-?\d/), crossed: expect.any(Boolean) });
    const times = [...page1.edges, ...p2.data.user.fills.edges].map((e: { node: { time: number } }) => e.node.time);
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("pages a user's orders, with each order's status history, and values the account", async () => {
    const query = `query ($address: String!, $after: String) {
      user(address: $address) {
        orders(first: 3, after: $after) {
          pageInfo { hasNextPage endCursor }
          edges { node { status statusTimestamp order { oid coin side limitPx orderType market { coin } }
                         statusHistory { status statusTimestamp } } }
        }
        account { asOf accountValue cash perpAccountEmpty positions { coin szi entryPx } }
      }
    }`;
    const first = await gql(query, { address: active });
    expect(first.errors).toBeUndefined();
    const orders = first.data.user.orders;
    expect(orders.edges.length).toBeGreaterThanOrEqual(3);
    expect(orders.pageInfo.hasNextPage).toBe(true);
    for (const { node } of orders.edges) {
      expect(node.statusHistory.map((s: { status: string }) => s.status)).toContain(node.status);
      expect(node.order.market.coin).toBe(node.order.coin);
    }
    const oids = orders.edges.map((e: { node: { order: { oid: string } } }) => BigInt(e.node.order.oid));
    const next = await gql(query, { address: active, after: orders.pageInfo.endCursor });
    expect(next.errors).toBeUndefined();
    const later = next.data.user.orders.edges.map((e: { node: { order: { oid: string } } }) =>
      BigInt(e.node.order.oid),
    );
    expect(later.every((oid: bigint) => oids.every((o: bigint) => oid < o))).toBe(true);
    const account = first.data.user.account;
    expect(typeof account.asOf).toBe('number');
    expect(account.accountValue).toMatch(/^-?\d+(\.\d+)?$/);
  });

  it('answers a bad address or cursor with BAD_USER_INPUT', async () => {
    const bad = await gql('{ user(address: "0x123") { address } }');
    expect(bad.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).toMatch(/^address: /);
    const cursor = await gql(FILLS_PAGE, { address: active, first: 5, after: 'yesterday' });
    expect(cursor.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(cursor.errors?.[0]?.message).toMatch(/^after: /);
  });

  it.each([
    ['fills', 'first', 1, 2000],
    ['orders', 'first', 1, 2000],
    ['fundings', 'first', 1, 500],
    ['ledgerUpdates', 'first', 1, 500],
    ['liquidations', 'limit', 1, 500],
  ])('takes User.%s(%s) from %i to %i and refuses one past either edge', async (field, arg, min, max) => {
    const selection = arg === 'first' ? '{ edges { cursor } }' : '{ __typename }';
    const ask = (n: number) => gql(`{ user(address: "${active}") { ${field}(${arg}: ${n}) ${selection} } }`);
    for (const n of [min, max]) expect((await ask(n)).errors).toBeUndefined();
    for (const n of [min - 1, max + 1]) {
      const answer = await ask(n);
      expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(answer.errors?.[0]?.message).toMatch(new RegExp(`^${arg}: `));
    }
  });

  it('masks an unexpected failure in a resolver, on the subgraph and through the router', async () => {
    const accountState = stack.accounts.accountState;
    stack.accounts.accountState = async () => {
      throw new Error('connection lost: password=hunter2');
    };
    try {
      const query = `{ user(address: "${active}") { account { accountValue } } }`;
      const direct = await fetch(stack.urls.accounts, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      const answers = [(await direct.json()) as Answer, await gql(query)];
      for (const answer of answers) {
        expect(answer.errors?.[0]?.message).toBe('Unexpected error.');
        expect(JSON.stringify(answer)).not.toContain('hunter2');
      }
    } finally {
      stack.accounts.accountState = accountState;
    }
  });

  describe('over graphql-ws', () => {
    let client: Client;
    beforeAll(() => {
      client = graphqlWsClient(stack.urls.router);
    });
    afterAll(async () => {
      await client?.dispose();
    });

    it("delivers a user's fills as they happen", async () => {
      // The simulated user trades every few blocks; a fill published on the bus as well keeps the test from
      // depending on the simulation's pace on a loaded machine.
      const [sample] = (await stack.db.pool.query('SELECT * FROM accounts.fills WHERE address = $1 LIMIT 1', [active]))
        .rows;
      // Fills of new blocks, after every stored one (a live block is always newer than the stored ones).
      const { rows: top } = await stack.db.pool.query<{ b: string }>(
        'SELECT max(block_number) AS b FROM accounts.fills',
      );
      let blockNumber = Number(top[0]?.b) + 1_000_000;
      const ticker = setInterval(() => {
        const fill = {
          ...sample,
          px: String(sample.px),
          time: Date.now(),
          tid: Date.now(),
          block_number: ++blockNumber,
        };
        stack.bus.publish('fills', [fill]);
      }, 250);
      const frame = await firstFrame(
        client,
        'subscription ($user: String!) { userFills(user: $user) { coin px time tid market { coin } } }',
        { user: active },
      ).finally(() => clearInterval(ticker));
      expect(frame.errors).toBeUndefined();
      expect(frame.data.userFills.length).toBeGreaterThan(0);
      expect(frame.data.userFills[0]).toMatchObject({ coin: expect.any(String), tid: expect.any(String) });
      expect(frame.data.userFills[0].time).toBeGreaterThan(Date.now() - 60_000);
    });

    it("resumes a user's fills after a cursor: the fills missed while away, then live ones", async () => {
      const [sample] = (await stack.db.pool.query('SELECT * FROM accounts.fills WHERE address = $1 LIMIT 1', [active]))
        .rows;
      let tid = Date.now() * 10;
      // Each fill stored, then published, as ingest does (a resume reads the missed ones from the store), in blocks of
      // its own after every stored one.
      const { rows: top } = await stack.db.pool.query<{ b: string }>(
        'SELECT max(block_number) AS b FROM accounts.fills',
      );
      let blockNumber = Number(top[0]?.b) + 2_000_000; // after the blocks the test before published
      // The simulated user trades meanwhile too: its own fills may come between; what is checked is this test's.
      const published = new Set<string>();
      const publish = async () => {
        const fill = { ...sample, px: String(sample.px), time: Date.now(), tid: ++tid, block_number: ++blockNumber };
        published.add(String(tid));
        await stack.db.pool.query(
          'INSERT INTO accounts.fills SELECT * FROM json_populate_record(NULL::accounts.fills, $1)',
          [JSON.stringify(fill)],
        );
        stack.bus.publish('fills', [fill]);
      };
      const query =
        'subscription ($user: String!, $after: String) { userFills(user: $user, after: $after) { tid cursor } }';
      const first = await new Promise<{ tid: string; cursor: string }>((resolve, reject) => {
        const ticker = setInterval(() => void publish(), 100);
        const stop = client.subscribe<{ userFills: { tid: string; cursor: string }[] }>(
          { query, variables: { user: active } },
          {
            next: (frame) => {
              const fill = frame.data?.userFills.at(-1);
              if (!fill) return;
              clearInterval(ticker);
              stop();
              resolve(fill);
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      // Away: three fills published; back with the cursor: exactly those, then the next live one.
      const missed: string[] = [];
      for (let i = 0; i < 3; i++) {
        await publish();
        missed.push(String(tid));
      }
      const resumed = await new Promise<string[]>((resolve, reject) => {
        const got: string[] = [];
        const stop = client.subscribe<{ userFills: { tid: string }[] }>(
          { query, variables: { user: active, after: first.cursor } },
          {
            next: (frame) => {
              if (frame.errors) reject(new Error(JSON.stringify(frame.errors)));
              got.push(...(frame.data?.userFills ?? []).map((f) => f.tid).filter((t) => published.has(t)));
              if (got.length === 3) void publish();
              if (got.length >= 4) {
                stop();
                resolve(got);
              }
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(resumed.slice(0, 3)).toEqual(missed);
      expect(resumed[3]).toBe(String(tid));
    });

    it('refuses a liquidations subscription over more than 50 users', async () => {
      const users = Array.from({ length: 51 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
      const frame = await firstFrame(
        client,
        'subscription ($users: [String!]) { liquidations(users: $users) { tid } }',
        {
          users,
        },
      );
      expect(frame.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(frame.errors?.[0]?.message).toBe('users: must be a list of at most 50 addresses, got 51');
    });
  });
});
