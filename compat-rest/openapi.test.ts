// The OpenAPI document (GET /openapi.json): valid OpenAPI 3.1, and it lists every route the app serves (read from
// fastify's own router, so a new domain's routes are checked by being registered) and every /info type.
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { INFO_TYPES } from './info/index.ts';

let compat: TestCompatApp;
beforeAll(async () => {
  compat = await startCompatApp({ data: 'empty', node: 'down' });
}, 120_000);
afterAll(async () => {
  await compat?.close();
});

/** Every (method, path) in fastify's router, from its printed tree (`├── /market/bbo/:coin (GET, HEAD)`). */
function registeredRoutes(tree: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?) \(([A-Z, ]+)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + (m[2] as string);
    stack[depth] = path;
    for (const method of (m[3] as string).split(', ')) routes.push({ method, path: path.replace(/\/+/g, '/') });
  }
  return routes;
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document covering every route and every /info type', async () => {
    const res = await compat.get('/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    // Throws on a document that does not validate against the OpenAPI 3.1 schema, or a $ref that does not resolve.
    await SwaggerParser.validate(structuredClone(doc));

    const routes = registeredRoutes(compat.app.printRoutes({ commonPrefix: false })).filter(
      (r) =>
        r.method !== 'HEAD' &&
        r.method !== 'OPTIONS' &&
        r.path !== '/openapi.json' &&
        // Prometheus's, not the API's (loopback only, README)
        r.path !== '/metrics' &&
        // the live page (registered with the router's URL only)
        r.path !== '/' &&
        !r.path.startsWith('/live/') &&
        !r.path.startsWith('/docs') &&
        r.path !== '*',
    );
    expect(routes.length).toBeGreaterThan(20);
    // `/fills` and `/fills/` are one route (`/` under the prefix `/fills`): trailing slashes are not told apart.
    const bare = (path: string) => path.replace(/(.)\/$/, '$1');
    const paths = new Map(Object.entries(doc.paths).map(([path, item]) => [bare(path), item as object]));
    const documented = (r: { method: string; path: string }) =>
      r.method.toLowerCase() in (paths.get(bare(r.path).replace(/:(\w+)/g, '{$1}')) ?? {});
    expect(routes.filter((r) => !documented(r))).toEqual([]);
    expect(routes.map((r) => r.path)).toContain('/market/bbo/:coin');

    // A path parameter and a query parameter with its bounds, as the route's schema states them.
    const bbo = doc.paths['/market/bbo/{coin}'].get;
    expect(bbo.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'coin', required: true }),
        expect.objectContaining({ in: 'query', name: 'limit', schema: expect.objectContaining({ maximum: 1000 }) }),
      ]),
    );

    // POST /info: one request schema per type, discriminated on `type`.
    const body = doc.paths['/info'].post.requestBody.content['application/json'].schema;
    expect(body.discriminator).toEqual({ propertyName: 'type' });
    // @fastify/swagger writes a `const` as a one-value `enum`.
    type Variant = { properties: { type: { const?: string; enum?: string[] } }; required: string[] };
    const typeOf = (s: Variant) => s.properties.type.const ?? s.properties.type.enum?.[0];
    const types = body.oneOf.map(typeOf);
    expect(types.sort()).toEqual(Object.keys(INFO_TYPES).sort());
    const candles = body.oneOf.find((s: Variant) => typeOf(s) === 'candleSnapshot');
    expect(candles.required).toEqual(expect.arrayContaining(['type', 'req']));
  });

  it('is served without a key, and the /info body is still checked by the dispatcher', async () => {
    const refused = await compat.info({ type: 'l2Book' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^coin: is required/);
  });
});

describe('GET /docs', () => {
  it('serves the docs page with assets from node_modules', async () => {
    const page = await compat.get('/docs/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    expect(page.text).not.toMatch(/https?:\/\/(?!localhost|127\.0\.0\.1)[^"']*\.(js|css)/);
    const init = await compat.get('/docs/static/swagger-initializer.js');
    expect(init.text).toContain('/openapi.json');
    const bundle = await compat.get('/docs/static/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
  });
});
