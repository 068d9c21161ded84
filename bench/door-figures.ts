// Issue 40's figures of how doors bind capabilities, re-measurable on any checkout of this layout:
//
//   npx tsx bench/door-figures.ts [ROOT]            the static figures of ROOT's sources (default: this checkout)
//   npx tsx bench/door-figures.ts --trace           also a user's fills asked on each door, traced (needs Postgres:
//                                                   the bench cluster, .data/bench-pg, or BENCH_DATABASE_URL)
//
// Static (no database): per domain, the lines (`wc -l`, non-test .ts) of its doors written by hand (compat/, mcp.ts,
// schema/ but builder.ts), of its capability list (capabilities*.ts) and of its service (service/, records.ts); the
// hand-written bindings of an input definition at a door (`X.schema`, `X.parse`, `X.args`, `X.body`, `X.query`,
// `X.fromQuery`, `X.params`, `routeInput(X)`, where X is a `defineInput` definition), by door; and per definition the
// files that name it outside tests (what adding a capability like it touches, its test aside).
//
// Traced: a user's stored fills asked once on each door in one process (POST /info userFills through the compat app's
// inject(), `accounts_user_fills` over MCP, `user { fills }` on the accounts subgraph), after a first asking of each
// (what runs once, such as compiling a validator, is left out): the project files any of whose functions ran for the
// request (V8's precise coverage, counts taken around it; a file seen in only some of three askings is left out as
// background work), and the validations run (calls of a compiled Ajv validator).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const TRACE = args.includes('--trace');
const ROOT = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(import.meta.dirname, '..'));
const DOMAINS = readdirSync(path.join(ROOT, 'domains'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** Non-test .ts files under `dir` (from ROOT), recursively. */
function tsFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  try {
    if (statSync(abs).isFile()) return dir.endsWith('.ts') && !dir.endsWith('.test.ts') ? [dir] : [];
  } catch {
    return [];
  }
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name.startsWith('.') ? [] : tsFiles(`${dir}/${e.name}`),
  );
}
const lines = (files: string[]) =>
  files.reduce((n, f) => n + (readFileSync(path.join(ROOT, f), 'utf8').match(/\n/g)?.length ?? 0), 0);

const doorFiles = (d: string) => [
  ...tsFiles(`domains/${d}/compat`),
  ...tsFiles(`domains/${d}/mcp.ts`),
  ...tsFiles(`domains/${d}/schema`),
];
const listFiles = (d: string) =>
  readdirSync(path.join(ROOT, 'domains', d))
    .filter((f) => /capabilities\.ts$/.test(f))
    .map((f) => `domains/${d}/${f}`);
const serviceFiles = (d: string) => [...tsFiles(`domains/${d}/service`), ...tsFiles(`domains/${d}/records.ts`)];

/** Every non-test source of the project. */
const SOURCES = ['domains', 'kit', 'compat-rest', 'mcp', 'router', 'platform', 'ingest', 'export', 'db', 'access']
  .flatMap(tsFiles)
  .concat(['domains.ts', 'stack.ts', 'subgraph.ts'].filter((f) => tsFiles(f).length));
const text = new Map(SOURCES.map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));

/** The input definitions (`const X = defineInput(`) and the file of each. */
const definitions = new Map<string, string>();
for (const [file, src] of text) {
  for (const m of src.matchAll(/\bconst ([A-Z][A-Z0-9_]*)\s*=\s*(?:[A-Za-z_$][\w$]*\.)?defineInput\b/g))
    definitions.set(m[1] as string, file);
}

/** Which door a file of a domain is: mcp, rest (compat/: /info, routes, /ws), graphql (schema/), or its list. */
function doorOf(file: string): string | null {
  if (/^domains\/[^/]+\/mcp\.ts$/.test(file)) return 'MCP';
  if (/^domains\/[^/]+\/compat\//.test(file)) return 'REST, /info, /ws';
  if (/^domains\/[^/]+\/schema\//.test(file)) return 'GraphQL';
  if (/^domains\/[^/]+\/[^/]*capabilities\.ts$/.test(file)) return 'capability list';
  return null;
}

function bindings() {
  const names = [...definitions.keys()].join('|');
  const binding = new RegExp(
    `\\b(?:(${names})\\.(schema|parse|args|body|query|fromQuery|params)\\b|routeInput\\(\\s*(${names})\\b)`,
    'g',
  );
  const counts = new Map<string, Map<string, number>>();
  for (const [file, src] of text) {
    const door = doorOf(file);
    if (!door) continue;
    for (const m of src.matchAll(binding)) {
      const kind = m[2] ?? 'routeInput';
      const byKind = counts.get(door) ?? new Map<string, number>();
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      counts.set(door, byKind);
    }
  }
  return counts;
}

/** Per definition, the non-test files naming it (its own included). */
function filesNaming(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const name of definitions.keys()) {
    const word = new RegExp(`\\b${name}\\b`);
    out.set(
      name,
      [...text].filter(([, src]) => word.test(src)).map(([f]) => f),
    );
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[Math.floor((s.length - 1) / 2)] as number) : 0;
};

function staticFigures(): string[] {
  const out: string[] = [`figures of ${ROOT}`, ''];
  out.push('| domain | doors by hand (compat/, mcp.ts, schema/) | capability list | service (service/, records.ts) |');
  out.push('|---|---|---|---|');
  for (const d of DOMAINS) {
    const builder = `domains/${d}/schema/builder.ts`;
    out.push(
      `| ${d} | ${lines(doorFiles(d).filter((f) => f !== builder))} | ${lines(listFiles(d))} | ${lines(serviceFiles(d))} |`,
    );
  }
  const adapters = [
    'kit/capability.ts',
    'kit/capability-fields.ts',
    'kit/page.ts',
    'compat-rest/capability-info.ts',
    'compat-rest/capability-routes.ts',
    'mcp/capability-tools.ts',
  ].filter((f) => text.has(f));
  out.push('', `the adapters below the domains (${adapters.join(', ') || 'none'}): ${lines(adapters)} lines`, '');
  const counts = bindings();
  let total = 0;
  out.push('| door | hand-written bindings of an input definition |', '|---|---|');
  for (const [door, byKind] of [...counts].sort()) {
    const n = [...byKind.values()].reduce((a, b) => a + b, 0);
    total += n;
    out.push(`| ${door} | ${n} (${[...byKind].map(([k, c]) => `${k} ${c}`).join(', ')}) |`);
  }
  out.push(`| all | ${total} |`, '');
  const naming = filesNaming();
  out.push('| domain | definitions | files naming one, median (max) |', '|---|---|---|');
  for (const d of DOMAINS) {
    const own = [...naming].filter(([name]) => definitions.get(name)?.startsWith(`domains/${d}/`));
    const n = own.map(([, files]) => files.length);
    out.push(`| ${d} | ${own.length} | ${median(n)} (${Math.max(0, ...n)}) |`);
  }
  return out;
}

for (const line of staticFigures()) console.log(line);
if (TRACE) for (const line of await traced()) console.log(line);

async function traced(): Promise<string[]> {
  const { Session } = await import('node:inspector/promises');
  const { Ajv } = await import('ajv');
  // Validations counted: the calls of every compiled Ajv validator (the definitions' own, the /info body's, fastify's
  // routes', the MCP catalog's: one Ajv package). GraphQL's own checks of a document and its arguments are not.
  let validations = 0;
  const compile = Ajv.prototype.compile;
  Ajv.prototype.compile = function (this: InstanceType<typeof Ajv>, ...a: Parameters<typeof compile>) {
    const validate = compile.apply(this, a);
    const counted = Object.assign((data: unknown, ...rest: unknown[]) => {
      validations++;
      return (validate as (d: unknown, ...r: unknown[]) => boolean)(data, ...rest);
    }, validate);
    Object.defineProperty(counted, 'errors', {
      get: () => validate.errors,
      set: (e) => {
        validate.errors = e;
      },
    });
    return counted as typeof validate;
  } as typeof compile;

  const { benchServer } = await import('./db.ts');
  const { Authenticator } = await import('../access/auth.ts');
  const { createKey } = await import('../access/keys.ts');
  const { buildCompatApp } = await import('../compat-rest/app.ts');
  const { DOMAIN_LIST, subgraphPlatform } = await import('../domains.ts');
  const { InProcessBus } = await import('../events/bus.ts');
  const { serveDomain, startDomainServices } = await import('../kit/domain.ts');
  const { startMcpServer } = await import('../mcp/server.ts');
  const { Upstream } = await import('../platform/upstream.ts');
  const { compatServicesOf } = await import('../stack.ts');

  const server = await benchServer();
  const { pool } = await server.freshDatabase('door_figures');
  const user = `0x${'ab'.repeat(20)}`;
  const now = Date.now();
  await pool.query(
    `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
       hash, oid, crossed, fee, tid, fee_token)
     SELECT g, $1, 'BTC', 100000 + g, 0.01, 'B', $2::bigint - g * 1000, g * 0.01, 'Open Long', 0,
       '0x' || md5(g::text) || md5((g + 1)::text), g, true, 0.1, g, 'USDC' FROM generate_series(1, 3) g`,
    [user, now],
  );
  const { key } = await createKey(pool, { scope: 'mcp', label: 'door figures' });
  const { key: dataKey } = await createKey(pool, { scope: 'data', label: 'door figures' });
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });
  const upstream = new Upstream('http://127.0.0.1:9/info', { timeoutMs: 500 });
  const started = await startDomainServices(DOMAIN_LIST, { pool, upstream, bus: new InProcessBus(), now: Date.now });
  // biome-ignore lint/suspicious/noExplicitAny: the services by name, as stack.ts passes them
  const services = compatServicesOf(started.services as any, upstream, pool);
  const auth = new Authenticator(pool, { alwaysRequireKey: false });
  const app = await buildCompatApp({ services, auth, pool, log: () => {} });
  const mcp = await startMcpServer({ services, auth, port: 0, log: () => {} });
  const accounts = DOMAIN_LIST.find((d) => d.name === 'accounts');
  if (!accounts) throw new Error('no accounts domain');
  const subgraph = await serveDomain(accounts, started.services.accounts as never, 0, subgraphPlatform(pool));
  const mcpUrl = (mcp as { url: string }).url;

  const doors: [string, () => Promise<unknown>][] = [
    [
      'REST (POST /info userFills)',
      async () => {
        const res = await app.inject({
          method: 'POST',
          url: '/info',
          headers: bearer(dataKey),
          payload: { type: 'userFills', user },
        });
        if (res.statusCode !== 200 || JSON.parse(res.body).length !== 3) throw new Error(`rest: ${res.body}`);
      },
    ],
    [
      'GraphQL (accounts subgraph, user { fills })',
      async () => {
        const res = await fetch(`${subgraph.url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(dataKey) },
          body: JSON.stringify({
            query: `{ user(address: "${user}") { fills(first: 3) { edges { node { px } } } } }`,
          }),
        });
        const body = await res.text();
        if (!body.includes('"px"') || body.includes('errors')) throw new Error(`graphql: ${body}`);
      },
    ],
    [
      'MCP (accounts_user_fills)',
      async () => {
        const res = await fetch(mcpUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...bearer(key),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'accounts_user_fills', arguments: { user } },
          }),
        });
        const body = await res.text();
        if (res.status !== 200 || body.includes('"isError":true')) throw new Error(`mcp: ${res.status} ${body}`);
      },
    ],
  ];

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const ran = async (ask: () => Promise<unknown>) => {
    await session.post('Profiler.takePreciseCoverage'); // counts start from here
    const before = validations;
    await ask();
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const files = new Set<string>();
    for (const script of result) {
      if (!script.url.startsWith('file://')) continue;
      const file = path.relative(ROOT, new URL(script.url).pathname);
      if (file.startsWith('..') || file.includes('node_modules') || file.startsWith('bench/')) continue;
      if (script.functions.some((f) => f.ranges.some((r) => r.count > 0))) files.add(file);
    }
    return { files, validations: validations - before };
  };
  const out = ['', '| door | files run for the request | validations run |', '|---|---|---|'];
  const lists: string[] = [];
  let background = new Set<string>();
  try {
    // What runs with no request (the services' timers): seen in a quiet 200 ms, left out of every door's files.
    background = new Set<string>();
    for (let i = 0; i < 3; i++) {
      for (const f of (await ran(() => new Promise((r) => setTimeout(r, 200)))).files) background.add(f);
    }
    for (const [name, ask] of doors) {
      await ask(); // what runs once (compiling, caches) is left out
      const runs = [await ran(ask), await ran(ask), await ran(ask)];
      const files = [...(runs[0]?.files ?? [])]
        .filter((f) => runs.every((r) => r.files.has(f)) && !background.has(f))
        .sort();
      out.push(`| ${name} | ${files.length} | ${runs.map((r) => r.validations).join(', ')} |`);
      lists.push(`${name}: ${files.join(', ')}`);
    }
  } finally {
    session.disconnect();
    await subgraph.close();
    await (mcp as { close(): Promise<void> }).close();
    await app.close();
    await started.stop();
    await pool.end();
    await server.stop();
  }
  return [
    ...out,
    '',
    ...lists,
    '',
    `running with no request, left out: ${[...background].sort().join(', ') || 'none'}`,
  ];
}
