// Tracing is off unless an OTLP endpoint is configured: nothing installed, the helpers call straight through. The
// traces themselves, on: test/tracing.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { injectTraceContext, startTracing, traceRequest, tracerOf, tracing, tracingConfigured } from './tracing.ts';

describe('tracing', () => {
  it('runs only with an endpoint, unless the SDK or the trace exporter is switched off', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('installs nothing when the endpoint is unset', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    expect(await startTracing()).toBe(false);
    expect(tracing()).toBe(false);
    expect(tracerOf('router')).toBeNull();
    // No provider registered: the API's tracer records nothing.
    expect(trace.getTracer('hl').startSpan('x').isRecording()).toBe(false);
    const headers = {};
    injectTraceContext(headers);
    expect(headers).toEqual({});
    // A request is served as it is, in no span.
    const server = createServer((req, res) =>
      traceRequest('compat', req, res, () => res.end(String(trace.getActiveSpan() === undefined))),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
      headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    });
    expect(await res.text()).toBe('true');
    await new Promise((r) => server.close(r));
  });
});
