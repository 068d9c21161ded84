// A field with a rule of its own (kit/request-schema.ts RULE) keeps its bounds in the published OpenAPI document,
// and whichever validator refuses it (the /info dispatcher's, a path route's, the MCP catalog's) says that rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE } from '../kit/request-schema.ts';
import { toolCatalog } from '../mcp/tools.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';

let compat: TestCompatApp;
beforeAll(async () => {
  compat = await startCompatApp({ data: 'empty', node: 'down' });
}, 120_000);
afterAll(async () => {
  await compat?.close();
});

const USER = `0x${'ab'.repeat(20)}`;
const OID_RULE =
  'must be an order id (an integer from 0 to 18446744073709551615, as a JSON number or a decimal string) or a ' +
  'cloid (0x followed by 32 hex digits)';
const FILL_CURSOR_RULE = 'must be "<epoch_ms>:<block>:<event index>:<tid>" as a page gave it';
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);

type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };

describe('a field with a rule of its own', () => {
  it('keeps its bounds and its rule in the published OpenAPI document', async () => {
    const doc = (await compat.get('/openapi.json')).body;
    const variants: Schema[] = doc.paths['/info'].post.requestBody.content['application/json'].schema.oneOf;
    const variant = (type: string) =>
      variants.find((v) => (v.properties.type?.const ?? (v.properties.type?.enum as string[])?.[0]) === type);
    expect(variant('orderStatus')?.properties.oid).toMatchObject({
      minimum: 0,
      pattern: '^([0-9]{1,20}|0x[0-9a-fA-F]{32})$',
      [RULE]: OID_RULE,
    });
    expect(variant('l2Books')?.properties.coins).toMatchObject({ minItems: 1, maxItems: 50 });

    const fills = doc.paths['/fills/'].get.parameters as { name: string; schema: object }[];
    expect(fills.find((p) => p.name === 'cursor')?.schema).toMatchObject({
      pattern: '^\\d{1,16}:\\d{1,19}:\\d{1,9}:\\d{1,20}$',
      [RULE]: FILL_CURSOR_RULE,
    });
    const batch = doc.paths['/users/batch/performance'].post.requestBody.content['application/json'].schema;
    expect(batch.properties.addresses).toMatchObject({ minItems: 1, maxItems: 500 });
  });

  it('is what /info says, whichever keyword refused it', async () => {
    for (const [oid, shown] of [
      [-1, '-1'],
      ['abc', '"abc"'],
      [true, 'true'],
      ['1\u0000', '"1\\u0000"'],
    ]) {
      const r = await compat.info({ type: 'orderStatus', user: USER, oid });
      expect([r.status, r.body.error]).toEqual([400, `oid: ${OID_RULE}, got ${shown}`]);
    }
    const coins = Array.from({ length: 51 }, (_, i) => `C${i}`);
    const r = await compat.info({ type: 'l2Books', coins });
    expect([r.status, r.body.error]).toEqual([400, 'coins: must hold 1 to 50 coins, got 51']);
  });

  it('is what a path route says, in its query string and in its body', async () => {
    const r = await compat.get('/fills/?cursor=yesterday');
    expect([r.status, r.body.error]).toEqual([400, `cursor: ${FILL_CURSOR_RULE}, got "yesterday"`]);
    // Refused for its length by fastify's Ajv, not by parse: the same rule.
    const long = await compat.get(`/fills/?cursor=${'1'.repeat(81)}`);
    expect([long.status, long.body.error]).toEqual([400, `cursor: ${FILL_CURSOR_RULE}, got "${'1'.repeat(59)}`]);
    const res = await compat.app.inject({
      method: 'POST',
      url: '/users/batch/performance',
      payload: { addresses: addresses(501) },
    });
    expect([res.statusCode, res.json().error]).toEqual([400, 'addresses: must hold 1 to 500 addresses, got 501']);
  });

  it('is what the MCP catalog says', () => {
    const tools = toolCatalog();
    expect(tools.get('accounts_order_status')?.read({ user: USER, oid: -1 }).fault).toMatchObject({
      message: `oid: ${OID_RULE}, got -1`,
      code: 'bad_input',
    });
    expect(tools.get('analytics_batch_performance')?.read({ addresses: addresses(501) }).fault?.message).toBe(
      'addresses: must hold 1 to 500 addresses, got 501',
    );
  });
});
