// GraphiQL's example operation against the schema the router serves (every domain's subgraph composed), and the
// page's options for a request with and without a key. In a browser: test/browser.test.ts.
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { type GraphQLSchema, Kind, type OperationDefinitionNode, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthOutcome, KeyChecker } from '../access/auth.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { composeSupergraph } from './compose.ts';
import { DEFAULT_OPERATION, graphiqlPage } from './graphiql.ts';

describe('GraphiQL example operation', () => {
  let gateway: ReturnType<typeof createGatewayRuntime>;
  let schema: GraphQLSchema;
  beforeAll(async () => {
    const supergraph = composeSupergraph(
      DOMAIN_LIST.map((d) => ({ name: d.name, url: `http://127.0.0.1:9/${d.name}`, schema: d.schema })),
    );
    gateway = createGatewayRuntime({ supergraph, unifiedGraphHandler, logging: false });
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

const MISSING: AuthOutcome = { ok: false, status: 401, error: 'missing api key' };

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
