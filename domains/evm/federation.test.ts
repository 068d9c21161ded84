import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GraphqlAnswer, graphqlWsClient, postGraphql } from '../../test/graphql.ts';
import { openRouterHere } from '../../test/router-here.ts';
import { startTestStack, type TestStack } from '../../test/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ historyMs: 20 * 60_000, openRouter: openRouterHere });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

type Answer = GraphqlAnswer;

async function gql(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  return (await postGraphql(stack.urls.router, query, variables)).body;
}

describe('evm through the router', () => {
  it("goes from a transaction to its sender's fills", async () => {
    // A transaction whose sender also trades on the exchange (the simulator's EVM users include its traders).
    const { rows } = await stack.db.pool.query<{ hash: string; from_addr: string; fills: string }>(
      `SELECT t.hash, t.from_addr, (SELECT count(*) FROM accounts.fills f WHERE f.address = t.from_addr) AS fills
       FROM evm.transactions t WHERE NOT t.is_system
         AND EXISTS (SELECT 1 FROM accounts.fills f WHERE f.address = t.from_addr)
       ORDER BY t.block_number DESC LIMIT 1`,
    );
    const tx = rows[0];
    expect(tx).toBeDefined();
    const answer = await gql(
      `query ($hash: String!) {
        transaction(hash: $hash) {
          hash from block { number }
          sender { address fills(first: 3) { totalCount edges { node { coin } } } }
        }
      }`,
      { hash: tx?.hash },
    );
    expect(answer.errors).toBeUndefined();
    const t = answer.data.transaction;
    expect(t.hash).toBe(tx?.hash);
    expect(t.sender.address).toBe(tx?.from_addr);
    // The simulator keeps trading while the test runs: at least the fills counted above.
    expect(t.sender.fills.totalCount).toBeGreaterThanOrEqual(Number(tx?.fills));
    expect(t.sender.fills.edges.length).toBeGreaterThan(0);
  });

  it("pages a token's holders by offset and cursor, and a Dex carries backstop and market fields together", async () => {
    const { rows } = await stack.db.pool.query<{ token: string }>(
      'SELECT token FROM evm.token_holders WHERE balance_raw > 0 GROUP BY token ORDER BY count(*) DESC LIMIT 1',
    );
    const token = rows[0]?.token as string;
    const answer = await gql(
      `query ($token: String!) {
        evmToken(address: $token) {
          address symbol
          holders(limit: 3) { hasMore endCursor nodes { address balanceRaw share } }
        }
        dexes { name snapshots { coin } backstopHealth { backstopAddress dexIndex } }
      }`,
      { token },
    );
    expect(answer.errors).toBeUndefined();
    // The simulator keeps moving balances, so the pages are checked for their order, not against compat's (the
    // hand-written data of compat/routes.test.ts compares the two exactly).
    const first = answer.data.evmToken.holders;
    const balances = first.nodes.map((h: { balanceRaw: string }) => BigInt(h.balanceRaw));
    expect(balances).toHaveLength(3);
    for (let i = 1; i < balances.length; i++) expect(balances[i] <= balances[i - 1]).toBe(true);
    const next = await gql(
      'query ($token: String!, $after: String) { evmToken(address: $token) { holders(limit: 2, after: $after) { nodes { address balanceRaw } } } }',
      { token, after: first.endCursor },
    );
    expect(next.errors).toBeUndefined();
    const after = next.data.evmToken.holders.nodes as { address: string; balanceRaw: string }[];
    for (const h of after) expect(first.nodes.map((n: { address: string }) => n.address)).not.toContain(h.address);
    const xyz = answer.data.dexes.find((d: { name: string }) => d.name === 'xyz');
    expect(xyz.snapshots.length).toBeGreaterThan(0);
    // The simulator moves backstop principal about every minute and gaps a HIP-3 holder into xyz's backstop about
    // every 10: 20 minutes of history hold activity on xyz.
    expect(xyz.backstopHealth).toEqual({ backstopAddress: `0x4${'0'.repeat(38)}1`, dexIndex: 1 });
  });

  it('refuses a bad page as BAD_USER_INPUT naming the argument', async () => {
    const answer = await gql('{ evmTransactions(limit: 1001) { hasMore } }');
    expect(answer.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(answer.errors?.[0]?.message).toContain('limit');
  });

  it('streams new blocks over graphql-ws', async () => {
    const client = graphqlWsClient(stack.urls.router);
    try {
      const frame = await new Promise<Answer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no block within 20 s')), 20_000);
        client.subscribe<unknown>(
          { query: 'subscription { newBlocks { number txCount } }' },
          {
            next: (r) => {
              clearTimeout(timer);
              resolve(r as Answer);
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      expect(frame.errors).toBeUndefined();
      expect(frame.data.newBlocks.number).toBeGreaterThan(0);
    } finally {
      await client.dispose();
    }
  });
});
