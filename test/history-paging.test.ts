// A user's whole funding and ledger history, paged on every interface (POST /info userFunding, accountFunding and
// userNonFundingLedgerUpdates, GET /funding/userFunding, GraphQL User.fundings and User.ledgerUpdates through the
// router, the MCP tools): every row the node files hold from the coverage start on comes back exactly once, newest
// first without a window and oldest first in one, and every interface pages the same rows in the same order.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { isoNs } from '../ingest/files.ts';
import { FUNDING_COVERAGE_START, LEDGER_COVERAGE_START } from '../platform/coverage.ts';
import type { Stack } from '../stack.ts';
import type { MiscEvent } from '../wire/node-lines.ts';
import { ZERO_HASH } from '../wire/node-lines.ts';
import { ledgerEvent, NodeFiles } from './accounts-files.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { mcpClient } from './mcp-client.ts';
import { addr, hash } from './node-files.ts';
import { startStackWithoutNode } from './stack.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const H = 3_600_000;
const MIN = 60_000;
const HOURS = 700;
const MINUTES = 620;

/** What the node files say ALICE was paid, from the coverage start on: `time|coin|usdc`. */
const payments: string[] = [];
/** ALICE's ledger updates from the coverage start on: `time|hash|delta`. */
const updates: string[] = [];

/** An object's JSON with its keys sorted (Postgres's jsonb keeps its own key order). */
const canonical = (o: unknown) => JSON.stringify(o, Object.keys(o as object).sort());

function settlement(time: number, deltas: [string, string, string][]): MiscEvent {
  const funding = deltas.map(([user, coin, amount]) => ({
    user,
    coin,
    funding_amount: amount,
    szi: '1.0',
    funding_rate: '0.0000125',
  }));
  return { time: isoNs(time, 50_000), hash: ZERO_HASH, inner: { Funding: { deltas: funding } } };
}

/** Hourly settlements: BTC every hour, ETH every third, a HIP-3 coin (a ':' in its name) every fifth; BOB's too. */
function fundingFiles(files: NodeFiles): void {
  files.add('misc_events_by_block', FUNDING_COVERAGE_START - H, [
    settlement(FUNDING_COVERAGE_START - H, [[ALICE, 'BTC', '-9.0']]),
  ]);
  for (let h = 0; h < HOURS; h++) {
    const time = FUNDING_COVERAGE_START + h * H;
    const deltas: [string, string, string][] = [[ALICE, 'BTC', `-${h}.1`]];
    if (h % 3 === 0) deltas.push([ALICE, 'ETH', `${h}.2`]);
    if (h % 5 === 0) deltas.push([ALICE, 'xyz:XYZ100', `-${h}.3`]);
    if (h % 7 === 0) deltas.push([BOB, 'BTC', `${h}.4`]);
    files.add('misc_events_by_block', time, [settlement(time, deltas)]);
    for (const [user, coin, usdc] of deltas) if (user === ALICE) payments.push(`${time}|${coin}|${usdc}`);
  }
}

/**
 * A deposit a minute; every fourth minute a withdrawal in the same block; every sixth two updates of one transaction;
 * every fiftieth the same update twice (rows of one key, never split across pages).
 */
function ledgerFiles(files: NodeFiles): void {
  const before = LEDGER_COVERAGE_START - 10 * MIN;
  files.add('misc_events_by_block', before, [ledgerEvent(before, hash(1), [ALICE], { type: 'deposit', usdc: '5.0' })]);
  for (let m = 0; m < MINUTES; m++) {
    const time = LEDGER_COVERAGE_START + m * MIN + 30_000;
    const events: [string, Record<string, unknown>][] = [[hash(10 * m + 2), { type: 'deposit', usdc: `${m}.0` }]];
    if (m % 4 === 0) events.push([hash(10 * m + 3), { type: 'withdraw', usdc: `${m}.5`, nonce: m, fee: '1.0' }]);
    if (m % 6 === 0) {
      events.push([hash(10 * m + 4), { type: 'accountClassTransfer', usdc: `${m}.0`, toPerp: true }]);
      events.push([hash(10 * m + 4), { type: 'accountClassTransfer', usdc: `${m}.0`, toPerp: false }]);
    }
    if (m % 50 === 0) {
      events.push([hash(10 * m + 5), { type: 'vaultDeposit', vault: BOB, usdc: '1.0' }]);
      events.push([hash(10 * m + 5), { type: 'vaultDeposit', vault: BOB, usdc: '1.0' }]);
    }
    files.add(
      'misc_events_by_block',
      time,
      events.map(([h, delta]) => ledgerEvent(time, h, [ALICE], delta)),
    );
    for (const [h, delta] of events) updates.push(`${time}|${h}|${canonical(delta)}`);
  }
}

let db: TestDatabase;
let stack: Stack;
let key: string;
let mcp: Client;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  fundingFiles(files);
  ledgerFiles(files);
  await files.load(db);
  key = (await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000 })).key;
  stack = await startStackWithoutNode(db.pool);
  mcp = await mcpClient(stack.urls.mcp, key);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await stack?.close();
  await db?.drop();
});

const auth = () => ({ authorization: `Bearer ${key}` });

async function info(body: Record<string, unknown>) {
  const res = await fetch(`${stack.urls.compat}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth() },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function get(path: string) {
  const res = await fetch(`${stack.urls.compat}${path}`, { headers: auth() });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function gql(query: string, variables: Record<string, unknown>) {
  const res = await fetch(stack.urls.router, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...auth() },
    body: JSON.stringify({ query, variables }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: read field by field
  return (await res.json()) as any;
}

async function tool(name: string, args: Record<string, unknown>) {
  const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as { hasMore: boolean; nextCursor: string | null } & Record<string, unknown[]>;
}

interface Page {
  rows: Record<string, unknown>[];
  next: string | null;
}

/** Every page of one question, following its cursor until it says no more (at most 2000 pages). */
async function pageAll(ask: (cursor: string | null) => Promise<Page>): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 2000; i++) {
    const page = await ask(cursor);
    all.push(...page.rows);
    if (page.next === null) return all;
    cursor = page.next;
  }
  throw new Error('more than 2000 pages');
}

/** A REST answer as a page: its rows, and X-Next-Cursor when X-Has-More says more follows. */
function restPage(r: { status: number; headers: Headers; body: unknown }): Page {
  expect(r.status).toBe(200);
  const more = r.headers.get('x-has-more');
  expect(more === 'true' || more === 'false').toBe(true);
  const next = r.headers.get('x-next-cursor');
  expect(next !== null).toBe(more === 'true');
  return { rows: r.body as Record<string, unknown>[], next: more === 'true' ? next : null };
}

const paymentKey = (p: Record<string, unknown>) =>
  `${p.time}|${(p.delta as { coin: string } | undefined)?.coin ?? p.coin}|${p.usdc}`;
const updateKey = (u: Record<string, unknown>) => `${u.time}|${u.hash}|${canonical(u.delta)}`;
const byTime = (keys: string[]) => keys.map((k) => Number(k.split('|')[0]));
const newestFirst = (times: number[]) => times.every((t, i) => i === 0 || (times[i - 1] as number) >= t);
const oldestFirst = (times: number[]) => times.every((t, i) => i === 0 || (times[i - 1] as number) <= t);

describe('funding history', () => {
  it('holds what the node files say', () => {
    expect(payments).toHaveLength(HOURS + Math.ceil(HOURS / 3) + Math.ceil(HOURS / 5));
  });

  it('POST /info userFunding without a window pages the whole history newest first, each payment once', async () => {
    const rows = await pageAll(async (cursor) =>
      restPage(await info({ type: 'userFunding', user: ALICE, limit: 97, ...(cursor ? { cursor } : {}) })),
    );
    const keys = rows.map(paymentKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect([...keys].sort()).toEqual([...payments].sort());
    expect(newestFirst(byTime(keys))).toBe(true);
  });

  it('in a window, pages oldest first (the exchange order), the same payments in reverse', async () => {
    const newest = (
      await pageAll(async (c) =>
        restPage(await info({ type: 'userFunding', user: ALICE, ...(c ? { cursor: c } : {}) })),
      )
    ).map(paymentKey);
    const windowed = (
      await pageAll(async (c) =>
        restPage(await info({ type: 'accountFunding', user: ALICE, startTime: 0, ...(c ? { cursor: c } : {}) })),
      )
    ).map(paymentKey);
    expect(windowed).toEqual([...newest].reverse());
    expect(oldestFirst(byTime(windowed))).toBe(true);
    // A window's first page: the oldest 500 (the default page), as the exchange answers a window.
    const first = await info({ type: 'userFunding', user: ALICE, startTime: 0 });
    expect(first.body).toHaveLength(500);
    expect(first.body.map(paymentKey)).toEqual(windowed.slice(0, 500));
    // Without a window, the newest 500.
    const recent = await info({ type: 'userFunding', user: ALICE });
    expect(recent.body.map(paymentKey)).toEqual(newest.slice(0, 500));
  });

  it('GET /funding/userFunding, GraphQL User.fundings and MCP accounts_funding_payments page the same rows', async () => {
    const reference = (
      await pageAll(async (c) =>
        restPage(await info({ type: 'userFunding', user: ALICE, limit: 113, ...(c ? { cursor: c } : {}) })),
      )
    ).map(paymentKey);
    const path = (
      await pageAll(async (c) =>
        restPage(
          await get(`/funding/userFunding?user=${ALICE}&limit=113${c ? `&cursor=${encodeURIComponent(c)}` : ''}`),
        ),
      )
    ).map(paymentKey);
    expect(path).toEqual(reference);
    const query = `query ($user: String!, $after: String) { user(address: $user) {
      fundings(first: 89, after: $after) { edges { cursor node { time coin usdc } } pageInfo { hasNextPage endCursor } }
    } }`;
    const graphql = (
      await pageAll(async (after) => {
        const answer = await gql(query, { user: ALICE, after });
        expect(answer.errors).toBeUndefined();
        const c = answer.data.user.fundings;
        return {
          rows: c.edges.map((e: { node: unknown }) => e.node),
          next: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
        };
      })
    ).map(paymentKey);
    expect(graphql).toEqual(reference);
    const tools = (
      await pageAll(async (cursor) => {
        const r = await tool('accounts_funding_payments', { user: ALICE, limit: 211, ...(cursor ? { cursor } : {}) });
        expect(r.nextCursor !== null).toBe(r.hasMore);
        return { rows: r.payments as Record<string, unknown>[], next: r.nextCursor };
      })
    ).map(paymentKey);
    expect(tools).toEqual(reference);
  });
});

describe('ledger history', () => {
  it('POST /info userNonFundingLedgerUpdates pages every update once, rows of one key on one page', async () => {
    for (const limit of [1, 7, 500]) {
      const sizes: number[] = [];
      const rows = await pageAll(async (cursor) => {
        const page = restPage(
          await info({ type: 'userNonFundingLedgerUpdates', user: ALICE, limit, ...(cursor ? { cursor } : {}) }),
        );
        sizes.push(page.rows.length);
        return page;
      });
      const keys = rows.map(updateKey);
      expect([...keys].sort(), `limit ${limit}`).toEqual([...updates].sort());
      expect(newestFirst(byTime(keys))).toBe(true);
      // limit 1: each page holds one update, or both rows of an update the node wrote twice.
      if (limit === 1) expect(sizes.filter((n) => n === 2)).toHaveLength(Math.ceil(MINUTES / 50));
      if (limit === 1) expect(sizes.every((n) => n === 1 || n === 2)).toBe(true);
    }
  });

  it('pages oldest first in a window, and GraphQL and MCP page the same updates', async () => {
    const reference = (
      await pageAll(async (c) =>
        restPage(
          await info({ type: 'userNonFundingLedgerUpdates', user: ALICE, limit: 61, ...(c ? { cursor: c } : {}) }),
        ),
      )
    ).map(updateKey);
    const windowed = (
      await pageAll(async (c) =>
        restPage(
          await info({
            type: 'userNonFundingLedgerUpdates',
            user: ALICE,
            startTime: 0,
            endTime: null,
            ...(c ? { cursor: c } : {}),
          }),
        ),
      )
    ).map(updateKey);
    expect(windowed).toEqual([...reference].reverse());
    const query = `query ($user: String!, $after: String) { user(address: $user) {
      ledgerUpdates(first: 150, after: $after) { edges { node { time hash delta } } pageInfo { hasNextPage endCursor } }
    } }`;
    const graphql = (
      await pageAll(async (after) => {
        const c = (await gql(query, { user: ALICE, after })).data.user.ledgerUpdates;
        return {
          rows: c.edges.map((e: { node: unknown }) => e.node),
          next: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null,
        };
      })
    ).map(updateKey);
    expect(graphql).toEqual(reference);
    const tools = (
      await pageAll(async (cursor) => {
        const r = await tool('accounts_ledger_updates', { user: ALICE, limit: 500, ...(cursor ? { cursor } : {}) });
        return { rows: r.updates as Record<string, unknown>[], next: r.nextCursor };
      })
    ).map(updateKey);
    expect(tools).toEqual(reference);
  });
});

describe('limits', () => {
  it('takes 1 and 500 and refuses 0 and 501 naming limit, on /info and the path route; first on GraphQL', async () => {
    for (const type of ['userFunding', 'accountFunding', 'userNonFundingLedgerUpdates']) {
      for (const limit of [1, 500]) expect((await info({ type, user: ALICE, limit })).body).toHaveLength(limit);
      for (const limit of [0, 501, 1.5]) {
        const r = await info({ type, user: ALICE, limit });
        expect(r.status).toBe(400);
        expect(r.body.error).toBe(`limit: must be an integer from 1 to 500, got ${limit}`);
      }
    }
    for (const limit of [1, 500])
      expect((await get(`/funding/userFunding?user=${ALICE}&limit=${limit}`)).body).toHaveLength(limit);
    for (const limit of [0, 501]) {
      const r = await get(`/funding/userFunding?user=${ALICE}&limit=${limit}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/limit/);
    }
    for (const field of ['fundings', 'ledgerUpdates']) {
      for (const first of [0, 501]) {
        const answer = await gql(
          `{ user(address: "${ALICE}") { ${field}(first: ${first}) { edges { cursor } } } }`,
          {},
        );
        expect(answer.errors?.[0]?.message).toBe(`first: must be an integer from 1 to 500, got ${first}`);
      }
    }
  });

  it('takes limit 1 to 500 on the MCP tools and refuses 0 and 501 naming it', async () => {
    for (const [name, key] of [
      ['accounts_funding_payments', 'payments'],
      ['accounts_ledger_updates', 'updates'],
    ] as const) {
      for (const limit of [1, 500]) expect((await tool(name, { user: ALICE, limit }))[key]).toHaveLength(limit);
      for (const limit of [0, 501]) await expect(tool(name, { user: ALICE, limit })).rejects.toThrow(/limit/);
    }
  });

  it('refuses a cursor it did not give, naming it, on every interface', async () => {
    const r = await info({ type: 'userFunding', user: ALICE, cursor: 'yesterday' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^cursor: must be "<time>:<block>:<coin>"/);
    const path = await get(`/funding/userFunding?user=${ALICE}&cursor=1:2`);
    expect(path.status).toBe(400);
    const answer = await gql(`{ user(address: "${ALICE}") { ledgerUpdates(after: "x") { edges { cursor } } } }`, {});
    expect(answer.errors?.[0]?.message).toMatch(/^after: must be/);
    await expect(tool('accounts_funding_payments', { user: ALICE, cursor: 'x' })).rejects.toThrow(/cursor: must be/);
  });
});
