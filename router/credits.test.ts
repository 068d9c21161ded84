// What a GraphQL operation costs (router/credits.ts, by the rule of access/costs.ts), on a small schema shaped as the
// supergraph is (its @listSize declarations included): the REST price of what it can read, with variables coerced
// and defaulted, every alias and fragment spread counted, and refused input priced 0 or refused before charging.
import { buildSchema, GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCredits } from './credits.ts';

const schema = buildSchema(`
  directive @listSize(
    assumedSize: Int, slicingArguments: [String!], sizedFields: [String!], requireOneSlicingArgument: Boolean = true
  ) on FIELD_DEFINITION
  type Query {
    allMids: [Mid!]! @listSize(assumedSize: 200)
    markets: [Market!]! @listSize(assumedSize: 200)
    market(coin: String!): Market
    user(address: String!): User!
    builder(address: String!): Builder!
    batchPerformance(addresses: [String!]!, includeDrawdown: Boolean = false): [Entry!]! @listSize(assumedSize: 500)
  }
  type Mid { coin: String! }
  type Market {
    coin: String!
    trades(limit: Int! = 100): [Trade!]! @listSize(slicingArguments: ["limit"], requireOneSlicingArgument: false)
  }
  type Trade { px: String! users: [User!]! @listSize(assumedSize: 2) }
  type User {
    address: String!
    accountState: State
    fills(first: Int! = 100): FillConnection!
      @listSize(slicingArguments: ["first"], sizedFields: ["edges"], requireOneSlicingArgument: false)
  }
  type State { value: String }
  type FillConnection { edges: [FillEdge!]! }
  type FillEdge { node: Fill! }
  type Fill { px: String! user: User! }
  type Builder { address: String! externalActivity(addresses: [String!]!): Activity! }
  type Activity { wallets: [Wallet!]! }
  type Wallet { address: String! user: User! }
  type Entry { address: String! user: User! }
`);
const table = {
  'Query.batchPerformance': { perWalletArg: 'addresses' },
  'Builder.externalActivity': { perWalletArg: 'addresses' },
};
const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  operationCredits(parse(query), operationName, variables, { schema, table });
const wallets = (n: number) => Array.from({ length: n }, (_, i) => `0x${String(i + 1).padStart(40, '0')}`);
const list = (n: number) => JSON.stringify(wallets(n));
const fillsPage = (first: number) => `fills(first: ${first}) { edges { node { px } } }`;

describe('operationCredits', () => {
  it('charges a call per root field and per alias of it; an operation costs at least one', () => {
    expect(cost('{ allMids { coin } }')).toBe(1);
    expect(cost('{ __typename }')).toBe(1);
    expect(cost('{ a: allMids { coin } b: allMids { coin } markets { coin } }')).toBe(3);
  });

  it('charges a lookup as the calls inside it, else as one call: user(A) { fills } is the one userFills call', () => {
    expect(cost(`{ user(address: "a") { ${fillsPage(2000)} } }`)).toBe(1);
    expect(cost('{ user(address: "a") { accountState { value } } }')).toBe(1);
    expect(cost('{ market(coin: "ETH") { coin trades(limit: 3) { px } } }')).toBe(1);
  });

  it('charges every alias of a page (the issue: 60 × fills(first: 2000) is 60 userFills calls)', () => {
    const aliases = Array.from({ length: 60 }, (_, i) => `u${i}: user(address: "a") { ${fillsPage(2000)} }`);
    expect(cost(`{ ${aliases.join(' ')} }`)).toBe(60);
    const pages = Array.from({ length: 5 }, (_, i) => `f${i}: ${fillsPage(2000)}`);
    expect(cost(`{ user(address: "a") { ${pages.join(' ')} } }`)).toBe(5);
  });

  it('charges a call below a list once per element the list can hold (@listSize)', () => {
    // markets: assumed 200; each market's trades a call.
    expect(cost('{ markets { trades(limit: 5) { px } } }')).toBe(1 + 200);
    // trades(limit: 100): 1 call, then 100 trades × 2 users × (their fills page + 10 edges × one more page).
    const deep = `{ market(coin: "ETH") { trades(limit: 100) { users {
      fills(first: 10) { edges { node { user { ${fillsPage(1)} } } } } } } } }`;
    expect(cost(deep)).toBe(1 + 100 * 2 * (1 + 10 * 1));
  });

  it('charges a batch field per wallet, from literals, variables, their defaults and a coerced single value', () => {
    expect(cost(`{ batchPerformance(addresses: ${list(3)}) { address } }`)).toBe(9);
    const withVariable = 'query Q($a: [String!]!) { batchPerformance(addresses: $a) { address } }';
    expect(cost(withVariable, { a: wallets(2) })).toBe(6);
    // The issue: a variable's default of 500 addresses, sent without variables, was charged 1.
    expect(cost(`query($a: [String!] = ${list(500)}) { batchPerformance(addresses: $a) { address } }`)).toBe(1500);
    // A single string is coerced to a list of one: 3, not 1.
    expect(cost(withVariable, { a: wallets(1)[0] })).toBe(3);
    expect(cost(`{ batchPerformance(addresses: "${wallets(1)[0]}") { address } }`)).toBe(3);
    // What is below a batch runs per wallet: 3 wallets' fills pages are 3 calls.
    expect(cost(`{ batchPerformance(addresses: ${list(3)}) { user { ${fillsPage(2000)} } } }`)).toBe(9 + 3);
  });

  it('charges every fragment-spread occurrence (the issue: 20 builders × externalActivity of 100 wallets)', () => {
    const builders = Array.from({ length: 20 }, (_, i) => `b${i}: builder(address: "b${i}") { ...A }`);
    const query = `{ ${builders.join(' ')} } fragment A on Builder { externalActivity(addresses: ${list(100)}) {
      wallets { address } } }`;
    // 20 REST calls of 100 wallets: 20 × 300.
    expect(cost(query)).toBe(6000);
    // Through an inline fragment and a fragment of a fragment alike.
    const nested = `{ builder(address: "b") { ... on Builder { ...B } } } fragment B on Builder { ...A }
      fragment A on Builder { externalActivity(addresses: ${list(4)}) { wallets { address } } }`;
    expect(cost(nested)).toBe(12);
  });

  it('prices a fragment by the page size its enclosing field gives it, once per size', () => {
    const query = `{ user(address: "a") { a: fills(first: 3) { ...C } b: fills(first: 5) { ...C } } }
      fragment C on FillConnection { edges { node { user { ${fillsPage(1)} } } } }`;
    expect(cost(query)).toBe(1 + 3 + (1 + 5));
  });

  it('prices a fragment bomb without expanding it (memoised: linear in the document)', () => {
    const levels = 40;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    const query = `{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { allMids { coin } }`;
    // 2^40 allMids calls: beyond any key's credits, and still an exact integer.
    expect(cost(query)).toBe(2 ** 40);
  });

  it('honours @skip and @include', () => {
    const query = `query($no: Boolean!) { a: allMids @skip(if: true) { coin } b: allMids @include(if: $no) { coin }
      builder(address: "b") @include(if: $no) { externalActivity(addresses: ${list(5)}) { wallets { address } } }
      c: allMids { coin } }`;
    expect(cost(query, { no: false })).toBe(1);
    expect(cost(query, { no: true })).toBe(1 + 1 + 15);
  });

  it('refuses a batch field outside 1 to 500 wallets before any charge, naming the field and the bounds', () => {
    for (const n of [0, 501]) {
      const refused = cost(`{ batchPerformance(addresses: ${list(n)}) { address } }`);
      expect(refused).toBeInstanceOf(GraphQLError);
      expect((refused as GraphQLError).message).toBe(
        `batchPerformance(addresses): must hold 1 to 500 addresses, got ${n}`,
      );
      expect((refused as GraphQLError).extensions).toEqual({ code: 'BAD_USER_INPUT', http: { status: 400 } });
    }
    const nested = cost(
      `{ builder(address: "b") { externalActivity(addresses: ${list(501)}) { wallets { address } } } }`,
    );
    expect((nested as GraphQLError).message).toBe('externalActivity(addresses): must hold 1 to 500 addresses, got 501');
  });

  it('prices an operation that will not run at 0: variables that do not coerce, no such operation', () => {
    const withVariable = 'query Q($a: [String!]!) { batchPerformance(addresses: $a) { address } }';
    expect(cost(withVariable, { a: 5 })).toBe(0);
    expect(cost(withVariable, {})).toBe(0);
    expect(cost(withVariable, { a: wallets(1) }, 'Other')).toBe(0);
    const two = `query Cheap { allMids { coin } } query Dear { batchPerformance(addresses: ${list(4)}) { address } }`;
    expect(cost(two)).toBe(0);
    expect(cost(two, {}, 'Cheap')).toBe(1);
    expect(cost(two, {}, 'Dear')).toBe(12);
  });
});
