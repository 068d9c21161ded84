// Generated bad input at every door of the service (issue 16, item 6): malformed requests over every /info type
// (INFO_TYPES), every path route (fastify's own route table), every /ws post and subscription type (the channel
// tables) and every GraphQL argument (the subgraph schemas). Wrong types, missing fields, huge, negative and
// > 2^64 numbers, NUL bytes and odd unicode, bad addresses, reversed windows, oversized bodies, invalid JSON,
// wrong content types, bad percent-encoding, over-long path parameters. Nothing may answer 5xx; every 4xx is
// the error body `{"error", "code", "msg"}`, and a 400 names the field; GraphQL refusals are errors with messages, never internal ones.
// The requests are drawn by fast-check from a fixed seed (FUZZ_SEED overrides it), printed with any failure.
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCompatApp } from '../compat-rest/app.ts';
import { INFO_TYPES } from '../compat-rest/info/index.ts';
import { domainChannels } from '../compat-rest/server.ts';
import { DOMAIN_LIST } from '../domains.ts';
import {
  checkRest,
  type Failure,
  inBatches,
  namedField,
  rawHttp,
  report,
  SEED,
  sentKeys,
  short,
  sleep,
} from './fuzz/checks.ts';
import { type GraphQLTarget, graphqlTargets } from './fuzz/graphql-requests.ts';
import {
  badWindow,
  contentTypes,
  encode,
  HOUR,
  hostileWsFrame,
  nasty,
  now,
  queryWindow,
  rawInfoCase,
  rawUrlPiece,
} from './fuzz/values.ts';
import { graphqlWsClient } from './graphql.ts';
import { type FrozenTestStack, startFrozenStack } from './stack.ts';
import { openSocket } from './ws-client.ts';

/** 10 400 requests in all. */
const RUNS = { info: 5500, paths: 2200, ws: 1000, graphql: 1000, subscriptions: 400, http: 300 };

let stack: FrozenTestStack;
let app: FastifyInstance;
let user = '';

beforeAll(async () => {
  stack = await startFrozenStack({ historyMs: 15 * 60_000 });
  const { rows } = await stack.db.pool.query('SELECT address FROM accounts.fills ORDER BY time DESC LIMIT 1');
  user = rows[0].address;
  // The same app the server runs, answered in-process: thousands of requests in seconds.
  app = await buildCompatApp({
    services: stack.compatServices,
    auth: stack.auth,
    log: () => {},
  });
  await app.ready();
  await probeReads();
  expect(reads.get('candleSnapshot')).toContain('req');
}, 120_000);
afterAll(async () => {
  await app?.close();
  await stack?.close();
});

// ---- the /info vocabulary: every field some type reads, each with a value that type accepts ----

const goodInfoFields = () => ({
  user,
  users: [user],
  coin: 'BTC',
  coins: ['BTC', 'ETH'],
  dex: '',
  req: { coin: 'BTC', interval: '1m', startTime: now - HOUR, endTime: now },
  interval: '1h',
  startTime: now - HOUR,
  endTime: now,
  limit: 10,
  order: 'desc',
  side: 'B',
  nSigFigs: 5,
  mantissa: 2,
  token: 0,
  id: 1,
  oid: 1,
  twapId: 1,
  lookbackDays: 1,
  aggregateByTime: false,
  includeOrderType: true,
  include_order_type: false,
  dataset: 'trades',
  // Fields of the types relayed to the node (its answer to them is the simulated node's, or its refusal).
  builder: user,
  source: user,
  vaultAddress: user,
  tokenId: `0x${'0f'.repeat(16)}`,
  outcome: 1,
});
const INFO_FIELDS = [...Object.keys(goodInfoFields()), 'cursor', 'cloid', 'reversed'];
const INFO_TYPE_NAMES = Object.keys(INFO_TYPES);
const SCHEMAS = DOMAIN_LIST.map((d) => d.schema);
/**
 * What a 400 to an /info body may name: a field of the vocabulary (or one inside it), the type, the body, and
 * `__proto__`, which a raw body sends as a field (refused as an unknown parameter).
 */
const INFO_FIELD_NAMES: ReadonlySet<string> = new Set([...INFO_FIELDS, 'type', 'body', '__proto__']);

interface InfoCase {
  type: unknown;
  overrides: Record<string, unknown>;
  drops: string[];
  req: Record<string, unknown>;
  window: Record<string, number> | null;
}

/**
 * The fields each /info type reads, learnt in beforeAll by sending its good body with one field at a time made
 * wrong (a type added later is probed like the others): most generated bodies break those, so that a type's own
 * fields get thousands of bad values between them rather than a few.
 */
const reads = new Map<string, string[]>();

/**
 * The good fields each /info type takes: a field a type does not take is refused (`<field>: unknown parameter`), so
 * each type's good body is goodInfoFields without those, learnt by dropping each field it refuses as unknown.
 */
const takes = new Map<string, string[]>();

/** goodInfoFields as `type` takes them (all of them for a type that is none). */
function goodFieldsOf(type: unknown): Record<string, unknown> {
  const good: Record<string, unknown> = goodInfoFields();
  const own = typeof type === 'string' ? takes.get(type) : undefined;
  return own ? Object.fromEntries(own.map((f) => [f, good[f]])) : good;
}

const UNKNOWN = /^([\w.[\]]+): unknown parameter/;

async function probeReads(): Promise<void> {
  await Promise.all(
    INFO_TYPE_NAMES.map(async (type) => {
      const body: Record<string, unknown> = goodInfoFields();
      for (let i = 0; i < INFO_FIELDS.length; i++) {
        const res = await app.inject({ method: 'POST', url: '/info', payload: { ...body, type } });
        const unknown = res.statusCode === 400 ? UNKNOWN.exec(String(JSON.parse(res.body).error)) : null;
        if (!unknown) break;
        delete body[unknown[1] as string];
      }
      takes.set(type, Object.keys(body));
      const fields: string[] = [];
      for (const field of INFO_FIELDS) {
        const payload = { ...goodFieldsOf(type), type, [field]: [{}] };
        const res = await app.inject({ method: 'POST', url: '/info', payload });
        const error = res.statusCode === 400 ? String(JSON.parse(res.body).error) : '';
        if (namedField(error) === field && !UNKNOWN.test(error)) fields.push(field);
      }
      reads.set(type, fields);
    }),
  );
}

function infoCaseArb(): fc.Arbitrary<InfoCase> {
  const type = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...INFO_TYPE_NAMES) },
    { weight: 1, arbitrary: nasty },
  );
  return type.chain((t) => {
    const own = reads.get(t as string) ?? [];
    const field = own.length
      ? fc.oneof(
          // Any field of the vocabulary now and then: one the type does not take is an unknown parameter.
          { weight: 8, arbitrary: fc.constantFrom(...own) },
          { weight: 1, arbitrary: fc.constantFrom(...INFO_FIELDS) },
        )
      : fc.constantFrom(...INFO_FIELDS);
    return fc.record({
      type: fc.constant(t),
      overrides: fc.array(fc.tuple(field, nasty), { maxLength: 3 }).map((pairs) => Object.fromEntries(pairs)),
      drops: fc.subarray(INFO_FIELDS, { maxLength: 5 }),
      req: fc.dictionary(fc.constantFrom('coin', 'interval', 'startTime', 'endTime'), nasty, { maxKeys: 2 }),
      window: fc.option(badWindow, { freq: 6 }),
    });
  });
}

/** An /info type for a failure's group: a generated non-string type is one group. */
const typeLabel = (type: unknown) => (typeof type === 'string' ? type.slice(0, 30) : '(not a string)');

function infoBody(c: InfoCase): Record<string, unknown> {
  // The type's own good fields, and the bad window and `req` where it takes them.
  const good = goodFieldsOf(c.type);
  const window = Object.entries(c.window ?? {}).filter(([f]) => f in good);
  const body: Record<string, unknown> = { type: c.type, ...good, ...Object.fromEntries(window) };
  if ('req' in body) body.req = { ...(body.req as object), ...c.req };
  for (const f of c.drops) delete body[f];
  return { ...body, ...c.overrides };
}

// ---- path routes: fastify's own table ----

/** Every GET/POST route of the app, read from fastify's route tree (routes added later are covered too). */
function registeredRoutes(instance: FastifyInstance): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stackOfPrefixes: string[] = [];
  for (const line of instance.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stackOfPrefixes.length = depth;
    const path = (stackOfPrefixes[depth - 1] ?? '') + (m[2] as string);
    stackOfPrefixes[depth] = path;
    for (const param of path.matchAll(/:(\w+)/g)) PATH_FIELD_NAMES.add(param[1] as string);
    for (const method of (m[3] ?? '').split(', ')) {
      if ((method === 'GET' || method === 'POST') && !path.includes('*')) routes.push({ method, path });
    }
  }
  return routes;
}

const goodParam = (name: string) => (/user/.test(name) ? user : 'BTC');
const paramValue = (name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(goodParam(name)) },
    {
      weight: 3,
      arbitrary: nasty.map((v) => encode(String(typeof v === 'object' ? JSON.stringify(v) : v)).slice(0, 400) || '%20'),
    },
    { weight: 2, arbitrary: rawUrlPiece },
  );

const goodQuery = (): Record<string, string> => ({
  start_time: new Date(now - HOUR).toISOString(),
  end_time: new Date(now).toISOString().slice(0, 19),
  limit: '10',
  user,
  coin: 'BTC',
  side: 'B',
  order: 'desc',
  include_order_type: 'true',
  dex_id: 'xyz',
  startTime: String(now - HOUR),
  endTime: String(now),
});
const QUERY_NAMES = [...Object.keys(goodQuery()), 'cursor', 'offset'];
/** What a 400 to a path route may name: a query parameter, a path parameter (added as routes are read), the URL. */
const PATH_FIELD_NAMES = new Set([...QUERY_NAMES, 'path', 'url']);
const queryValue = fc.oneof(
  {
    weight: 4,
    arbitrary: nasty.map((v) => encode(String(typeof v === 'object' ? JSON.stringify(v) : v)).slice(0, 2000)),
  },
  { weight: 1, arbitrary: rawUrlPiece },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '1'.repeat(25),
      '-1',
      '0',
      '1.5',
      '9007199254740993',
      '2026-11-22T10:00:00',
      String(now + 1e12),
    ),
  },
);

interface PathCase {
  route: number;
  method: string;
  params: string[];
  window: Record<string, string> | null;
  overrides: Record<string, string>;
  drops: string[];
  extra: string[];
  suffix: string;
}

// ---- the suites ----

describe(`bad input (FUZZ_SEED=${SEED})`, () => {
  it('POST /info: every type, malformed fields and bodies', async () => {
    const cases = fc.sample(
      fc.oneof(
        {
          weight: 9,
          arbitrary: infoCaseArb().map((c) => ({
            payload: JSON.stringify(infoBody(c)),
            type: 'application/json' as string | undefined,
            group: `type ${typeLabel(c.type)}`,
          })),
        },
        {
          weight: 1,
          arbitrary: fc
            .record({ payload: rawInfoCase.map((s) => s.replace('USER', user)), type: contentTypes })
            .map((c) => ({ ...c, group: `raw body ${c.type}` })),
        },
      ),
      { seed: SEED, numRuns: RUNS.info },
    );
    const failures: Failure[] = [];
    let ok = 0;
    await inBatches(cases, 8, async (c) => {
      const res = await app.inject({
        method: 'POST',
        url: '/info',
        payload: c.payload,
        headers: c.type === undefined ? {} : { 'content-type': c.type },
      });
      // A body the simulated node refuses (a relayed type it does not serve) got past validation to the node read.
      if (res.statusCode === 200 || res.body.startsWith('{"error":"body: refused by the node')) ok++;
      const what = `POST /info ${short(c.payload)}`;
      checkRest({ status: res.statusCode, text: res.body }, what, c.group, INFO_FIELD_NAMES, failures);
    });
    report('/info', failures);
    // The generated bodies get past validation often enough to reach the handlers' storage and node reads.
    expect(ok).toBeGreaterThan(RUNS.info / 5);
  });

  it('path routes: every registered route, malformed params, query strings and URLs', async () => {
    const routes = registeredRoutes(app).filter((r) => r.path !== '/info');
    expect(routes.map((r) => r.path)).toContain('/fills/user/:user_address');
    const cases = fc.sample(
      fc
        .record({
          route: fc.nat(routes.length - 1),
          method: fc.oneof(
            { weight: 12, arbitrary: fc.constant('GET') },
            { weight: 1, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'HEAD') },
          ),
          params: fc.constant([] as string[]),
          overrides: fc.dictionary(fc.constantFrom(...QUERY_NAMES), queryValue, { maxKeys: 3 }),
          drops: fc.subarray(QUERY_NAMES, { maxLength: 6 }),
          extra: fc.array(fc.constantFrom('limit=1', 'coin=ETH', '%ZZ=1', 'a=%', '&&', '=', 'limit'), { maxLength: 2 }),
          suffix: fc.constantFrom('', '', '', '/', '//', '/extra', '%', '?'),
          window: fc.option(queryWindow, { freq: 4 }),
        })
        .chain((c) => {
          const names = [...(routes[c.route]?.path.matchAll(/:(\w+)/g) ?? [])].map((m) => m[1] as string);
          return fc.tuple(...names.map(paramValue)).map((params): PathCase => ({ ...c, params }));
        }),
      { seed: SEED + 1, numRuns: RUNS.paths },
    );
    const failures: Failure[] = [];
    await inBatches(cases, 8, async (c) => {
      const url = pathCaseUrl(routes, c);
      const route = routes[c.route] as { path: string };
      const res = await app.inject({ method: c.method as 'GET', url });
      const answer = { status: res.statusCode, text: res.body, head: c.method === 'HEAD' };
      const fields = new Set([...PATH_FIELD_NAMES, ...sentKeys(url)]);
      checkRest(answer, `${c.method} ${short(url)}`, `${c.method} ${route.path}`, fields, failures);
    });
    report('path routes', failures);
  });

  it('/ws: every post type and subscription type, malformed frames', async () => {
    const channelTypes = domainChannels(stack.compatServices).map((ch) => ch.type);
    const goodSub = () => ({ coin: 'BTC', user, interval: '1m', dex: '', nSigFigs: 5, aggregateByTime: false });
    const SUB_FIELDS = [...Object.keys(goodSub()), 'mantissa', 'users', 'amount_dollars', 'builder', 'type'];
    const frames = fc.sample(
      fc.oneof(
        {
          weight: 5,
          arbitrary: fc
            .record({
              type: fc.constantFrom(...channelTypes),
              overrides: fc.dictionary(fc.constantFrom(...SUB_FIELDS), nasty, { minKeys: 1, maxKeys: 2 }),
            })
            .map(({ type, overrides }) => ({
              kind: 'subscribe' as const,
              text: JSON.stringify({ method: 'subscribe', subscription: { type, ...goodSub(), ...overrides } }),
            })),
        },
        { weight: 5, arbitrary: infoCaseArb().map((c) => ({ kind: 'post' as const, payload: infoBody(c) })) },
        {
          weight: 1,
          arbitrary: fc
            .record({ id: nasty, request: nasty })
            .map((r) => ({ kind: 'raw' as const, text: JSON.stringify({ method: 'post', ...r }) })),
        },
        { weight: 1, arbitrary: hostileWsFrame.map((text) => ({ kind: 'raw' as const, text })) },
        {
          weight: 1,
          arbitrary: fc
            .oneof(
              rawInfoCase.filter((s) => s.length < 100_000),
              fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify({ method: v, subscription: v })),
            )
            .map((text) => ({ kind: 'raw' as const, text })),
        },
      ),
      { seed: SEED + 2, numRuns: RUNS.ws },
    );
    const failures: Failure[] = [];
    const ws = await openSocket(stack.urls.ws);
    let id = 0;
    let sent = '';
    // Every frame read on the way, awaited or not, is checked: a subscription acked and then failed to start
    // reports it later, on channel "error". A frame that gets no answer within 10 s fails the run.
    // biome-ignore lint/suspicious/noExplicitAny: frames are checked field by field
    const until = async (done: (m: any) => boolean): Promise<any> => {
      for (;;) {
        const m = (await Promise.race([ws.next(), sleep(10_000).then(() => null)])) as {
          channel: string;
          data: unknown;
        } | null;
        if (m === null) throw new Error(`no answer within 10 s to ${short(sent)} (FUZZ_SEED=${SEED})`);
        if (m.channel === 'error' && /internal error|^5\d\d /.test(String(m.data))) {
          failures.push({ group: `internal ${sent.slice(0, 40)}`, line: `${short(sent)} → ${short(String(m.data))}` });
        }
        if (done(m)) return m;
      }
    };
    const isError = (m: { channel: string }) => m.channel === 'error';
    for (const f of frames) {
      if (f.kind === 'post') {
        const postId = ++id;
        sent = JSON.stringify({ method: 'post', id: postId, request: { type: 'info', payload: f.payload } });
        ws.sendRaw(sent);
        const m = await until((m) => (m.channel === 'post' && m.data.id === postId) || isError(m));
        const response = m.channel === 'post' ? m.data.response : { type: 'error', payload: m.data };
        const what = `post ${short(JSON.stringify(f.payload))} → ${short(JSON.stringify(response))}`;
        if (response.type === 'error') {
          const [, status, message] = /^(\d{3}) (.*)$/s.exec(String(response.payload)) ?? [];
          const group = `post ${typeLabel(f.payload.type)}`;
          if (!status || Number(status) >= 500) failures.push({ group: `5xx ${group}`, line: what });
          else if (status === '400' && !INFO_FIELD_NAMES.has(namedField(message as string) ?? '')) {
            failures.push({ group: `400 names no field ${group}`, line: what });
          }
        }
        continue;
      }
      // A subscription or a raw frame: the next ack or error frame answers it (data frames of earlier
      // subscriptions may come first; each accepted subscription is dropped at once).
      sent = f.text;
      ws.sendRaw(sent);
      const m = await until(
        (m) => m.channel === 'subscriptionResponse' || isError(m) || m.channel === 'post' || m.channel === 'pong',
      );
      if (m.channel === 'subscriptionResponse' && m.data.method === 'subscribe') {
        // Answered by its ack, or by "Already unsubscribed" when its start failed meanwhile (that failure's own
        // error frame, which may come first, is checked on the way).
        sent = JSON.stringify({ method: 'unsubscribe', subscription: m.data.subscription });
        ws.sendRaw(sent);
        await until(
          (u) =>
            (u.channel === 'subscriptionResponse' && u.data.method === 'unsubscribe') ||
            (isError(u) && String(u.data).startsWith('Already unsubscribed')),
        );
      }
    }
    // The connection survived all of it.
    ws.send({ method: 'ping' });
    await until((m) => m.channel === 'pong');
    ws.close();
    report('/ws', failures);
  });

  it('GraphQL: every argument of every root field and of the fields below them', async () => {
    const fields = graphqlTargets(SCHEMAS, 'query', user);
    expect(fields.length).toBeGreaterThan(5);
    const cases = fc.sample(
      fc.nat(fields.length - 1).chain((i) => (fields[i] as GraphQLTarget).arbitrary),
      { seed: SEED + 3, numRuns: RUNS.graphql },
    );
    const failures: Failure[] = [];
    await inBatches(cases, 6, async (c) => {
      const res = await fetch(stack.urls.router, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
        body: JSON.stringify({ query: c.query, variables: c.variables }),
      });
      const text = await res.text();
      const what = `${short(JSON.stringify({ query: c.query, variables: c.variables }))} → ${res.status} ${short(text)}`;
      const fail = (why: string) => failures.push({ group: `${why} ${c.group}`, line: `${why}: ${what}` });
      if (res.status >= 500) return void fail('5xx');
      let answer: { data?: unknown; errors?: { message?: unknown; extensions?: { code?: string } }[] };
      try {
        answer = JSON.parse(text);
      } catch {
        return void fail('not JSON');
      }
      for (const e of answer.errors ?? []) {
        if (typeof e.message !== 'string' || e.message === '') fail('error without a message');
        else if (e.extensions?.code === 'INTERNAL_SERVER_ERROR' || /unexpected error/i.test(e.message)) {
          fail('internal error');
        } else if (e.extensions?.code === 'BAD_USER_INPUT' && !c.args.some((a) => (e.message as string).includes(a))) {
          fail('BAD_USER_INPUT names no argument');
        }
      }
      if (res.status >= 400 && !answer.errors?.length) fail('4xx without errors');
    });
    report('GraphQL', failures);
  });

  it('GraphQL subscriptions over graphql-ws: every argument of every subscription field', async () => {
    const targets = graphqlTargets(SCHEMAS, 'subscription', user);
    expect(targets.length).toBeGreaterThan(5);
    const cases = fc.sample(
      fc.nat(targets.length - 1).chain((i) => (targets[i] as GraphQLTarget).arbitrary),
      { seed: SEED + 5, numRuns: RUNS.subscriptions },
    );
    const client = graphqlWsClient(stack.urls.router, { lazy: true });
    const failures: Failure[] = [];
    // A subscription that is accepted may stay quiet: its first frame is awaited briefly, then it is dropped.
    await inBatches(cases, 40, async (c) => {
      const outcome = await new Promise<unknown>((resolve) => {
        const timer = setTimeout(() => {
          dispose();
          resolve(null);
        }, 300);
        const settle = (value: unknown) => {
          clearTimeout(timer);
          dispose();
          resolve(value);
        };
        const dispose = client.subscribe(
          { query: c.query, variables: c.variables },
          { next: (frame) => settle(frame), error: (err) => settle({ errors: err }), complete: () => settle(null) },
        );
      });
      const what = `${short(JSON.stringify({ query: c.query, variables: c.variables }))} → ${short(JSON.stringify(outcome) ?? '')}`;
      const fail = (why: string) => failures.push({ group: `${why} ${c.group}`, line: `${why}: ${what}` });
      const errors = (outcome as { errors?: unknown } | null)?.errors;
      if (errors === undefined) return;
      if (!Array.isArray(errors)) return void fail('not a GraphQL error (socket closed?)');
      for (const e of errors as { message?: unknown; extensions?: { code?: string } }[]) {
        if (typeof e.message !== 'string' || e.message === '') fail('error without a message');
        else if (e.extensions?.code === 'INTERNAL_SERVER_ERROR' || /unexpected error/i.test(e.message)) {
          fail('internal error');
        } else if (e.extensions?.code === 'BAD_USER_INPUT' && !c.args.some((a) => (e.message as string).includes(a))) {
          fail('BAD_USER_INPUT names no argument');
        }
      }
    });
    await client.dispose();
    report('GraphQL subscriptions', failures);
  });

  it('real HTTP: a sample of the same requests, raw URLs included', async () => {
    const { hostname, port } = new URL(stack.urls.compat);
    const routes = registeredRoutes(app).filter((r) => r.path !== '/info');
    const cases = fc.sample(
      fc.oneof(
        infoCaseArb().map((c) => ({
          method: 'POST',
          path: '/info',
          body: JSON.stringify(infoBody(c)),
          group: `/info ${typeLabel(c.type)}`,
        })),
        fc
          .record({
            route: fc.nat(routes.length - 1),
            piece: rawUrlPiece,
            query: fc.constantFrom(
              '',
              '?limit=%ZZ',
              '?start_time=1e999',
              `?start_time=${'9'.repeat(30)}`,
              '?coin=%00',
              '?user=%FF',
            ),
          })
          .map((c) => ({
            method: 'GET',
            path: (routes[c.route] as { path: string }).path.replace(/:\w+/g, c.piece) + c.query,
            body: '',
            group: (routes[c.route] as { path: string }).path,
          })),
      ),
      { seed: SEED + 4, numRuns: RUNS.http },
    );
    const failures: Failure[] = [];
    await inBatches(cases, 4, async (c) => {
      const answer = await rawHttp(hostname, Number(port), c.method, c.path, c.body);
      const fields = c.method === 'POST' ? INFO_FIELD_NAMES : PATH_FIELD_NAMES;
      checkRest(answer, `${c.method} ${short(c.path)} ${short(c.body)}`, `${c.method} ${c.group}`, fields, failures);
    });
    report('HTTP', failures);
  });
});

function pathCaseUrl(routes: { path: string }[], c: PathCase): string {
  let i = 0;
  const path = (routes[c.route] as { path: string }).path.replace(/:\w+/g, () => c.params[i++] ?? 'BTC');
  const query: Record<string, string> = { ...goodQuery() };
  for (const [k, v] of Object.entries(query)) query[k] = encode(v);
  for (const d of c.drops) delete query[d];
  Object.assign(query, c.overrides, c.window);
  const parts = [...Object.entries(query).map(([k, v]) => `${k}=${v}`), ...c.extra];
  return `${path}${c.suffix}?${parts.join('&')}`;
}
