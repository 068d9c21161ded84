// GraphQL charges what it serves (issue 29): through the real router and compat REST on ephemeral ports, with a key
// that has credits, each operation the issue found under-charged costs exactly what REST charges for the same rows,
// read from the key's credits in Postgres; refused input costs nothing, and 501 wallets is a 400, not a 402.
import {
  buildASTSchema,
  type GraphQLField,
  getNamedType,
  getNullableType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  parse,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { DOMAIN_LIST } from '../domains.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { startStackWithoutNode } from '../test/stack.ts';
import { composeSupergraph } from './compose.ts';

let db: TestDatabase;
let stack: Stack;

beforeAll(async () => {
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

async function newKey(credits: number) {
  const { key, record } = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000, credits });
  stack.auth.invalidate();
  return { key, id: record.id };
}

const creditsLeft = async (id: number) =>
  Number((await db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [id])).rows[0].credits);

/** The credits `run` takes from the key. */
async function charged(id: number, run: () => Promise<unknown>): Promise<number> {
  return (await chargedFor(id, run)).credits;
}

/** The credits `run` takes from the key, and its answer. */
async function chargedFor<T>(id: number, run: () => Promise<T>): Promise<{ credits: number; answer: T }> {
  const before = await creditsLeft(id);
  const answer = await run();
  return { credits: before - (await creditsLeft(id)), answer };
}

const wallets = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `0x${(from + i).toString(16).padStart(40, '0')}`);

async function graphql(key: string, query: string, variables?: Record<string, unknown>) {
  const res = await fetch(stack.urls.router, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(variables ? { query, variables } : { query }),
  });
  return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { message: string }[] } };
}

async function rest(key: string, path: string, body: unknown) {
  const res = await fetch(`${stack.urls.compat}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** Answered without errors. */
const ok = async (answer: Promise<{ status: number; body: unknown }>) => {
  const { status, body } = await answer;
  expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
  expect((body as { errors?: unknown }).errors).toBeUndefined();
};

describe('GraphQL charges what REST charges for the same rows', () => {
  it('batchPerformance from a variable default of 500 addresses, sent without variables: 1 500, as REST', async () => {
    const { key, id } = await newKey(10_000);
    const list = JSON.stringify(wallets(500));
    const query = `query($a: [String!] = ${list}) { batchPerformance(addresses: $a) { address } }`;
    const viaGraphql = await charged(id, () => ok(graphql(key, query)));
    const viaRest = await charged(id, () => ok(rest(key, '/users/batch/performance', { addresses: wallets(500) })));
    expect(viaGraphql).toBe(1500);
    expect(viaRest).toBe(1500);
  });

  it('20 aliased builders spreading a fragment of externalActivity(100 wallets): 6 000, as 20 REST calls', async () => {
    const { key, id } = await newKey(20_000);
    const builders = wallets(20, 0x1000);
    const aliases = builders.map((b, i) => `b${i}: builder(address: "${b}") { ...A }`);
    const query = `{ ${aliases.join(' ')} }
      fragment A on Builder { externalActivity(addresses: ${JSON.stringify(wallets(100))}) { timeframe } }`;
    const viaGraphql = await charged(id, () => ok(graphql(key, query)));
    const viaRest = await charged(id, async () => {
      for (const b of builders) await ok(rest(key, `/builders/${b}/external-activity`, { addresses: wallets(100) }));
    });
    expect(viaGraphql).toBe(6000);
    expect(viaRest).toBe(6000);
  });

  it('a single address coerced to a list of one: 3, as REST', async () => {
    const { key, id } = await newKey(100);
    const query = 'query($a: [String!]!) { batchPerformance(addresses: $a) { address } }';
    const viaGraphql = await charged(id, () => ok(graphql(key, query, { a: wallets(1)[0] })));
    const viaRest = await charged(id, () => ok(rest(key, '/users/batch/performance', { addresses: wallets(1) })));
    expect(viaGraphql).toBe(3);
    expect(viaRest).toBe(3);
  });

  it('60 aliases of user.fills(first: 2000): 60, as 60 userFills calls', async () => {
    const { key, id } = await newKey(1_000);
    const users = wallets(60, 0x2000);
    const aliases = users.map(
      (u, i) => `u${i}: user(address: "${u}") { fills(first: 2000) { edges { node { px } } } }`,
    );
    const viaGraphql = await charged(id, () => ok(graphql(key, `{ ${aliases.join(' ')} }`)));
    const viaRest = await charged(id, async () => {
      for (const user of users) await ok(rest(key, '/info', { type: 'userFills', user }));
    });
    expect(viaGraphql).toBe(60);
    expect(viaRest).toBe(60);
  });

  it('a page below a list once per element its @listSize allows: trades(limit: 50) × 2 users × their fills', async () => {
    const { key, id } = await newKey(1_000);
    const query = `{ market(coin: "BTC") { trades(limit: 50) { users { fills(first: 10) { edges { node { px } } } } } } }`;
    // REST: one recentTrades call, then one userFills call per user of each of the 50 trades.
    expect(await charged(id, () => graphql(key, query))).toBe(1 + 50 * 2);
  });
});

describe('refused input costs nothing', () => {
  it('batchPerformance of no wallet, or of 501: 400 naming the field and the bound, 0 charged, as REST', async () => {
    // Ten credits: a 501-wallet batch would be a 402 if it were priced before being checked.
    const { key, id } = await newKey(10);
    for (const n of [0, 501]) {
      const query = `{ batchPerformance(addresses: ${JSON.stringify(wallets(n))}) { address } }`;
      const viaGraphql = await chargedFor(id, () => graphql(key, query));
      expect(viaGraphql.credits).toBe(0);
      expect(viaGraphql.answer.status).toBe(400);
      expect(viaGraphql.answer.body.errors?.[0]?.message).toBe(
        `batchPerformance(addresses): must hold 1 to 500 addresses, got ${n}`,
      );
      const viaRest = await chargedFor(id, () => rest(key, '/users/batch/performance', { addresses: wallets(n) }));
      expect(viaRest.credits).toBe(0);
      expect(viaRest.answer.status).toBe(400);
    }
    const nested = `{ builder(address: "${wallets(1)[0]}") {
      externalActivity(addresses: ${JSON.stringify(wallets(501))}) { timeframe } } }`;
    const { credits, answer } = await chargedFor(id, () => graphql(key, nested));
    expect(credits).toBe(0);
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.message).toBe('externalActivity(addresses): must hold 1 to 500 addresses, got 501');
  });

  it('variables that do not coerce, and an invalid operation: 0 charged', async () => {
    const { key, id } = await newKey(10);
    const query = 'query($a: [String!]!) { batchPerformance(addresses: $a) { address } }';
    for (const [q, variables] of [
      [query, { a: 5 }],
      ['{ allMids { nope } }', undefined],
    ] as const) {
      const { credits, answer } = await chargedFor(id, () => graphql(key, q, variables));
      expect(credits).toBe(0);
      expect(answer.body.errors?.length).toBeGreaterThan(0);
    }
    // And a valid operation still costs its one credit.
    expect(await charged(id, () => ok(graphql(key, '{ allMids { coin } }')))).toBe(1);
  });
});

describe('the supergraph declares what pricing multiplies by', () => {
  it('every list whose elements can reach a call (a field taking arguments) declares its size', () => {
    const sdl = composeSupergraph(DOMAIN_LIST.map((d) => ({ name: d.name, url: 'http://unused', schema: d.schema })));
    const schema = buildASTSchema(parse(sdl), { assumeValidSDL: true });
    const listSize = (f: GraphQLField<unknown, unknown>) =>
      f.astNode?.directives?.find((d) => d.name.value === 'listSize');
    const objects = Object.values(schema.getTypeMap()).filter(
      (t) => (isObjectType(t) || isInterfaceType(t)) && !t.name.startsWith('__'),
    ) as { name: string; getFields(): Record<string, GraphQLField<unknown, unknown>> }[];
    // Fields a page sizes from its own @listSize (`edges`, `nodes`, `rows`), and the lists a batch field's wallet
    // count sizes (router/credits.ts).
    const sized = new Set(['ExternalActivity.wallets']);
    for (const t of objects) {
      for (const f of Object.values(t.getFields())) {
        const arg = listSize(f)?.arguments?.find((a) => a.name.value === 'sizedFields')?.value;
        if (arg?.kind === 'ListValue') {
          for (const v of arg.values)
            if (v.kind === 'StringValue') sized.add(`${getNamedType(f.type).name}.${v.value}`);
        }
      }
    }
    const reachesCall = new Map<string, boolean>();
    const reaches = (name: string): boolean => {
      const known = reachesCall.get(name);
      if (known !== undefined) return known;
      reachesCall.set(name, false);
      const type = schema.getType(name);
      const found =
        (isObjectType(type) || isInterfaceType(type)) &&
        Object.values(type.getFields()).some((f) => f.args.length > 0 || reaches(getNamedType(f.type).name));
      reachesCall.set(name, found);
      return found;
    };
    const unsized = objects.flatMap((t) =>
      Object.values(t.getFields())
        .filter((f) => isListType(getNullableType(f.type)) && isCompositeType(getNamedType(f.type)))
        .filter((f) => !listSize(f) && !sized.has(`${t.name}.${f.name}`) && reaches(getNamedType(f.type).name))
        .map((f) => `${t.name}.${f.name}`),
    );
    expect(unsized).toEqual([]);
  });
});
