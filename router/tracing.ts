// The router's spans (platform/tracing.ts), from Hive Gateway's instrumentation hooks: a server span per HTTP
// request continuing the client's trace, a span per GraphQL operation under it (named by the operation's type and
// name) and a client span per subgraph execution under that, whose context goes with the subgraph fetch as
// `traceparent` (Hive's fetches here; pass-through's own in router/pass-through.ts), so that the subgraph's span
// and its Postgres statements join the same trace.
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { type Span, SpanKind, trace } from '@opentelemetry/api';
import { type DocumentNode, getOperationAST } from 'graphql';
import { callerContext, endWhenSettled, injectTraceContext, inSpan, tracerOf } from '../platform/tracing.ts';

const PART = 'router';

/** The tracing plugin, or none while tracing is off in this thread. */
export function routerTracing(): GatewayPlugin[] {
  const tracer = tracerOf(PART);
  if (!tracer) return [];
  const operations = new WeakSet<Span>();
  /** Names the operation span active here after the operation it runs (known once parsed). */
  const nameOperation = (args: { document: DocumentNode; operationName?: string | null }) => {
    const span = trace.getActiveSpan();
    if (!span || !operations.has(span)) return;
    const operation = getOperationAST(args.document, args.operationName);
    const type = operation?.operation ?? 'query';
    const name = args.operationName ?? operation?.name?.value;
    span.updateName(name ? `${type} ${name}` : type).setAttribute('graphql.operation.type', type);
    if (name) span.setAttribute('graphql.operation.name', name);
  };
  return [
    {
      instrumentation: {
        request({ request }, wrapped) {
          const parent = callerContext(request.headers);
          const path = new URL(request.url).pathname;
          const span = tracer.startSpan(
            `${request.method} ${path}`,
            { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': path } },
            parent,
          );
          return endWhenSettled(span, inSpan(PART, span, wrapped, parent));
        },
        operation(_payload, wrapped) {
          const span = tracer.startSpan('graphql operation');
          operations.add(span);
          return endWhenSettled(span, inSpan(PART, span, wrapped));
        },
        subgraphExecute({ subgraphName }, wrapped) {
          const span = tracer.startSpan(`subgraph ${subgraphName}`, {
            kind: SpanKind.CLIENT,
            attributes: { 'graphql.subgraph.name': subgraphName },
          });
          return endWhenSettled(span, inSpan(PART, span, wrapped));
        },
      },
      onExecute: ({ args }) => nameOperation(args),
      onSubscribe: ({ args }) => nameOperation(args),
      onFetch({ options, setOptions }) {
        const headers = { ...options.headers };
        injectTraceContext(headers);
        setOptions({ ...options, headers });
      },
    },
  ];
}
