// The entity links through the router, over hand-written data: a fill and a liquidation to the Builder that routed
// them (and the builders' revenue, one statement for a whole page), and a spot token to its HyperEVM contract and
// back (the node's spotMeta, from a stand-in node; the contracts' records, one query for a whole list).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Stack } from '../stack.ts';
import { NodeFiles } from './accounts-files.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { type GraphqlAnswer, postGraphql } from './graphql.ts';
import { addr, hash, nodeFill, T0 } from './node-files.ts';
import { startStackWithoutNode } from './stack.ts';

const TRADER = addr(0x7a0);
const OTHER = addr(0x07e);
const LIQUIDATOR = addr(0x11c);
const B1 = addr(0xb1);
const B2 = addr(0xb2);

/** Five fills: the trader's three (through B1, B2 and none), another's through B1, a liquidation through B2. */
const FILLS = [
  { user: TRADER, tid: 1, coin: 'BTC', px: '100', sz: '2', builder: B1, builderFee: '0.5' },
  { user: TRADER, tid: 2, coin: 'ETH', px: '10', sz: '3', builder: B2, builderFee: '0.03' },
  { user: TRADER, tid: 3, coin: 'SOL', px: '5', sz: '1' },
  { user: OTHER, tid: 4, coin: 'BTC', px: '50', sz: '1', builder: B1, builderFee: '0.25' },
  {
    user: LIQUIDATOR,
    tid: 5,
    coin: 'ETH',
    px: '20',
    sz: '1',
    builder: B2,
    builderFee: '0.02',
    liquidation: { liquidatedUser: TRADER, markPx: '19.5', method: 'market' as const },
  },
];
/** Fill `tid` happens at T0 + tid seconds. */
const at = (tid: number) => T0 + tid * 1000;

// Revenue over all fills: B1 routed fills 1 and 4 (100 × 2 + 50 × 1 = 250; fees 0.5 + 0.25), B2 fills 2 and 5
// (10 × 3 + 20 × 1 = 50; fees 0.03 + 0.02). From fill 2's time on, B1 has only fill 4 and B2 both of its own.
const B1_ALL = { fills: 2, volume: '250', builderFees: '0.75' };
const B2_ALL = { fills: 2, volume: '50', builderFees: '0.05' };
const B1_LATE = { fills: 1, volume: '50', builderFees: '0.25' };
const B2_LATE = { fills: 2, volume: '50', builderFees: '0.05' };

const UBTC = '0x9fdbda0a5e284c32744d2f17ee5c74b284993463';
const HYPE = `0x${'22'.repeat(20)}`;
const WETH = `0x${'dd'.repeat(20)}`;
/** The stand-in node's spotMeta: USDC has no contract, UBTC's (written mixed-case) and HYPE's are on HyperEVM. */
const SPOT_META = {
  universe: [],
  tokens: [
    { name: 'USDC', index: 0, szDecimals: 8, evmContract: null },
    { name: 'UBTC', index: 1, szDecimals: 5, evmContract: { address: UBTC.toUpperCase().replace('0X', '0x') } },
    { name: 'HYPE', index: 2, szDecimals: 2, evmContract: { address: HYPE, evm_extra_wei_decimals: 10 } },
  ],
};

let db: TestDatabase;
let stack: Stack;
let node: http.Server;
let spotMetaAsked = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  for (const f of FILLS) {
    const { user, ...fill } = f;
    files.add('node_fills_by_block', at(f.tid), [
      [user, nodeFill({ ...fill, time: at(f.tid), oid: f.tid, hash: hash(f.tid), side: 'B' })],
    ]);
  }
  await files.load(db);
  // UBTC and WETH are registered contracts (WETH is no spot token's); HYPE's contract is not registered.
  await db.pool.query(
    `INSERT INTO evm.tokens (address, symbol, decimals, standard) VALUES ($1, 'UBTC', 10, 'erc20'), ($2, 'WETH', 18, 'erc20')`,
    [UBTC, WETH],
  );
  for (const [token, name] of [
    [0, 'USDC'],
    [1, 'UBTC'],
    [2, 'HYPE'],
  ] as const) {
    await db.pool.query(
      `INSERT INTO markets.reserve_samples (token, time, token_name, borrow_yearly_rate, supply_yearly_rate, balance,
         utilization, oracle_px, ltv, total_supplied, total_borrowed) VALUES ($1, $2, $3, 0.05, 0.01, 10, 0.5, 1, 0.8, 20, 10)`,
      [token, T0, name],
    );
  }
  node = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if ((JSON.parse(body) as { type?: string }).type !== 'spotMeta') {
        res.writeHead(422).end('unknown type');
        return;
      }
      spotMetaAsked++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(SPOT_META));
    });
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  const port = (node.address() as AddressInfo).port;
  stack = await startStackWithoutNode(db.pool, { upstreamInfoUrl: `http://127.0.0.1:${port}/info` });
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => node?.close(resolve));
  await db?.drop();
});

async function gql(query: string): Promise<GraphqlAnswer> {
  return (await postGraphql(stack.urls.router, query)).body;
}

/** The statements run on the database while `run` runs whose text matches `pattern`. */
async function statementsDuring(pattern: RegExp, run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(db.pool, 'query');
  try {
    await run();
    return spy.mock.calls.filter(([sql]) => typeof sql === 'string' && pattern.test(sql)).length;
  } finally {
    spy.mockRestore();
  }
}

describe('fills and liquidations → Builder', () => {
  const revenueOfBuilders = `builder { address revenue { fills volume builderFees }
    late: revenue(startTime: ${at(2)}) { fills volume builderFees } }`;

  it("links a page of fills to their builders, the builders' revenue summed in one statement", async () => {
    for (const aggregate of [false, true]) {
      let answer: GraphqlAnswer = {};
      const statements = await statementsDuring(/GROUP BY builder/, async () => {
        answer = await gql(`{ user(address: "${TRADER}") {
          fills(first: 10, aggregateByTime: ${aggregate}) { edges { node { tid ${revenueOfBuilders} } } } } }`);
      });
      expect(answer.errors).toBeUndefined();
      expect(answer.data.user.fills.edges.map((e: { node: unknown }) => e.node)).toEqual([
        { tid: '3', builder: null },
        { tid: '2', builder: { address: B2, revenue: B2_ALL, late: B2_LATE } },
        { tid: '1', builder: { address: B1, revenue: B1_ALL, late: B1_LATE } },
      ]);
      // One per window (the two revenue fields), not one per fill.
      expect(statements).toBe(2);
    }
  });

  it("links a liquidation to its builder, and another account's fill to the same builder", async () => {
    const answer = await gql(`{
      user(address: "${LIQUIDATOR}") { liquidations { tid builder routedBy { address revenue { fills builderFees } } } }
      other: user(address: "${OTHER}") { fills(first: 5) { edges { node { tid builder { address } } } } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.user.liquidations).toEqual([
      { tid: '5', builder: B2, routedBy: { address: B2, revenue: { fills: 2, builderFees: '0.05' } } },
    ]);
    expect(answer.data.other.fills.edges).toEqual([{ node: { tid: '4', builder: { address: B1 } } }]);
  });
});

describe('Token ↔ EvmToken', () => {
  it("links every reserve token to its contract's record and back, one spotMeta and one contract query", async () => {
    let answer: GraphqlAnswer = {};
    const spotMetaBefore = spotMetaAsked;
    const statements = await statementsDuring(/FROM evm\.tokens/, async () => {
      answer = await gql('{ tokens { index evmToken { address symbol decimals spotToken { index } } } }');
    });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.tokens).toEqual([
      { index: 0, evmToken: null },
      { index: 1, evmToken: { address: UBTC, symbol: 'UBTC', decimals: 10, spotToken: { index: 1 } } },
      // A contract the evm domain never registered: its address only.
      { index: 2, evmToken: { address: HYPE, symbol: null, decimals: null, spotToken: { index: 2 } } },
    ]);
    expect(statements).toBe(1);
    // The node's answer is cached: at most one ask for the whole list (none when a test before asked).
    expect(spotMetaAsked - spotMetaBefore).toBeLessThanOrEqual(1);
  });

  it("goes from a contract to its spot token's reserve; a contract of no spot token has none", async () => {
    const answer = await gql(`{
      ubtc: evmToken(address: "${UBTC.toUpperCase().replace('0X', '0x')}") {
        address spotToken { index reserve { tokenName } evmToken { symbol } }
      }
      weth: evmToken(address: "${WETH}") { symbol spotToken { index } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      ubtc: { address: UBTC, spotToken: { index: 1, reserve: { tokenName: 'UBTC' }, evmToken: { symbol: 'UBTC' } } },
      weth: { symbol: 'WETH', spotToken: null },
    });
  });

  it('looks a token up by its index (its reserve null where it has none); a negative index is refused', async () => {
    const answer = await gql(
      '{ token(index: 1) { index reserve { tokenName } } none: token(index: 7) { reserve { tokenName } } }',
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ token: { index: 1, reserve: { tokenName: 'UBTC' } }, none: { reserve: null } });
    const refused = await gql('{ token(index: -1) { index } }');
    expect(refused.errors?.map((e: { message: string }) => e.message)).toEqual([
      'index: must be an integer from 0 to 4294967295, got -1',
    ]);
  });
});
