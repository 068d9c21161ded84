// Traces (platform/tracing.ts) as a collector receives them: a real OTLP/HTTP receiver (JSON) on an ephemeral port,
// the whole stack started with OTEL_EXPORTER_OTLP_ENDPOINT pointing at it, and one GraphQL query through the router
// to a subgraph reading Postgres: one trace, the router's spans (its thread's own provider), the subgraph's span
// under the router's subgraph fetch, and the Postgres statements under the subgraph's span. Tracing is
// process-wide, so this file (its own vitest worker) sets the variable before the stack starts; the default, off,
// is platform/tracing.test.ts's.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracing } from '../platform/tracing.ts';
import { postGraphql } from './graphql.ts';
import { startTestStack, type TestStack } from './stack.ts';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, OtlpValue>;
}
type OtlpRequest = {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: (Omit<ReceivedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[] }[];
  }[];
};

const received: ReceivedSpan[] = [];
const paths: string[] = [];
let receiver: Server;
let stack: TestStack;

/** An OTLP/HTTP trace receiver, as a collector is one: POST /v1/traces with the JSON encoding. */
function startReceiver(): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as OtlpRequest;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            const attributes = Object.fromEntries((s.attributes ?? []).map((a) => [a.key, a.value]));
            received.push({ ...s, service, attributes });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  receiver = await startReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Batches sent at once, not after the default 5 s.
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
  stack = await startTestStack({ historyMs: 300_000 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await new Promise((r) => receiver?.close(r));
});

/** Waits until the spans received satisfy `found` (the exporters batch them), and returns what it returns. */
async function eventually<T>(found: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const result = found();
    if (result !== undefined) return result;
    if (Date.now() > until)
      throw new Error(`spans not received in time; got ${JSON.stringify(received.map((s) => [s.service, s.name]))}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The spans received of one trace. */
const spansOf = (traceId: string) => received.filter((s) => s.traceId === traceId);

/** Whether `span`'s parent chain (within its trace) reaches `ancestor`. */
function under(span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  const spans = spansOf(span.traceId);
  const byId = (id: string | undefined) => (id ? spans.find((s) => s.spanId === id) : undefined);
  for (let s = byId(span.parentSpanId); s; s = byId(s.parentSpanId)) if (s.spanId === ancestor.spanId) return true;
  return false;
}

const isPostgres = (s: ReceivedSpan) =>
  (s.attributes['db.system.name'] ?? s.attributes['db.system'])?.stringValue === 'postgresql';

describe('traces', () => {
  it('follow a GraphQL query from the router through the subgraph to Postgres', async () => {
    expect(tracing()).toBe(true);
    const { status, body } = await postGraphql(
      stack.urls.router,
      'query TracedFills($coin: String!) { market(coin: $coin) { coin candles(interval: _1m, startTime: 0) { t } } }',
      { coin: 'BTC' },
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();

    const operation = await eventually(() =>
      received.find((s) => s.service === 'hl-router' && s.name === 'query TracedFills'),
    );
    const trace = () => spansOf(operation.traceId);
    const subgraph = await eventually(() =>
      trace().find((s) => s.service === 'hl-subgraph-markets' && s.kind === 2 /* SERVER */),
    );
    // A statement (pg.query:SELECT …), not the pool's connect span beside it.
    const postgres = await eventually(() =>
      trace().find((s) => isPostgres(s) && s.name.startsWith('pg.query') && under(s, subgraph)),
    );

    // The router's server span for the request, the operation under it, the subgraph fetch under that.
    const request = trace().find((s) => s.service === 'hl-router' && s.name === 'POST /graphql');
    expect(request).toBeDefined();
    expect(request?.parentSpanId ?? '').toBe('');
    expect(under(operation, request as ReceivedSpan)).toBe(true);
    expect(operation.attributes['graphql.operation.name']?.stringValue).toBe('TracedFills');
    const fetch = trace().find((s) => s.service === 'hl-router' && s.name === 'subgraph markets');
    expect(fetch && under(fetch, operation)).toBe(true);
    // The subgraph's span continues the router's trace under its fetch, and the statement under it.
    expect(under(subgraph, fetch as ReceivedSpan)).toBe(true);
    expect(under(postgres, operation)).toBe(true);
    expect(postgres.service).toBe('hl-subgraph-markets');
    expect(postgres.attributes['db.query.text']?.stringValue).toMatch(/^\s*select/i);
    expect(paths.every((p) => p.startsWith('POST /v1/traces application/json'))).toBe(true);
  });

  it('carry the context on the fetches Hive makes itself (an operation over two subgraphs)', async () => {
    const { status, body } = await postGraphql(
      stack.urls.router,
      'query TracedTraders { market(coin: "BTC") { trades(limit: 2) { users { address fills(first: 1) { totalCount } } } } }',
    );
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const operation = await eventually(() =>
      received.find((s) => s.service === 'hl-router' && s.name === 'query TracedTraders'),
    );
    // The accounts subgraph's span and its statements, under the router's fetch to it.
    const postgres = await eventually(() =>
      spansOf(operation.traceId).find((s) => s.service === 'hl-subgraph-accounts' && s.name.startsWith('pg.query')),
    );
    // Under one of the router's fetches to it (a plan may fetch from accounts more than once). The spans between
    // them (the subgraph's server span) may be exported after the statement's: waited for.
    const fetches = () =>
      spansOf(operation.traceId).filter((s) => s.service === 'hl-router' && s.name === 'subgraph accounts');
    const fetch = await eventually(() => fetches().find((f) => under(postgres, f)));
    expect(under(fetch, operation)).toBe(true);
    const markets = spansOf(operation.traceId).find((s) => s.service === 'hl-subgraph-markets' && s.kind === 2);
    expect(markets && under(markets, operation)).toBe(true);
  });

  it('give compat-rest requests a server span over their statements', async () => {
    const res = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      body: JSON.stringify({
        type: 'candleSnapshot',
        req: { coin: 'BTC', interval: '1m', startTime: Date.now() - 600_000, endTime: Date.now() },
      }),
    });
    expect(res.status).toBe(200);
    const server = await eventually(() => received.find((s) => s.service === 'hl-compat' && s.name === 'POST /info'));
    expect(server.kind).toBe(2);
    expect(server.attributes['http.response.status_code']?.intValue).toBe(200);
    const postgres = await eventually(() =>
      spansOf(server.traceId).find((s) => s.name.startsWith('pg.query') && under(s, server)),
    );
    expect(postgres.service).toBe('hl-compat');
  });
});
