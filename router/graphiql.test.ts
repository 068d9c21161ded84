// GraphiQL's example operation against the schema the router serves (every domain's subgraph composed), the
// page's options for a request with and without a key, and the page and its bundle as the router serves them. In a
// browser: test/browser.test.ts.
import { createHash } from 'node:crypto';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { type GraphQLSchema, Kind, type OperationDefinitionNode, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthOutcome, KeyChecker } from '../access/auth.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { composeSupergraph } from './compose.ts';
import { DEFAULT_OPERATION, graphiqlPage } from './graphiql.ts';
import { startRouter } from './server.ts';

/** Every domain's subgraph composed (at addresses nothing answers: nothing here runs an operation). */
const composed = () =>
  composeSupergraph(DOMAIN_LIST.map((d) => ({ name: d.name, url: `http://127.0.0.1:9/${d.name}`, schema: d.schema })));

describe('GraphiQL example operation', () => {
  let gateway: ReturnType<typeof createGatewayRuntime>;
  let schema: GraphQLSchema;
  beforeAll(async () => {
    gateway = createGatewayRuntime({ supergraph: composed(), unifiedGraphHandler, logging: false });
    schema = (await gateway.getSchema()) as GraphQLSchema;
  });
  afterAll(() => gateway?.[Symbol.asyncDispose]());

  it('validates against the composed supergraph', () => {
    expect(validate(schema, parse(DEFAULT_OPERATION)).map((e) => e.message)).toEqual([]);
  });

  it('is one query, so the run button runs it without asking which', () => {
    const ops = parse(DEFAULT_OPERATION).definitions.filter(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    );
    expect(ops.map((o) => [o.operation, o.name?.value])).toEqual([['query', 'MarketAndTraders']]);
  });
});

/** A key checker whose answer to a request without a key is fixed. */
const checker = (outcome: AuthOutcome | Error): KeyChecker => ({
  check: async () => {
    if (outcome instanceof Error) throw outcome;
    return outcome;
  },
  charge: async () => ({ ok: true, remaining: null }),
});

/** The page rendered for `url`: its options as the renderer gets them, and its HTML. */
async function pageFor(url: string, auth: KeyChecker | undefined) {
  const page = graphiqlPage(auth);
  const options = await page.graphiql(new Request(url, { headers: { accept: 'text/html' } }));
  return { options: options as Record<string, unknown>, html: page.renderGraphiQL(options) };
}

const MISSING: AuthOutcome = { ok: false, status: 401, code: 'missing_key', error: 'missing api key' };

describe('GraphiQL page options', () => {
  it("sends the address's key on HTTP and in graphql-ws connection_init", async () => {
    const { options, html } = await pageFor('http://h/graphql?api_key=hlk_abc-DEF_1', checker(MISSING));
    expect(options.additionalHeaders).toEqual({ 'x-api-key': 'hlk_abc-DEF_1' });
    expect(options.connectionParams).toEqual({ apiKey: 'hlk_abc-DEF_1' });
    expect(options.defaultQuery).toBe(DEFAULT_OPERATION);
    expect(html).toContain('<div class="hl-notice" role="alert" hidden></div>');
  });

  it('says how to get a key when one is needed and the address has none, and does not introspect', async () => {
    const { options, html } = await pageFor('http://h/graphql', checker(MISSING));
    expect(options.schema).toBeNull();
    expect(html).toContain('This server needs an API key: add ?api_key=YOUR_KEY to the address');
    expect(html).toContain('npm run -s keys -- create --scope data');
  });

  it('does not echo a key of another shape into the page', async () => {
    const evil = '</script><script>alert(1)</script>';
    const { options, html } = await pageFor(`http://h/graphql?api_key=${encodeURIComponent(evil)}`, undefined);
    expect(options.additionalHeaders).toBeUndefined();
    expect(html).not.toContain('alert(1)');
    expect(html).toContain('The api_key in the address is not a key of this server');
  });

  it('shows no notice without keys, or when whether one is needed cannot be told', async () => {
    for (const auth of [undefined, checker({ ok: true, key: null }), checker(new Error('thread gone'))]) {
      const { options, html } = await pageFor('http://h/graphql', auth);
      expect(options.schema).toBeUndefined();
      expect(html).toContain('<div class="hl-notice" role="alert" hidden></div>');
    }
  });
});

/** The bundle's files a page loads, by path. */
const filesOf = (html: string) =>
  [...html.matchAll(/(?:src|href)="(\/graphql\/assets\/[^"]*)"/g)].map((m) => m[1] ?? '');

/** The one file of the page with this extension. */
function fileOf(html: string, extension: string): string {
  const [file, ...more] = filesOf(html).filter((path) => path.endsWith(`.${extension}`));
  if (file === undefined || more.length > 0) throw new Error(`not one .${extension} file in the page`);
  return file;
}

/** The hash a file's name gives. */
const hashIn = (path: string) => /-([0-9a-f]{16})\.\w+$/.exec(path)?.[1];

describe('GraphiQL page and bundle as the router serves them', () => {
  let router: Awaited<ReturnType<typeof startRouter>>;
  let page: string;
  beforeAll(async () => {
    // Keys configured and none sent: what a first visitor's browser asks.
    router = await startRouter({ supergraphSdl: composed(), port: 0, auth: checker(MISSING) });
    const answer = await fetch(router.url, { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    page = await answer.text();
  });
  afterAll(() => router?.close());

  it('is a small page that loads its icon, style and script from the router', () => {
    expect(page.length).toBeLessThan(100_000);
    expect(page).toContain('This server needs an API key: add ?api_key=YOUR_KEY to the address');
    expect(filesOf(page)).toEqual([
      expect.stringMatching(/^\/graphql\/assets\/graphiql-[0-9a-f]{16}\.ico$/),
      expect.stringMatching(/^\/graphql\/assets\/graphiql-[0-9a-f]{16}\.css$/),
      expect.stringMatching(/^\/graphql\/assets\/graphiql-[0-9a-f]{16}\.js$/),
    ]);
    // The page mounts GraphiQL with its own options after the script.
    expect(page.indexOf('YogaGraphiQL.renderYogaGraphiQL(')).toBeGreaterThan(page.indexOf('.js"></script>'));
    expect(page).toContain('"defaultQuery":"# The Hyperliquid data graph');
  });

  it('serves each file without a key, cached for good, named by the hash of its content', async () => {
    const types = { ico: 'image/x-icon', css: 'text/css', js: 'text/javascript' };
    for (const [extension, type] of Object.entries(types)) {
      const path = fileOf(page, extension);
      // No Accept: text/html (what a browser sends for a script or style), no key.
      const answer = await fetch(new URL(path, router.url));
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-type')).toContain(type);
      // fetch asks for gzip (and unzips the body).
      expect(answer.headers.get('content-encoding')).toBe('gzip');
      const body = new Uint8Array(await answer.arrayBuffer());
      expect(createHash('sha256').update(body).digest('hex').slice(0, 16)).toBe(hashIn(path));
    }
  });

  it('serves a file as it is to a client that takes no gzip', async () => {
    const js = fileOf(page, 'js');
    const answer = await fetch(new URL(js, router.url), { headers: { 'accept-encoding': 'identity' } });
    expect(answer.headers.get('content-encoding')).toBeNull();
    const body = new Uint8Array(await answer.arrayBuffer());
    expect(Number(answer.headers.get('content-length'))).toBe(body.length);
    expect(createHash('sha256').update(body).digest('hex').slice(0, 16)).toBe(hashIn(js));
  });

  it("the script is GraphiQL's bundle, the style its styles", async () => {
    const [css, js] = [fileOf(page, 'css'), fileOf(page, 'js')];
    expect(await (await fetch(new URL(js, router.url))).text()).toContain('renderYogaGraphiQL');
    expect(await (await fetch(new URL(css, router.url))).text()).toContain('.graphiql-container');
  });

  it('answers 404 for a file it does not have, and still wants a key for the API', async () => {
    for (const path of ['/graphql/assets/graphiql-0123456789abcdef.js', '/graphql/assets/']) {
      expect((await fetch(new URL(path, router.url))).status, path).toBe(404);
    }
    const query = await fetch(router.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(query.status).toBe(401);
  });
});
