// What an operator reads. The Prometheus metrics after some traffic, scraped as Prometheus would and parsed with a
// Prometheus text parser: compat-rest's /metrics (requests per route and per /info type, /ws connections and
// subscriptions per channel, ingest rows and lag per stream, Postgres pool) and the router's (GraphQL operations per
// name). The request id, from compat-rest or the router into the domain service, and on the log lines.
import { Writable } from 'node:stream';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKey } from '../access/keys.ts';
import { startWriter } from '../domains/analytics/writer/index.ts';
import { createLogger, currentRequestId, withRequestId } from '../platform/log.ts';
import { watchWriters } from '../platform/metrics.ts';
import { startTestStack, type TestStack } from './stack.ts';
import { openSocket } from './ws-client.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ historyMs: 300_000 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function scrape(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return new Map(parsePrometheusTextFormat(await res.text()).map((f) => [f.name, f]));
}

/** The samples of a family whose labels include `labels`. */
function samples(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}) {
  const family = families.get(name);
  expect(family, `family ${name}`).toBeDefined();
  return (family as MetricFamily).metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

const value = (m: { value?: string }) => Number(m.value);

/** Observations in a histogram family (the parser hands histogram series without their labels, merged). */
const observed = (families: Map<string, MetricFamily>, name: string) =>
  samples(families, name).reduce((n, m) => n + Number(m.buckets?.['+Inf'] ?? 0), 0);

describe('GET /metrics', () => {
  it('compat-rest reports requests, /info types, /ws, ingest and the pool', async () => {
    await fetch(`${stack.urls.compat}/market/coins`);
    await fetch(`${stack.urls.compat}/market/bbo/BTC?limit=0`);
    for (const body of [{ type: 'allMids' }, { type: 'allMids' }, { type: 'l2Book', coin: 'BTC' }, { type: 'x' }]) {
      await fetch(`${stack.urls.compat}/info`, { method: 'POST', body: JSON.stringify(body) });
    }
    const socket = await openSocket(stack.urls.ws);
    socket.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });
    await socket.next(); // the subscription's acknowledgement

    const m = await scrape(`${stack.urls.compat}/metrics`);
    expect(value(samples(m, 'hl_http_requests_total', { route: '/market/coins', status: '200' })[0] ?? {})).toBe(1);
    expect(samples(m, 'hl_http_requests_total', { route: '/market/bbo/:coin', status: '400' })).toHaveLength(1);
    expect(observed(m, 'hl_http_request_duration_seconds')).toBeGreaterThan(0);
    expect(value(samples(m, 'hl_info_requests_total', { type: 'allMids', status: '200' })[0] ?? {})).toBe(2);
    expect(value(samples(m, 'hl_info_requests_total', { type: 'invalid', status: '400' })[0] ?? {})).toBe(1);
    expect(observed(m, 'hl_info_request_duration_seconds')).toBeGreaterThan(0);
    expect(value(samples(m, 'hl_ws_connections')[0] ?? {})).toBe(1);
    expect(value(samples(m, 'hl_ws_subscriptions', { channel: 'trades' })[0] ?? {})).toBe(1);
    const ingested = samples(m, 'hl_ingest_rows_total');
    expect(ingested.length).toBeGreaterThan(1);
    expect(ingested.reduce((n, s) => n + value(s), 0)).toBeGreaterThan(0);
    expect(samples(m, 'hl_ingest_lag_seconds').length).toBeGreaterThan(0);
    expect(value(samples(m, 'hl_pg_pool_connections', { pool: 'main', state: 'total' })[0] ?? {})).toBeGreaterThan(0);
    socket.close();
  });

  it('reports the analytics derivation: its lag and the fills it derived', async () => {
    const writer = startWriter({
      pool: stack.db.pool,
      log: () => {},
      backfill: { complete: () => true, loadedUntil: () => null },
      publish: () => {},
    });
    const unwatch = watchWriters(() => ({ analytics: writer.progress() }));
    void writer.run();
    try {
      await expect.poll(() => writer.progress().items, { timeout: 30_000 }).toBeGreaterThan(0);
      const m = await scrape(`${stack.urls.compat}/metrics`);
      expect(value(samples(m, 'hl_derivation_fills_total', { domain: 'analytics' })[0] ?? {})).toBeGreaterThan(0);
      expect(value(samples(m, 'hl_derivation_lag_seconds')[0] ?? {})).toBeGreaterThanOrEqual(0);
    } finally {
      unwatch();
      await writer.stop();
    }
  });

  it('the router reports GraphQL operations per name', async () => {
    const res = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query BtcMid { market(coin: "BTC") { mid } }' }),
    });
    expect(res.status).toBe(200);
    const m = await scrape(stack.urls.router.replace(/\/graphql$/, '/metrics'));
    const ops = samples(m, 'graphql_envelop_request', { operationName: 'BtcMid' });
    expect(ops.length).toBeGreaterThan(0);
    expect(observed(m, 'graphql_envelop_request_duration')).toBeGreaterThan(0);
    expect(observed(m, 'graphql_gateway_subgraph_execute_duration')).toBeGreaterThan(0);
  });

  it('is refused to a peer off this machine', async () => {
    // (fastify's inject sets the peer address; a real one would need a second machine)
    const { buildCompatApp } = await import('../compat-rest/app.ts');
    const app = await buildCompatApp({ services: stack.compatServices, auth: stack.auth });
    const res = await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '10.1.2.3' });
    expect(res.statusCode).toBe(403);
    expect(JSON.parse(res.body).error).toMatch(/loopback/);
    await app.close();
  });
});

describe('request ids', () => {
  it('compat-rest answers with the id it was sent, or one it made, and the service runs under it', async () => {
    const seen: (string | undefined)[] = [];
    const original = stack.markets.historyCoins.bind(stack.markets);
    const spy = vi.spyOn(stack.markets, 'historyCoins').mockImplementation(async () => {
      seen.push(currentRequestId());
      return original();
    });
    try {
      const sent = await fetch(`${stack.urls.compat}/market/coins`, { headers: { 'x-request-id': 'client-7f3a' } });
      expect(sent.headers.get('x-request-id')).toBe('client-7f3a');
      const made = await fetch(`${stack.urls.compat}/market/coins`);
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(seen).toEqual(['client-7f3a', made.headers.get('x-request-id')]);
    } finally {
      spy.mockRestore();
    }
  });

  it('the router passes its request id to the subgraph, where the service runs under it', async () => {
    const seen: (string | undefined)[] = [];
    const original = stack.markets.mid.bind(stack.markets);
    const spy = vi.spyOn(stack.markets, 'mid').mockImplementation((coin) => {
      seen.push(currentRequestId());
      return original(coin);
    });
    try {
      const res = await fetch(stack.urls.router, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'router-req-42' },
        body: JSON.stringify({ query: '{ market(coin: "ETH") { mid } }' }),
      });
      expect(res.status).toBe(200);
      expect(seen).toContain('router-req-42');
    } finally {
      spy.mockRestore();
    }
  });

  it('every line logged while a request is served carries its id', () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const log = createLogger(sink, 'info').child({ server: 'test' });
    withRequestId('req-1', () => log.warn('inside'));
    log.warn('outside');
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'inside', reqId: 'req-1', server: 'test', level: 40 }),
      expect.not.objectContaining({ reqId: expect.anything() }),
    ]);
  });
});

// Last: once a key exists, every request needs one.
describe('credits', () => {
  it('counts the credits charged, per endpoint', async () => {
    const { key } = await createKey(stack.db.pool, { scope: 'data', credits: 100, label: 'metrics' });
    stack.auth.invalidate();
    const headers = { authorization: `Bearer ${key}` };
    expect((await fetch(`${stack.urls.compat}/market/coins`, { headers })).status).toBe(200);
    const graphql = await fetch(stack.urls.router, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ market(coin: "BTC") { mid } }' }),
    });
    expect(graphql.status).toBe(200);
    const m = await scrape(`${stack.urls.compat}/metrics`);
    expect(value(samples(m, 'hl_credits_charged_total', { endpoint: 'rest' })[0] ?? {})).toBe(1);
    expect(value(samples(m, 'hl_credits_charged_total', { endpoint: 'graphql' })[0] ?? {})).toBe(1);
  });
});
