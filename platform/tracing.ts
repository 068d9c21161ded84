// OpenTelemetry traces, only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT, or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT): off, nothing is loaded, no hook is installed and every helper here calls
// straight through. On, one trace follows a client request through the router (its thread has its own providers:
// router/tracing.ts), the subgraph it calls (the W3C `traceparent` header, as the request id travels) and the
// subgraph's Postgres statements; compat-rest's requests get a server span over their statements too.
//
// Each server reports under its own `service.name` (hl-router, hl-subgraph-<domain>, hl-compat; OTEL_SERVICE_NAME
// replaces the `hl`). One process serves several of them, so a tracer provider per service shares one batch
// processor and OTLP/HTTP exporter (JSON; the standard OTEL_EXPORTER_OTLP_* and OTEL_BSP_* variables apply). The
// Postgres spans come from @opentelemetry/instrumentation-pg applied to the loaded `pg` itself, not through a
// require hook: under ESM the app imports `pg` before any hook could be registered. They are made only inside a
// request's span, in the provider of the server serving it (ingest's and the derivation's statements stay
// untraced).
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  type Context,
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';

/** Whether `env` configures an OTLP trace endpoint (and does not switch the SDK or the trace exporter off). */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

interface Running {
  tracerOf(service: string): Tracer;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let running: Running | null = null;
let starting: Promise<Running | null> | undefined;

/** The server whose request is being served: its spans, and the statements' spans under them, report as it. */
const SERVICE = createContextKey('hl.service');

/** A service's name as it reports: `hl-<part>`, or OTEL_SERVICE_NAME's value in place of `hl`. */
export const serviceName = (part: string): string => `${process.env.OTEL_SERVICE_NAME || 'hl'}-${part}`;

async function load(): Promise<Running> {
  const [sdk, { OTLPTraceExporter }, resources, { PgInstrumentation }, pg] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-pg'),
    import('pg'),
  ]);
  const processor = new sdk.BatchSpanProcessor(new OTLPTraceExporter());
  // The SDK's attributes, and OTEL_RESOURCE_ATTRIBUTES (OTEL_SERVICE_NAME for what reports as no particular server).
  const base = resources.defaultResource().merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = (name?: string) =>
    new sdk.NodeTracerProvider({
      resource: name ? base.merge(resources.resourceFromAttributes({ 'service.name': name })) : base,
      spanProcessors: [processor],
    });
  // The process's default provider, with the context manager that carries the active span across async calls and
  // the W3C propagators.
  const fallback = provider();
  fallback.register();
  const providers = new Map<string, TracerProvider>();
  const tracerOf = (service: string) => {
    let p = providers.get(service);
    if (!p) {
      p = provider(service);
      providers.set(service, p);
    }
    return p.getTracer('hl');
  };
  const tracerIn = (ctx: Context) => {
    const service = ctx.getValue(SERVICE);
    return typeof service === 'string' ? tracerOf(service) : fallback.getTracer('hl');
  };
  // Starts each span in the provider of the service the context names.
  const routed: Tracer = {
    startSpan: (name, options, ctx = context.active()) => tracerIn(ctx).startSpan(name, options, ctx),
    startActiveSpan: ((...args: Parameters<Tracer['startActiveSpan']>) =>
      (tracerIn(context.active()).startActiveSpan as (...a: unknown[]) => unknown)(
        ...args,
      )) as Tracer['startActiveSpan'],
  };
  // instrumentation-pg's patches applied by hand to the `pg` loaded here (the app's) and to pg-pool's Pool, which
  // pg's extends: spans for the statements (pg.Client#query), and the pool's connects keeping the caller's context
  // for a query that waits for a client.
  const pgTracing = new PgInstrumentation({ enabled: false, requireParentSpan: true });
  pgTracing.setTracerProvider({ getTracer: () => routed });
  const patched = new Map<string, object>([
    ['pg', pg.default],
    ['pg-pool', Object.getPrototypeOf(pg.default.Pool) as object],
  ]);
  const definitions = pgTracing.getModuleDefinitions().filter((d) => patched.has(d.name));
  for (const d of definitions) d.patch?.(patched.get(d.name));
  return {
    tracerOf,
    flush: () => processor.forceFlush(),
    async shutdown() {
      for (const d of definitions) d.unpatch?.(patched.get(d.name));
      await processor.shutdown();
    },
  };
}

/**
 * Starts tracing once per process (or thread) if an endpoint is configured; resolves with whether it runs. Servers
 * started after it install their span hooks; servers started while it is off install none.
 */
export function startTracing(): Promise<boolean> {
  starting ??= tracingConfigured() ? load() : Promise.resolve(null);
  return starting.then((r) => {
    running = r;
    return r !== null;
  });
}

/** Where the spans go, as the exporter reads the standard variables. */
export const tracesEndpoint = (env: NodeJS.ProcessEnv = process.env): string =>
  env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || `${(env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/$/, '')}/v1/traces`;

/** Whether tracing runs here. */
export const tracing = (): boolean => running !== null;

/** Sends the spans ended so far (a stop, a test waiting for them). */
export const flushTracing = async (): Promise<void> => running?.flush();

/** Sends the spans ended so far and stops tracing here (a thread that ends). */
export async function shutdownTracing(): Promise<void> {
  const stopping = running;
  running = null;
  starting = undefined;
  await stopping?.shutdown();
}

/** The tracer of a server of this process (`part` as serviceName takes it); null when tracing is off. */
export const tracerOf = (part: string): Tracer | null => running?.tracerOf(serviceName(part)) ?? null;

/** Runs `fn` in a context where `span` is active and the spans started under it report as `part`. */
export const inSpan = <T>(part: string, span: Span, fn: () => T, parent: Context = context.active()): T =>
  context.with(trace.setSpan(parent, span).setValue(SERVICE, serviceName(part)), fn);

/** Ends `span` once `result` settles (a promise, or any thenable), marked as failed if it rejects. */
export function endWhenSettled<T>(span: Span, result: T): T {
  if (typeof (result as { then?: unknown } | undefined)?.then !== 'function') {
    span.end();
    return result;
  }
  return Promise.resolve(result).then(
    (value) => {
      span.end();
      return value;
    },
    (err: unknown) => {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw err;
    },
  ) as T;
}

/** The trace context a caller sent in request headers (node's, or a fetch Request's). */
export function callerContext(headers: IncomingHttpHeaders | Headers): Context {
  if (!(headers instanceof Headers)) return propagation.extract(ROOT_CONTEXT, headers);
  return propagation.extract(ROOT_CONTEXT, headers, {
    get: (h, key) => h.get(key) ?? undefined,
    keys: (h) => [...h.keys()],
  });
}

/** Adds the active span's `traceparent` to outgoing request headers (nothing while tracing is off). */
export function injectTraceContext(headers: Record<string, string | string[] | number | undefined>): void {
  if (running) propagation.inject(context.active(), headers);
}

/**
 * Serves a node HTTP request of server `part` inside a server span continuing the caller's trace; the span is
 * named `METHOD route` (`route()`, asked when the response is done, or the path) and ends with the response.
 * While tracing is off: `fn()`.
 */
export function traceRequest<T>(
  part: string,
  req: IncomingMessage,
  res: ServerResponse,
  fn: () => T,
  route?: () => string | undefined,
): T {
  const tracer = tracerOf(part);
  if (!tracer) return fn();
  const path = (req.url ?? '/').split('?')[0] as string;
  const parent = callerContext(req.headers);
  const span = tracer.startSpan(
    `${req.method} ${path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path } },
    parent,
  );
  res.once('close', () => {
    const name = route?.();
    if (name) span.updateName(`${req.method} ${name}`).setAttribute('http.route', name);
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500 || !res.writableFinished) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  return inSpan(part, span, fn, parent);
}
