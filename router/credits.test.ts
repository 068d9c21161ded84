// What a GraphQL operation costs: one call, plus each listed root field's per-wallet charge (access/costs.ts).
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationCredits } from './credits.ts';

const table = { 'Query.batchPerformance': { perWalletArg: 'wallets' } };
const cost = (query: string, operationName?: string, variables?: Record<string, unknown>) =>
  operationCredits(parse(query), operationName, variables, { table });

describe('operationCredits', () => {
  it('charges one credit for an operation without listed fields', () => {
    expect(cost('{ allMids { coin } }')).toBe(1);
    expect(operationCredits(parse('{ batchPerformance(wallets: ["a"]) { x } }'))).toBe(1);
  });

  it('charges a listed field per wallet, as its REST call costs, from literals or variables', () => {
    expect(cost('{ batchPerformance(wallets: ["a", "b", "c"]) { x } }')).toBe(9);
    expect(cost('query Q($w: [String!]!) { batchPerformance(wallets: $w) { x } }', 'Q', { w: ['a', 'b'] })).toBe(6);
    // Twice in one operation (aliases), with other fields beside: the operation's 1, and each listed field's cost
    // but the 1 its own call would be (3 - 1, then 6 - 1).
    expect(
      cost(
        '{ allMids { coin } a: batchPerformance(wallets: ["a"]) { x } b: batchPerformance(wallets: ["a", "b"]) { x } }',
      ),
    ).toBe(8);
  });

  it('reads fragments and picks the operation that runs', () => {
    const doc = `
      query Cheap { allMids { coin } }
      query Dear { ...F }
      fragment F on Query { batchPerformance(wallets: ["a", "b", "c", "d"]) { x } }`;
    expect(cost(doc, 'Cheap')).toBe(1);
    expect(cost(doc, 'Dear')).toBe(12);
  });

  it('finds a listed field below the root when given the schema', () => {
    const schema = buildSchema(`
      type Query { builder(address: String!): Builder }
      type Builder { address: String! externalActivity(addresses: [String!]!): [Int!]! }`);
    const nested = { 'Builder.externalActivity': { perWalletArg: 'addresses' } };
    const query = '{ builder(address: "b") { address ... on Builder { externalActivity(addresses: ["a", "c"]) } } }';
    expect(operationCredits(parse(query), undefined, {}, { table: nested, schema })).toBe(6);
    expect(operationCredits(parse(query), undefined, {}, { table: nested })).toBe(1);
    const viaFragment =
      '{ builder(address: "b") { ...A } } fragment A on Builder { externalActivity(addresses: ["a"]) }';
    expect(operationCredits(parse(viaFragment), undefined, {}, { table: nested, schema })).toBe(3);
  });

  it('counts a malformed wallet list as one call', () => {
    expect(cost('query Q($w: String) { batchPerformance(wallets: $w) { x } }', 'Q', { w: 'a' })).toBe(1);
  });
});
