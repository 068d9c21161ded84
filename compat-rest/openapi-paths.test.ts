// The path routes' answers in the OpenAPI document are honest, as openapi-answers.test.ts pins /info's: every path
// route of the served document is asked over HTTP of a compat server with 20 minutes of simulated history and a
// simulated node, and its real answer validated (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it) against the 200
// schema the document gives it; a bare-array list's paging headers are there, and the error statuses a route
// declares answer the error body.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';

let compat: TestCompatApp;
// biome-ignore lint/suspicious/noExplicitAny: the served document, read as JSON
let doc: any;
let ajv: Ajv2020;

/** One request of a route: its URL (and for a POST, its JSON body). */
interface Ask {
  url: string;
  body?: unknown;
}

/** What the requests are made of: addresses found in the stored history. */
interface Found {
  trader: string;
  ledger: string;
  token: string;
  builder: string;
}
let found: Found;

/** Routes whose answer may hold no rows here, with why; every other must answer some. */
const MAY_BE_EMPTY: Record<string, string> = {
  'GET /users/leaderboard': 'the analytics derivation does not run in this test: nothing is ranked',
  'GET /users/{user}/performance': 'no derivation: an empty window, still the full answer shape',
  'GET /users/{user}/equity-history': 'no derivation: no account snapshot',
  'GET /users/{user}/pnl-calendar': 'no derivation: no day',
  'GET /users/{user}/top-trades': 'no derivation: no round trip',
  'POST /users/batch/performance': 'no derivation: each wallet with an empty window',
  'POST /builders/{builder}/external-activity': 'twenty minutes hold few builder fills',
  'GET /evm/hip3/backstop/{dex}/fills': 'a backstop absorbs a fill about every ten minutes of simulation',
  'GET /evm/hip3/backstop/transfers': 'twenty minutes may hold no principal transfer',
  'GET /evm/hip3/backstop/transfers-summary': 'twenty minutes may hold no principal transfer',
  'GET /evm/ledger/transfers': 'twenty minutes may hold no transfer between dexes',
  'GET /hip4/analytics': 'the simulated outcome markets may not trade within the window',
  'GET /hip4/providers': 'the simulated outcome markets may not trade within twenty minutes',
  'GET /hip4/fills': 'the simulated outcome markets may not trade within twenty minutes',
  'GET /export/manifest.json': 'nothing is exported in this test: an empty list (compat-rest/export-routes.test.ts)',
};

/** The document's routes, `METHOD path`, but the /info dispatcher (openapi-answers.test.ts) and the probes. */
function documentedRoutes(): string[] {
  return (
    Object.entries(doc.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))
      // The export's day is a Parquet file, not JSON: compat-rest/export-routes.test.ts reads it back.
      .filter((r) => !['POST /info', 'GET /health', 'GET /ready', 'GET /export/{dataset}/{day}.parquet'].includes(r))
      .sort()
  );
}

beforeAll(async () => {
  compat = await startCompatApp({ listen: true });
  doc = await (await fetch(`${compat.urls.compat}/openapi.json`)).json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  // Market-history samples (the sampler's own timer runs every 10 s).
  for (let i = 0; i < 2; i++) {
    await compat.markets.history.sampleOnce();
    await new Promise((r) => setTimeout(r, 5));
  }
  const pool = compat.db.pool;
  const one = async (sql: string) => (await pool.query(sql)).rows[0] ?? {};
  const trader = (await one('SELECT address FROM accounts.fills GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).address;
  const ledger = (await one('SELECT address FROM accounts.ledger_updates GROUP BY 1 ORDER BY count(*) DESC LIMIT 1'))
    .address;
  const token = (await one('SELECT token FROM evm.token_holders GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).token;
  const builder = (await one('SELECT builder FROM accounts.fills WHERE builder IS NOT NULL LIMIT 1')).builder;
  found = { trader, ledger, token, builder: builder ?? trader };
  // 20 minutes hold no funding hour: a few payments, as ingest would store them.
  const now = Date.now();
  await pool.query(
    `INSERT INTO accounts.funding_payments SELECT 0, $1::bigint - i * 3600000, $2, 'BTC', -1.5 * i, 0.2, 0.0000125
     FROM generate_series(1, 3) i`,
    [now, trader],
  );
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

const wallets = (f: Found) => ({ addresses: [f.trader, f.ledger] });

/** Each documented route (`METHOD path` as the document spells it) → the requests it is asked. */
const ASKS: Record<string, (f: Found) => Ask[]> = {
  'GET /market/coins': () => [{ url: '/market/coins' }],
  'GET /export/manifest.json': () => [{ url: '/export/manifest.json' }],
  ...Object.fromEntries(
    ['bbo', 'spread', 'depth', 'slippage', 'book'].map((s) => [
      `GET /market/${s}/{coin}`,
      () => [{ url: `/market/${s}/BTC?limit=2` }],
    ]),
  ),
  'GET /market/liquidity-report/{coin}': () => [{ url: '/market/liquidity-report/BTC' }],
  'GET /market/l4book/{coin}': () => [{ url: '/market/l4book/BTC' }],
  'GET /hip3/snapshots': () => [{ url: '/hip3/snapshots' }],
  'GET /hip3/top-movers': () => [{ url: '/hip3/top-movers?limit=3' }],
  'GET /fills/': (f) => [
    { url: `/fills/?user=${f.trader}&limit=5` },
    { url: '/fills/?limit=5&include_order_type=true' },
  ],
  'GET /fills/recent': () => [{ url: '/fills/recent?limit=5' }],
  'GET /fills/user/{user_address}': (f) => [{ url: `/fills/user/${f.trader}?limit=5` }],
  'GET /funding/userFunding': (f) => [{ url: `/funding/userFunding?user=${f.trader}` }],
  'GET /users/{user}/account': (f) => [{ url: `/users/${f.trader}/account` }],
  'GET /users/leaderboard': () => [{ url: '/users/leaderboard' }, { url: '/users/leaderboard?window=7d&limit=3' }],
  'GET /users/{user}/performance': (f) => [{ url: `/users/${f.trader}/performance` }],
  'POST /users/batch/performance': (f) => [{ url: '/users/batch/performance', body: wallets(f) }],
  'GET /users/{user}/equity-history': (f) => [{ url: `/users/${f.trader}/equity-history` }],
  'GET /users/{user}/pnl-calendar': (f) => [{ url: `/users/${f.trader}/pnl-calendar` }],
  'GET /users/{user}/top-trades': (f) => [{ url: `/users/${f.trader}/top-trades` }],
  'POST /builders/{builder}/external-activity': (f) => [
    { url: `/builders/${f.builder}/external-activity`, body: wallets(f) },
  ],
  'GET /hip4/questions': () => [{ url: '/hip4/questions?limit=3' }],
  'GET /hip4/markets': () => [{ url: '/hip4/markets?limit=3' }],
  'GET /hip4/outcomes': () => [{ url: '/hip4/outcomes?limit=3' }],
  'GET /hip4/fills': () => [{ url: '/hip4/fills?limit=3' }],
  'GET /hip4/providers': () => [{ url: '/hip4/providers' }],
  'GET /hip4/deployers': () => [{ url: '/hip4/deployers' }],
  'GET /hip4/analytics': () => [{ url: '/hip4/analytics' }, { url: '/hip4/analytics?interval=1d' }],
  'GET /evm/transactions': () => [
    { url: '/evm/transactions?limit=5' },
    { url: '/evm/transactions?include_system=true' },
  ],
  'GET /evm/ledger/transfers': () => [{ url: '/evm/ledger/transfers?limit=5' }],
  'GET /evm/user/{address}/ledger-events': (f) => [{ url: `/evm/user/${f.ledger}/ledger-events?limit=5` }],
  'GET /evm/hip3/backstop/transfers': () => [{ url: '/evm/hip3/backstop/transfers' }],
  'GET /evm/hip3/backstop/transfers-summary': () => [{ url: '/evm/hip3/backstop/transfers-summary' }],
  'GET /evm/hip3/backstop/health': () => [{ url: '/evm/hip3/backstop/health' }],
  'GET /evm/hip3/backstop/{dex}/health': () => [{ url: '/evm/hip3/backstop/xyz/health' }],
  'GET /evm/hip3/backstop/{dex}/fills': () => [{ url: '/evm/hip3/backstop/xyz/fills?limit=5' }],
  'GET /{chain}/testnet/tokens/{address}/holders': (f) => [
    { url: `/hyperevm/testnet/tokens/${f.token}/holders?limit=5` },
  ],
};

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI operation, read as JSON
function operation(route: string): any {
  const [method, path] = route.split(' ') as [string, string];
  return doc.paths[path][method.toLowerCase()];
}

/** Whether an answer holds rows: a non-empty array, or a data envelope / analytics envelope with some. */
function hasRows(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0;
  if (typeof body !== 'object' || body === null) return false;
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data)) return data.length > 0;
  return data !== undefined && data !== null;
}

async function ask({ url, body }: Ask) {
  const res = await fetch(`${compat.urls.compat}${url}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('path routes answer as the OpenAPI document says', () => {
  it('asks every documented path route', () => {
    expect(documentedRoutes()).toEqual(Object.keys(ASKS).sort());
  });

  it('documents the error statuses of every route', () => {
    for (const route of documentedRoutes()) {
      const statuses = Object.keys(operation(route).responses);
      expect({ route, statuses }).toEqual({
        route,
        statuses: expect.arrayContaining(['200', '400', '401', '402', '403', '429', '503']),
      });
    }
    expect(Object.keys(operation('GET /evm/hip3/backstop/{dex}/health').responses)).toEqual(
      expect.arrayContaining(['404', '502']),
    );
  });

  it.each(Object.keys(ASKS).sort())('%s', async (route) => {
    const op = operation(route);
    const ok = op.responses['200'];
    const validate = ajv.compile(ok.content['application/json'].schema);
    for (const a of ASKS[route]?.(found) ?? []) {
      const res = await ask(a);
      expect({ route, url: a.url, status: res.status }).toEqual({ route, url: a.url, status: 200 });
      validate(res.body);
      expect({ route, url: a.url, errors: validate.errors ?? null }).toEqual({ route, url: a.url, errors: null });
      if (!(route in MAY_BE_EMPTY))
        expect({ route, url: a.url, rows: hasRows(res.body) }).toMatchObject({ rows: true });
      for (const header of Object.keys(ok.headers ?? {})) {
        if (header === 'X-Next-Cursor') continue;
        expect({ route, header, sent: res.headers.has(header) }).toEqual({ route, header, sent: true });
      }
    }
  });

  it('answers a declared 404 with the error body the document gives', async () => {
    const res = await ask({ url: '/evm/hip3/backstop/nodex/health' });
    expect(res.status).toBe(404);
    const error = operation('GET /evm/hip3/backstop/{dex}/health').responses['404'].content['application/json'];
    const validate = ajv.compile({ $ref: `openapi.json${error.schema.$ref}` });
    expect(validate(res.body)).toBe(true);
  });
});
