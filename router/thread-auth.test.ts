// The router's thread checks keys and charges credits with an Authenticator of its own (router/thread.ts): what that
// design could get wrong, against two running stacks over one database (two api instances). A key revoked in this
// process is refused at the router's next request; a key running out of credits in a stream of calls over REST and
// GraphQL gets exactly its credits answered, on one instance or two; a minute's budget spent on one instance's REST is
// spent for the other's router; the router's charges count in the process's usage and metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../access/keys.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { startStackWithoutNode } from '../test/stack.ts';

let db: TestDatabase;
let a: Stack;
let b: Stack;

beforeAll(async () => {
  db = await createTestDatabase();
  [a, b] = await Promise.all([startStackWithoutNode(db.pool), startStackWithoutNode(db.pool)]);
}, 90_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await db?.drop();
});

async function newKey(opts: { credits?: number; rateLimitPerMin?: number } = {}) {
  const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000, ...opts });
  a.auth.invalidate();
  b.auth.invalidate();
  return { key, id: record.id, prefix: record.prefix };
}

const creditsLeft = async (id: number) =>
  Number((await db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [id])).rows[0].credits);

async function graphql(stack: Stack, key: string): Promise<{ status: number; error?: string }> {
  const res = await fetch(stack.urls.router, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ allMids { coin } }' }),
  });
  const body = (await res.json()) as { errors?: { message: string }[]; error?: string };
  return { status: res.status, error: body.error ?? body.errors?.[0]?.message };
}

async function rest(stack: Stack, key: string): Promise<number> {
  const res = await fetch(`${stack.urls.compat}/info`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: JSON.stringify({ type: 'allMids' }),
  });
  await res.arrayBuffer();
  return res.status;
}

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const s of statuses) counts[s] = (counts[s] ?? 0) + 1;
  return counts;
}

describe("the router thread's key checks", () => {
  it('refuses a key revoked in this process at its next request (invalidate), on both instances', async () => {
    const { key, id } = await newKey();
    expect((await graphql(a, key)).status).toBe(200);
    expect((await graphql(b, key)).status).toBe(200);
    expect(await revokeKey(db.pool, String(id))).toBe(1);
    a.auth.invalidate();
    b.auth.invalidate();
    expect(await graphql(a, key)).toEqual({ status: 401, error: 'invalid api key' });
    expect(await graphql(b, key)).toEqual({ status: 401, error: 'invalid api key' });
    expect(await rest(a, key)).toBe(401);
  });

  it('a key running out of credits mid-stream: exactly its credits answered over REST and GraphQL, in order', async () => {
    const { key, id } = await newKey({ credits: 7 });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(i % 3 === 0 ? await rest(a, key) : (await graphql(a, key)).status);
    }
    // Calls one after another: every one answered until the 7th, every one refused after it.
    expect(statuses).toEqual([...Array(7).fill(200), ...Array(5).fill(402)]);
    expect(await graphql(a, key)).toEqual({ status: 402, error: 'insufficient credits' });
    expect(await creditsLeft(id)).toBe(0);
    // The router's usage is written with the main thread's: answered and refused calls, per interface.
    await a.auth.flushUsage();
    const { rows } = await db.pool.query(
      `SELECT endpoint, requests::int, credits_used::int, refused::int FROM platform.usage
        WHERE key_id = $1 ORDER BY endpoint`,
      [id],
    );
    expect(rows).toEqual([
      { endpoint: 'graphql', requests: 4, credits_used: 4, refused: 5 },
      { endpoint: 'rest', requests: 3, credits_used: 3, refused: 1 },
    ]);
  });

  it('two instances: 15 credits and 48 simultaneous calls over both routers and both compats → exactly 15', async () => {
    const { key, id } = await newKey({ credits: 15 });
    const calls = Array.from({ length: 48 }, (_, i) => {
      const stack = i % 2 === 0 ? a : b;
      return i % 4 < 2 ? graphql(stack, key).then((r) => r.status) : rest(stack, key);
    });
    expect(tally(await Promise.all(calls))).toEqual({ 200: 15, 402: 33 });
    expect(await creditsLeft(id)).toBe(0);
  });

  it("two instances: a minute's budget spent on one's REST is spent for the other's router", async () => {
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      const { key } = await newKey({ rateLimitPerMin: 2 });
      const statuses = [await rest(a, key), (await graphql(b, key)).status, (await graphql(a, key)).status];
      const last = await graphql(b, key);
      // A minute boundary inside the calls starts a fresh window: run again.
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(statuses).toEqual([200, 200, 429]);
      expect(last).toEqual({ status: 429, error: 'rate limit exceeded: 2 requests per minute' });
      return;
    }
  });

  it("counts the router's charges in the main thread's credits metric", async () => {
    const { key } = await newKey({ credits: 10 });
    const scrape = async () => {
      const text = await (await fetch(`${a.urls.compat}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('hl_credits_charged_total{endpoint="graphql"}'));
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await scrape();
    expect((await graphql(a, key)).status).toBe(200);
    expect((await graphql(a, key)).status).toBe(200);
    // The thread tells the main one after the charge; the answer may reach the client first.
    await expect.poll(scrape).toBe(before + 2);
  });
});
