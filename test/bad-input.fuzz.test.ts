// Generated bad input at every door of the service (issue 16, item 6): malformed requests over every /info type
// (INFO_TYPES), every path route (fastify's own route table), every /ws post and subscription type (the channel
// tables) and every GraphQL argument (the subgraph schemas). Wrong types, missing fields, huge, negative and
// > 2^64 numbers, NUL bytes and odd unicode, bad addresses, reversed windows, oversized bodies, invalid JSON,
// wrong content types, bad percent-encoding, over-long path parameters. Nothing may answer 5xx; every 4xx is
// `{"error": string}`, and a 400 names the field; GraphQL refusals are errors with messages, never internal ones.
// The requests are drawn by fast-check from a fixed seed (FUZZ_SEED overrides it), printed with any failure.
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCompatApp } from '../compat-rest/app.ts';
import { INFO_TYPES } from '../compat-rest/info/index.ts';
import { domainChannels } from '../compat-rest/server.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { graphqlWsClient } from './graphql.ts';
import { startTestStack, type TestStack } from './stack.ts';
import { openSocket } from './ws-client.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 16_0607);
/** 10 400 requests in all. */
const RUNS = { info: 5500, paths: 2200, ws: 1000, graphql: 1000, subscriptions: 400, http: 300 };

let stack: TestStack;
let app: FastifyInstance;
let user = '';
const now = Date.now();
const HOUR = 3_600_000;

beforeAll(async () => {
  stack = await startTestStack({ historyMs: 15 * 60_000 });
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

// ---- values ----

const HUGE_TEXT = 'x'.repeat(10_000);

/** Numbers no field takes: negative, fractional, beyond 2^53, 2^63 and 2^64, the largest doubles. */
const badNumbers = fc.oneof(
  fc.constantFrom(0, -1, -0.5, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 64, 2 ** 70, -(2 ** 63), 1e21),
  fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true })),
);

/** Text with a NUL character: what Postgres cannot take in any text parameter. */
const nulText = fc.constantFrom('\u0000', 'BTC\u0000', '\u0000BTC', 'E\u0000TH', 'PURR/USDC\u0000', '1m\u0000');

/** Strings of the wrong shape: odd unicode, bad addresses, numbers and cursors beyond 64 bits, broken dates. */
const badStrings = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1.5',
    '1e3',
    'NaN',
    'null',
    'true',
    '\ud800',
    '\udfff\ud800',
    '\u202eCTB',
    '🚀',
    'İ',
    'ＢＴＣ',
    'B\u200bTC',
    '0x',
    '0x123',
    `0x${'g'.repeat(40)}`,
    `0x${'0'.repeat(41)}`,
    `0X${'0'.repeat(40)}`,
    `0x${'0'.repeat(32)}`,
    HUGE_TEXT,
    '99999999999999999999999',
    '18446744073709551616',
    '-9223372036854775809',
    '1:2',
    '9999999999999999:99999999999999999999',
    '1700000000000:18446744073709551616',
    '__proto__',
    '2026-13-45T99:99:99',
    '9999-12-31T23:59:59',
    '0000-01-01',
    '+275760-09-13T00:00:00Z',
    '1h',
    '1M',
    'asc ',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

/** Values of the wrong JSON type. */
const badShapes = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, {}, [], [null], [1, 2], ['BTC'], { a: { b: { c: 1 } } }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Wrong or hostile JSON values for any field. */
const nasty: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: badNumbers },
  { weight: 2, arbitrary: nulText },
  { weight: 4, arbitrary: badStrings },
  { weight: 2, arbitrary: badShapes },
);

/** A window's bounds swapped, or far outside any data. */
const badWindow = fc.constantFrom<Record<string, number>>(
  { startTime: now, endTime: now - HOUR },
  { startTime: -1, endTime: 0 },
  { startTime: Number.MAX_SAFE_INTEGER, endTime: Number.MAX_SAFE_INTEGER },
  { startTime: 0, endTime: 2 ** 64 },
  { startTime: 8.64e15 + 1 },
);

/**
 * /ws frames as text (issue 29): nesting past the depth limit (64) in a post's payload or a subscription, and
 * numbers JSON.parse turns into Infinity, -0 or a rounded value, as a post's id, a payload field or a candle time.
 */
const NUMBER_TEXTS = ['1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890', '9007199254740993'];
const hostileWsFrame = fc.oneof(
  fc
    .integer({ min: 65, max: 20_000 })
    .map(
      (n) =>
        `{"method":"post","id":1,"request":{"type":"info","payload":{"type":"l2Book","coin":${'['.repeat(n)}${']'.repeat(n)}}}}`,
    ),
  fc
    .integer({ min: 65, max: 20_000 })
    .map((n) => `{"method":"subscribe","subscription":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc
    .record({
      id: fc.constantFrom('1', ...NUMBER_TEXTS),
      value: fc.constantFrom(...NUMBER_TEXTS),
      field: fc.constantFrom('limit', 'startTime', 'endTime', 'nSigFigs', 'oid', 'lookbackDays', 'token'),
      type: fc.constantFrom(
        'candleSnapshot',
        'userFillsByTime',
        'l2Book',
        'historicalOrders',
        'orderStatus',
        'fundingHistory',
      ),
    })
    .map(
      ({ id, value, field, type }) =>
        `{"method":"post","id":${id},"request":{"type":"info","payload":{"type":"${type}","coin":"BTC","user":"0x${'1'.repeat(40)}","${field}":${value},"req":{"coin":"BTC","interval":"1m","startTime":${value}}}}}`,
    ),
  fc
    .constantFrom(...NUMBER_TEXTS)
    .map((v) => `{"method":"subscribe","subscription":{"type":"l2Book","coin":"BTC","nSigFigs":${v},"mantissa":${v}}}`),
);

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

/** Whole requests broken below the field level: the body's text and content type. */
const rawInfoCase = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '"allMids"',
    '{',
    '{"type":"allMids"',
    '{"type":"allMids"}}',
    "{'type':'allMids'}",
    '{"type":"fills","startTime":100000000000000000000000000}',
    '{"type":"historicalOrders","user":"USER","cursor":99999999999999999999999}',
    '{"type":"l2Book","coin":"BTC","nSigFigs":5e400}',
    '{"type":"trades","coin":"BTC\\u0000"}',
    '{"type":"allMids","__proto__":{"type":"x"}}',
    '{"type":"allMids","type":"meta"}',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `{"type":"allMids","pad":"${'x'.repeat((1 << 20) + 10)}"}`,
    '\u0000',
    '\ufeff{"type":"allMids"}',
  ),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
const contentTypes = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/octet-stream',
  undefined,
);

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

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as UTF-8 does). */
function encode(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Text that goes into a URL as it is: broken escapes, or too long for a path parameter. */
const rawUrlPiece = fc.constantFrom(
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4%A',
  '%C0%80',
  '%FF',
  '%00',
  'BTC%00',
  '%2F..%2F',
  'x'.repeat(300),
  '%F0%9F%9A',
);
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

/** Time bounds beyond what Postgres's bigint holds (one alone, so that the pair is not refused as reversed first). */
const queryWindow = fc.constantFrom<Record<string, string>>(
  { end_time: '1'.repeat(25) },
  { start_time: '9'.repeat(19), end_time: '9'.repeat(20) },
  { start_time: String(2 ** 53), end_time: String(2 ** 53 + 2) },
  { endTime: '1'.repeat(25) },
  { start_time: '2026-11-22T10:00:00', end_time: '2026-11-22T09:00:00' },
  { end_time: '+275760-09-13T00:00:00Z' },
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

// ---- checks ----

/** The field a 400's message names: `field: rule` (`req.coin`, `users[2]`), fastify's schema wording, or the body. */
function namedField(message: string): string | null {
  const patterns = [
    /^(?:querystring|params|body)\/(\w+) /,
    /^(?:querystring|params|body) must have required property '(\w+)'/,
    /^([A-Za-z_]\w*)(?:[.[][^\s:]*)?(?::| must | is | only )/,
    /^JSON (body) required$/,
    /^Unknown (type): /,
    // A key as the client spelt it (`?start_time` after a doubled `?`).
    /^([^\s:]+): /,
  ];
  for (const re of patterns) {
    const m = re.exec(message);
    if (m) return m[1] as string;
  }
  return null;
}

interface Failure {
  /** What kind of request and failure it is: thousands of the same bug are reported as one. */
  group: string;
  line: string;
}

/** A REST answer: no 5xx; a 4xx is exactly `{"error": string}`; a 400 names one of `fields`. */
function checkRest(
  res: { status: number; text: string; head?: boolean },
  what: string,
  group: string,
  fields: ReadonlySet<string>,
  failures: Failure[],
): void {
  const { status, text } = res;
  const fail = (why: string) =>
    failures.push({ group: `${why} ${group}`, line: `${why}: ${what} → ${status} ${short(text)}` });
  if (status >= 500) return void fail('5xx');
  if (status < 400 || res.head) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return void fail('4xx not JSON');
  }
  const error = (body as { error?: unknown })?.error;
  if (typeof error !== 'string' || Object.keys(body as object).length !== 1) {
    return void fail('4xx not {"error": string}');
  }
  const field = namedField(error);
  if (status === 400 && (field === null || !fields.has(field))) fail('400 names no field it was sent');
}

function report(name: string, failures: Failure[]): void {
  const seen = new Map<string, string>();
  for (const f of failures) if (!seen.has(f.group)) seen.set(f.group, f.line);
  expect([...seen.values()].slice(0, 40), `${name}: ${failures.length} failures, FUZZ_SEED=${SEED}`).toEqual([]);
}

async function inBatches<T>(items: T[], width: number, run: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i] as T, i);
      }
    }),
  );
}

/** A request or answer as a failure shows it: long runs of one character squeezed, then cut at 400 characters. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

function short(text: string): string {
  const s = text.replace(/(.)\1{39,}/gs, (run, c: string) => `${c}…×${run.length}`);
  return s.length > 400 ? `${s.slice(0, 400)}…(${s.length})` : s;
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
        // Answered by its ack, or by "Already unsubscribed" when its start failed meanwhile.
        sent = JSON.stringify({ method: 'unsubscribe', subscription: m.data.subscription });
        ws.sendRaw(sent);
        await until((u) => (u.channel === 'subscriptionResponse' && u.data.method === 'unsubscribe') || isError(u));
      }
    }
    // The connection survived all of it.
    ws.send({ method: 'ping' });
    await until((m) => m.channel === 'pong');
    ws.close();
    report('/ws', failures);
  });

  it('GraphQL: every argument of every root field and of the fields below them', async () => {
    const fields = graphqlTargets(SCHEMAS, 'query');
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
    const targets = graphqlTargets(SCHEMAS, 'subscription');
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

/** The query keys of a URL as a server reads them (decoded where they decode). */
function sentKeys(url: string): string[] {
  const query = url.slice(url.indexOf('?') + 1);
  return query.split('&').map((pair) => {
    const key = pair.split('=')[0] as string;
    try {
      return decodeURIComponent(key);
    } catch {
      return key;
    }
  });
}

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

/** A request with the URL exactly as given (fetch would normalise a broken escape or a raw byte). */
function rawHttp(host: string, port: number, method: string, path: string, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest({ host, port, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

// ---- GraphQL: requests drawn from the schemas ----

interface GraphQLTarget {
  arbitrary: fc.Arbitrary<{ query: string; variables: Record<string, unknown>; group: string; args: string[] }>;
}

const goodArg: Record<string, unknown> = {
  coin: 'BTC',
  address: '',
  user: '',
  limit: 10,
  first: 10,
  startTime: now - 10 * 60_000,
  endTime: now,
  index: 0,
  nSigFigs: 5,
  oid: '1',
  twapId: '1',
  aggregateByTime: false,
};

/** A value of the argument's type that its field accepts, where one is known. */
function goodValue(arg: GraphQLArgument): unknown {
  if (arg.name === 'address' || arg.name === 'user') return user;
  if (arg.name in goodArg) return goodArg[arg.name];
  const named = getNamedType(arg.type);
  if (isEnumType(named)) return named.getValues()[0]?.name;
  return undefined;
}

/** Bad values for an argument of type `type`: of the wrong type, out of range, hostile. */
function badValue(type: GraphQLInputType): fc.Arbitrary<unknown> {
  const named = getNamedType(type);
  const typed = isEnumType(named)
    ? fc.constantFrom('NOPE', '1m ', '')
    : named.name === 'Int'
      ? fc.constantFrom(-1, 0, 2 ** 31, -(2 ** 31) - 1, 1.5)
      : named.name === 'ID' || named.name === 'Timestamp'
        ? fc.constantFrom('-1', '1e3', '18446744073709551616', '99999999999999999999', 9e15, 8.64e15 + 1, -1, 'abc', '')
        : fc.constantFrom(
            '',
            '\u0000',
            'BTC\u0000',
            '\ud800',
            '0x123',
            `0x${'g'.repeat(40)}`,
            HUGE_TEXT,
            '1:2',
            '9999999999999999:99999999999999999999',
            '99999999999999999999999',
          );
  return fc.oneof(
    { weight: 3, arbitrary: typed },
    { weight: 2, arbitrary: nasty },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

/** The GraphQL type of a variable standing for `arg` (its declared type, so the server coerces the value). */
const typeText = (t: GraphQLInputType): string => t.toString();

/**
 * One target per root field of Query and Subscription, and per (root, field with arguments below it): each is drawn
 * as often as any other, so that `user.fills` gets as many requests as `allMids`.
 */
function graphqlTargets(schemas: GraphQLSchema[], operation: 'query' | 'subscription'): GraphQLTarget[] {
  const targets: GraphQLTarget[] = [];
  for (const schema of schemas) {
    const type = operation === 'query' ? schema.getQueryType() : schema.getSubscriptionType();
    for (const root of Object.values(type?.getFields() ?? {})) {
      if (root.name.startsWith('_')) continue;
      targets.push({ arbitrary: selectionArb(operation, root, null) });
      for (const child of childFields(root).filter((c) => c.args.length > 0)) {
        targets.push({ arbitrary: selectionArb(operation, root, child) });
      }
    }
  }
  return targets;
}

function childFields(field: GraphQLField<unknown, unknown>): GraphQLField<unknown, unknown>[] {
  const type = getNamedType(field.type);
  return isObjectType(type) ? Object.values(type.getFields()) : [];
}

/** A leaf selection for a field's type: its first scalar fields, or __typename. */
function leaves(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isScalarType(type) || isEnumType(type)) return '';
  if (!isObjectType(type)) return '{ __typename }';
  const scalars = Object.values(type.getFields())
    .filter(
      (f) =>
        f.args.every((a) => !isNonNullType(a.type)) &&
        (isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type))),
    )
    .slice(0, 3)
    .map((f) => f.name);
  return `{ __typename ${scalars.join(' ')} }`;
}

function argsArb(field: GraphQLField<unknown, unknown>, prefix: string) {
  return fc.tuple(
    ...field.args.map((arg) =>
      fc
        .record({
          mode: fc.constantFrom('good', 'good', 'good', 'bad', 'bad', 'literal', 'absent'),
          bad: badValue(arg.type),
        })
        .map(({ mode, bad }) => {
          const v = `${prefix}_${arg.name}`;
          const good = goodValue(arg);
          if (mode === 'absent' || (mode === 'good' && good === undefined)) return null;
          const value = mode === 'good' ? good : bad;
          if (mode === 'literal')
            return {
              decl: '',
              use: `${arg.name}: ${literal(bad, isListType(arg.type) || (isNonNullType(arg.type) && isListType(arg.type.ofType)))}`,
              v,
              value: undefined,
            };
          return { decl: `$${v}: ${typeText(arg.type)}`, use: `${arg.name}: $${v}`, v, value };
        }),
    ),
  );
}

/** A value written into the document; strings escaped as JSON does (GraphQL's string syntax is the same). */
function literal(value: unknown, _list: boolean): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, false)).join(', ')}]`;
  return `{${Object.entries(value as object)
    .filter(([k]) => /^[A-Za-z_]\w*$/.test(k))
    .map(([k, v]) => `${k}: ${literal(v, false)}`)
    .join(', ')}}`;
}

function selectionArb(
  operation: 'query' | 'subscription',
  root: GraphQLField<unknown, unknown>,
  c: GraphQLField<unknown, unknown> | null,
) {
  return fc.tuple(argsArb(root, 'r'), c ? argsArb(c, 'c') : fc.constant([] as never[])).map(([rootArgs, childArgs]) => {
    const all = [...rootArgs, ...childArgs].filter((a) => a !== null);
    const decls = all.filter((a) => a.decl).map((a) => a.decl);
    const variables = Object.fromEntries(all.filter((a) => a.decl).map((a) => [a.v, a.value]));
    const argText = (list: typeof rootArgs) => {
      const used = list.filter((a) => a !== null).map((a) => a.use);
      return used.length ? `(${used.join(', ')})` : '';
    };
    const inner = c ? `{ __typename ${c.name}${argText(childArgs)} ${leaves(c)} }` : leaves(root);
    const head = `${operation} Fuzz${decls.length ? `(${decls.join(', ')})` : ''}`;
    const query = `${head} { ${root.name}${argText(rootArgs)} ${inner} }`;
    const args = [...root.args, ...(c?.args ?? [])].map((a) => a.name);
    return { query, variables, group: `${operation} ${root.name}${c ? `.${c.name}` : ''}`, args };
  });
}
