// The hip4 MCP tools over the hand-written history (test/hip4-files.ts): each tool's `call` answers the rows of its
// /hip4 route from the same service (the fill rows the route writes from Postgres text, too), and each input schema,
// compiled by the /info Ajv, refuses a bad argument.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../events/bus.ts';
import type { CompatServices } from '../../kit/info.ts';
import { bodyValidator } from '../../kit/request-schema.ts';
import { JsonArrayWriter } from '../../platform/json-text.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { A1, AT, HOUR, hip4History, T0 } from '../../test/hip4-files.ts';
import { fillRowJson } from './compat/routes.ts';
import { hip4Tools } from './mcp.ts';
import { Hip4Service } from './service/index.ts';
import { FILLS } from './service/inputs.ts';

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

/** The tool's answer, its arguments first checked as the tool server checks them. */
async function call(name: string, args: Record<string, unknown>) {
  const t = tool(name);
  bodyValidator(t.input)(args);
  // The hip4 tools read only the hip4 service.
  const result = await t.call(args, { services: { hip4 } as unknown as CompatServices, signal });
  expect(typeof t.summary?.(result)).toBe('string');
  return result;
}

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
    expect(() => bodyValidator(tool(name).input)(args)).toThrow(new RegExp(`^${field}`));
  });
});
