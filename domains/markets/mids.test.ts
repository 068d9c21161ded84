// allMids follows the exchange's `dex` rule (reference/hyperliquid-wire.md: "perps + spot keys (spot only with first
// dex)") on every interface: REST `/info`, the GraphQL field and the MCP tool ask the markets service's one rule
// (dexMids) and answer the same map. The simulated node lists the HIP-3 dex `xyz` beside the first dex and spot.
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolCatalog } from '../../mcp/tools.ts';
import { startCompatApp, type TestCompatApp } from '../../test/compat-app.ts';
import { marketsSchema } from './schema/index.ts';

let compat: TestCompatApp;

beforeAll(async () => {
  compat = await startCompatApp();
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

async function rest(body: Record<string, unknown>) {
  const res = await compat.info({ type: 'allMids', ...body });
  expect(res.status).toBe(200);
  return res.body as Record<string, string>;
}

async function gql(dex?: string) {
  const res = await graphql({
    schema: marketsSchema,
    source: 'query ($dex: String) { allMids(dex: $dex) { coin mid } }',
    variableValues: dex === undefined ? {} : { dex },
    contextValue: { markets: compat.markets },
  });
  expect(res.errors).toBeUndefined();
  const list = (res.data as { allMids: { coin: string; mid: string }[] }).allMids;
  return Object.fromEntries(list.map((m) => [m.coin, m.mid]));
}

async function mcp(args: Record<string, unknown>) {
  // The tool as the server calls it: its arguments read by its definition, then its call.
  const tool = toolCatalog().get('markets_all_mids');
  const read = tool?.read(args);
  if (read?.fault) throw read.fault;
  const answer = await tool?.tool.call(read?.args ?? {}, {
    services: compat.services,
    signal: new AbortController().signal,
  });
  return answer?.mids as Record<string, string>;
}

describe('allMids: one dex rule on every interface', () => {
  it('without dex: the first dex and spot, no HIP-3 coin, the same map on REST, GraphQL and MCP', async () => {
    const [r, g, m] = [await rest({}), await gql(), await mcp({})];
    const coins = Object.keys(r);
    expect(coins).toContain('BTC');
    expect(coins.some((c) => c.startsWith('@') || c.includes('/'))).toBe(true);
    expect(coins.filter((c) => c.includes(':'))).toEqual([]);
    // The service holds HIP-3 mids: the rule, not their absence, keeps them out.
    expect(Object.keys(compat.markets.allMids()).some((c) => c.startsWith('xyz:'))).toBe(true);
    expect(g).toEqual(r);
    expect(m).toEqual(r);
    expect(await rest({ dex: '' })).toEqual(r);
    expect(await gql('')).toEqual(r);
  });

  it('with a HIP-3 dex: only its coins, the same map on REST, GraphQL and MCP', async () => {
    const [r, g, m] = [await rest({ dex: 'xyz' }), await gql('xyz'), await mcp({ dex: 'xyz' })];
    expect(Object.keys(r).length).toBeGreaterThan(0);
    expect(Object.keys(r).every((c) => c.startsWith('xyz:'))).toBe(true);
    expect(g).toEqual(r);
    expect(m).toEqual(r);
  });

  it('refuses an unknown dex on each interface', async () => {
    expect((await compat.info({ type: 'allMids', dex: 'nope' })).status).toBe(400);
    const res = await graphql({
      schema: marketsSchema,
      source: '{ allMids(dex: "nope") { coin } }',
      contextValue: { markets: compat.markets },
    });
    expect(res.errors?.[0]?.message).toMatch(/dex/);
    await expect(mcp({ dex: 'nope' })).rejects.toThrow(/dex/);
  });
});
