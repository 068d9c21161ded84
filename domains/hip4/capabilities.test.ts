// The hip4 capabilities' MCP tools (mcp/capability-tools.ts) over the hand-written history (test/hip4-files.ts): each
// tool's `call` answers the rows of its /hip4 route from the same service (the fill rows the route writes from
// Postgres text, too), and each tool's one reading of its arguments refuses a bad one, naming it.
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../events/bus.ts';
import type { CompatServices } from '../../kit/info.ts';
import { capabilityTools } from '../../mcp/capability-tools.ts';
import { JsonArrayWriter } from '../../platform/json-text.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { A1, AT, HOUR, hip4History, T0 } from '../../test/hip4-files.ts';
import { HIP4_CAPABILITIES } from './capabilities.ts';
import { fillRowJson } from './records.ts';
import { hip4Schema } from './schema/index.ts';
import { Hip4Service } from './service/index.ts';
import { FILLS } from './service/inputs.ts';

const hip4Tools = capabilityTools('hip4', HIP4_CAPABILITIES);
let db: TestDatabase;
let hip4: Hip4Service;
const signal = new AbortController().signal;

beforeAll(async () => {
  db = await createTestDatabase();
  await hip4History().load(db);
  hip4 = new Hip4Service({ pool: db.pool, bus: new InProcessBus() });
  await hip4.start();
}, 60_000);
afterAll(async () => {
  hip4?.stop();
  await db?.drop();
});

function tool(name: string) {
  const t = hip4Tools.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

/** The tool's answer, its arguments first read as the tool server reads them. */
async function call(name: string, args: Record<string, unknown>) {
  const t = tool(name);
  const input = read(name, args);
  // The hip4 tools read only the hip4 service.
  const result = await t.call(input, { services: { hip4 } as unknown as CompatServices, signal });
  expect(typeof t.summary?.(result)).toBe('string');
  return result;
}

/** The tool's one reading of its arguments (a FieldError refuses them). */
const read = (name: string, args: Record<string, unknown>) => tool(name).read?.(args) as Record<string, unknown>;

describe('hip4 MCP tools', () => {
  it('are named hip4_<capability> and declare object inputs', () => {
    expect(hip4Tools.map((t) => t.name)).toEqual([
      'hip4_questions',
      'hip4_markets',
      'hip4_fills',
      'hip4_providers',
      'hip4_deployers',
      'hip4_analytics',
    ]);
    for (const t of hip4Tools) expect(t.input).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('answer the same rows as the routes', async () => {
    const questions = (await call('hip4_questions', { questionId: 1 })).questions as Record<string, unknown>[];
    expect(questions).toEqual([
      expect.objectContaining({ question_id: 1, venue: 'oracle', settled_named_outcomes: [10] }),
    ]);
    const markets = (await call('hip4_markets', { class: 'priceBinary' })).markets as Record<string, unknown>[];
    expect(markets.map((m) => m.outcome_id)).toEqual([30]);
    const fills = (await call('hip4_fills', { user: A1, limit: 2 })).fills as Record<string, unknown>[];
    expect(fills.map((f) => [f.tid, f.typeTrade])).toEqual([
      [90, 'settlement'],
      [4, 'taker'],
    ]);
    const providers = (await call('hip4_providers', { startTime: AT.match2, endTime: AT.match3 })).providers;
    expect(providers).toEqual([expect.objectContaining({ venue: 'predict', fills: 4, volume_usdc: '35.0' })]);
    const deployers = (await call('hip4_deployers', { venue: 'oddsx' })).deployers as Record<string, unknown>[];
    expect(deployers.map((d) => d.fee_scale)).toEqual(['0.5']);
    expect(
      await call('hip4_analytics', { interval: '4h', coins: ['#200', '201'], startTime: T0, endTime: T0 + 4 * HOUR }),
    ).toMatchObject({
      status: 'live',
      count: 2,
      data: [
        { bucket: '2026-11-22T08:00:00', coin: '#200', volume: 5 },
        { bucket: '2026-11-22T08:00:00', coin: '#201', volume: 30 },
      ],
    });
  });

  it('refuses a window whose start is after its end, naming the camelCase argument', async () => {
    await expect(call('hip4_providers', { startTime: T0 + HOUR, endTime: T0 })).rejects.toThrow(
      /^startTime: must not be after endTime$/,
    );
  });

  it('hip4_fills answers the rows /hip4/fills writes from Postgres text, value for value', async () => {
    const objects = (await call('hip4_fills', { limit: 1000 })).fills as unknown[];
    expect(objects).toHaveLength(10);
    const json = new JsonArrayWriter();
    await hip4.eachFillTextRow(FILLS.parse({ limit: 1000 }), (row) => json.push(fillRowJson(row)));
    expect(JSON.parse(json.end().toString('utf8'))).toEqual(objects);
  });

  it('pages by nextCursor as the route by X-Next-Cursor: every fill once, newest first', async () => {
    const all = (await call('hip4_fills', { limit: 1000 })).fills as { tid: number }[];
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const page = await call('hip4_fills', { limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...(page.fills as unknown[]));
      const text = await hip4.eachFillTextRow(FILLS.parse({ limit: 3, cursor }), () => {});
      expect(page.nextCursor).toBe(text.nextCursor);
      if (!page.hasMore) break;
      cursor = page.nextCursor as string;
    }
    expect(seen).toEqual(all);
  });

  it.each([
    ['hip4_questions', { questionId: 10_001 }, 'questionId'],
    ['hip4_markets', { limit: 1001 }, 'limit'],
    ['hip4_fills', { user: '0x12' }, 'user'],
    ['hip4_fills', { coin: 'BTC' }, 'coin'],
    ['hip4_providers', { startTime: -1 }, 'startTime'],
    ['hip4_deployers', { venue: '' }, 'venue'],
    ['hip4_analytics', { interval: '15m' }, 'interval'],
    ['hip4_analytics', { coins: Array.from({ length: 51 }, (_, i) => String(i)) }, 'coins'],
    ['hip4_analytics', { limit: 2001 }, 'limit'],
    ['hip4_analytics', { bogus: 1 }, 'bogus'], // an unknown parameter is named (issue 30: refuse what is not understood)
  ])('%s refuses %j naming %s', (name, args, field) => {
    expect(() => read(name, args)).toThrow(new RegExp(`^${field}`));
  });
});

describe('hip4 Query connections (kit/capability-fields.ts)', () => {
  /** The subgraph's schema executed in process over the same service. */
  async function query(source: string, variableValues: Record<string, unknown> = {}) {
    const result = await graphql({ schema: hip4Schema, source, variableValues, contextValue: { hip4 } });
    expect(result.errors).toBeUndefined();
    return result.data as Record<string, unknown>;
  }

  it('hip4FillsConnection pages after each endCursor: every fill once, as the MCP tool pages them', async () => {
    const all = (await call('hip4_fills', { limit: 1000 })).fills as { tid: number; user: string }[];
    const seen: [string, number][] = [];
    let after: string | null = null;
    for (let i = 0; i < 10; i++) {
      const data = await query(
        'query($after: String) { hip4FillsConnection(limit: 3, after: $after) { ' +
          'edges { cursor node { tid user { address } } } pageInfo { hasNextPage endCursor } } }',
        { after },
      );
      const c = data.hip4FillsConnection as {
        edges: { cursor: string; node: { tid: string; user: { address: string } } }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
      const mcp = await call('hip4_fills', { limit: 3, ...(after ? { cursor: after } : {}) });
      expect(c.pageInfo.hasNextPage).toBe(mcp.hasMore);
      if (mcp.hasMore) expect(c.pageInfo.endCursor).toBe(mcp.nextCursor);
      // An edge's cursor resumes after its own row: the page after the second edge starts with the third.
      if (c.edges.length === 3) {
        const next = (await call('hip4_fills', { limit: 1, cursor: c.edges[1]?.cursor })).fills as { tid: number }[];
        expect(next[0]?.tid).toBe(Number(c.edges[2]?.node.tid));
      }
      seen.push(...c.edges.map((e): [string, number] => [e.node.user.address, Number(e.node.tid)]));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(seen).toEqual(all.map((f) => [f.user, f.tid]));
  });

  it('questionsConnection and the questions list answer the same questions; a cursor and an offset together are refused', async () => {
    const list = (await query('{ questions(limit: 100) { questionId } }')).questions as { questionId: number }[];
    const first = (await query('{ questionsConnection(limit: 1) { edges { cursor node { questionId } } } }'))
      .questionsConnection as { edges: { cursor: string; node: { questionId: number } }[] };
    expect(first.edges.map((e) => e.node.questionId)).toEqual([list[0]?.questionId]);
    const rest = (
      await query(
        `{ questionsConnection(limit: 100, after: "${first.edges[0]?.cursor}") { edges { node { questionId } } } }`,
      )
    ).questionsConnection as { edges: { node: { questionId: number } }[] };
    expect(rest.edges.map((e) => e.node.questionId)).toEqual(list.slice(1).map((q) => q.questionId));
    const refused = await graphql({
      schema: hip4Schema,
      source: '{ questionsConnection(limit: 1, after: "x") { edges { cursor } } }',
      contextValue: { hip4 },
    });
    // The service's refusal names the field as GraphQL calls it.
    expect(refused.errors?.[0]?.message).toBe('after: must be the next cursor of a page (the last id it held)');
  });

  it("an entity's lists are its capabilities' fields: a question's outcomes, an outcome's and an account's fills and positions", async () => {
    const data = await query(
      '{ questions(limit: 100) { questionId outcomes { outcomeId } } ' +
        'outcome(outcomeId: 10) { fills(limit: 2, offset: 1) { tid user { address } } } }',
    );
    // Named outcomes, then the fallback outcome.
    expect(data.questions).toEqual([
      { questionId: 1, outcomes: [{ outcomeId: 10 }, { outcomeId: 11 }, { outcomeId: 12 }] },
      { questionId: 2, outcomes: [{ outcomeId: 20 }, { outcomeId: 21 }, { outcomeId: 22 }] },
    ]);
    const outcomeFills = (await hip4.fillsPage(FILLS.parse({ outcomeId: 10, limit: 2, offset: 1 }))).rows;
    expect(outcomeFills).toHaveLength(2);
    expect((data.outcome as { fills: unknown }).fills).toEqual(
      outcomeFills.map((f) => ({ tid: String(f.tid), user: { address: f.address } })),
    );
    const account = await query(
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on User { ' +
        'hip4Fills(limit: 2) { tid } hip4Positions { coin size } } } }',
      { r: [{ __typename: 'User', address: A1.toUpperCase().replace('0X', '0x') }] },
    );
    const positions = await hip4.positions(A1);
    expect(positions.length).toBeGreaterThan(0);
    expect(account._entities).toEqual([
      {
        hip4Fills: [{ tid: '90' }, { tid: '4' }],
        hip4Positions: positions.map((p) => ({ coin: p.coin, size: p.size })),
      },
    ]);
    const refused = await graphql({
      schema: hip4Schema,
      source: '{ outcome(outcomeId: 10) { fills(limit: 0) { tid } } }',
      contextValue: { hip4 },
    });
    expect(refused.errors?.[0]?.message).toMatch(/^limit: /);
  });

  it("Query.outcome, question and venue are their capabilities' fields: the row, null when unknown, a bad id refused", async () => {
    const data = await query(
      '{ outcome(outcomeId: 10) { outcomeId name question { questionId } } ' +
        'question(questionId: 1) { questionId name } venue(name: "oddsx") { name } ' +
        'noOutcome: outcome(outcomeId: 999999) { outcomeId } noQuestion: question(questionId: 999999) { questionId } ' +
        'noVenue: venue(name: "nope") { name } oracle: venue(name: "oracle") { name } }',
    );
    const [outcome, question, venue] = await Promise.all([hip4.outcome(10), hip4.question(1), hip4.venue('oddsx')]);
    expect(data).toEqual({
      outcome: { outcomeId: 10, name: outcome?.name, question: { questionId: 1 } },
      question: { questionId: 1, name: question?.name },
      venue: { name: venue?.venue },
      noOutcome: null,
      noQuestion: null,
      noVenue: null,
      oracle: null,
    });
    expect(venue?.venue).toBe('oddsx');
    const refusal = async (source: string) =>
      (await graphql({ schema: hip4Schema, source, contextValue: { hip4 } })).errors?.map((e) => e.message);
    expect(await refusal('{ outcome(outcomeId: -1) { outcomeId } }')).toEqual([
      'outcomeId: must be an integer from 0 to 2147483647, got -1',
    ]);
    expect(await refusal('{ question(questionId: -1) { questionId } }')).toEqual([
      'questionId: must be an integer from 0 to 2147483647, got -1',
    ]);
    expect(await refusal('{ venue(name: "") { name } }')).toEqual(['name: must be a non-empty string, got ""']);
  });
});
