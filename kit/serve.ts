// Serves one subgraph schema: graphql-yoga over HTTP (queries, and subscriptions over SSE) and graphql-ws on the
// same `/graphql` path, every operation going through yoga's plugins with a fresh context (dataloaders cache on it).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { GraphQLError, type GraphQLSchema, getOperationAST } from 'graphql';
import { createYoga, maskError } from 'graphql-yoga';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../db/unavailable.ts';
import { type ErrorCode, graphqlCode } from '../platform/error-codes.ts';
import { FieldError } from '../platform/fields.ts';
import { MAX_SUBGRAPH_OPERATION_FIELDS, OPERATION_TIMEOUT_MS, useOperationBounds } from '../platform/graphql-limits.ts';
import { serveGraphqlWs } from '../platform/graphql-ws.ts';
import { boundedBodies } from '../platform/http-body.ts';
import { REQUEST_ID_HEADER, requestIdOf, withRequestId } from '../platform/log.ts';
import { type SubscriptionStats, sharedSubscriptions } from '../platform/shared-subscriptions.ts';
import { traceRequest, tracing } from '../platform/tracing.ts';
import { UpstreamError } from '../platform/upstream.ts';
import { useArgumentNamingValidation } from './scalars.ts';

export interface RunningServer {
  url: string;
  /** Subscription executions running now and their subscribers (identical subscriptions share one). */
  subscriptions(): SubscriptionStats;
  /**
   * A GraphQL POST answered without a socket (router/thread.ts): the same yoga, plugins, limits, masking
   * and request id as over HTTP, and the same status, media type and bytes. Null while tracing runs: a traced
   * request takes HTTP, whose server span continues the router's trace.
   */
  answer(request: LocalRequest): Promise<LocalReply> | null;
  close(): Promise<void>;
}

/** A subgraph request as the router would POST it: the JSON body, its Accept header and the client's request id. */
export interface LocalRequest {
  body: string;
  accept: string;
  requestId: string;
}

/** A subgraph's answer as HTTP would have carried it. */
export interface LocalReply {
  status: number;
  contentType: string;
  body: Uint8Array;
}

/**
 * Error masking, the GraphQL edge's one mapping of the services' errors, each with its code's GraphQL form
 * (platform/error-codes.ts): bad input (a FieldError, from an argument check or a service) is an error with its
 * message and the code `BAD_USER_INPUT`; a resolver that could not reach storage gives `storage unavailable` with the
 * code `STORAGE_UNAVAILABLE` (on every transport, and relayed as it is by the router); one that could not use the
 * node's /info (a relayed field: a market's metadata, open orders) gives the reason compat-rest's 502 gives,
 * `Upstream unreachable: ...` or `Upstream error: ...`, with the code `UPSTREAM_ERROR`; other unexpected errors are
 * masked as usual.
 */
export function maskSubgraphError(error: unknown, message: string, isDev?: boolean): Error {
  const original = error instanceof GraphQLError ? error.originalError : error;
  const at = error instanceof GraphQLError ? error : undefined;
  const located = (text: string, code: ErrorCode) =>
    new GraphQLError(text, {
      nodes: at?.nodes,
      source: at?.source,
      positions: at?.positions,
      path: at?.path,
      extensions: { code: graphqlCode(code) },
    });
  if (original instanceof FieldError) return located(graphqlNames(original.message), original.code);
  if (original instanceof UpstreamError) return located(original.callerMessage, original.code);
  if (original && !(original instanceof GraphQLError) && isStorageUnavailable(original)) {
    return located(STORAGE_UNAVAILABLE, 'storage_unavailable');
  }
  return maskError(error, message, isDev);
}

/**
 * A service's message names the field as the spec's path routes do (`min_trades: ...`); GraphQL's arguments are the
 * same names in camelCase (`minTrades`), which the message then names.
 */
const graphqlNames = (message: string) =>
  message.replace(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?=:)/, (key) =>
    key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()),
  );

/** A caller's bad input, which its answer already explains (the FieldError, as thrown or wrapped by GraphQL). */
const isBadInput = (value: unknown) =>
  value instanceof FieldError || (value instanceof GraphQLError && value.originalError instanceof FieldError);

/** Warnings and errors on stderr, as yoga writes them, less the refusals of bad input (not the operator's concern). */
const subgraphLog = {
  debug: () => {},
  info: () => {},
  warn: (...args: unknown[]) => console.warn('WRN', ...args),
  error: (...args: unknown[]) => {
    if (!args.some(isBadInput)) console.error('ERR', ...args);
  },
};

export async function serveSubgraph(
  name: string,
  schema: GraphQLSchema,
  opts: { port: number; host?: string; context?: object },
): Promise<RunningServer> {
  const shared = sharedSubscriptions();
  const yoga = createYoga({
    schema,
    plugins: [
      // Queries run as code compiled per document (graphql-jit; cached while the parsed document is): User.fills of
      // 2 000 fills went from p50 38-51 ms to 29-34 ms on the subgraph. Subscriptions keep graphql-js, under the
      // shared-execution plugin.
      useGraphQlJit(
        {},
        { enableIf: (args) => getOperationAST(args.document, args.operationName)?.operation === 'query' },
      ),
      // After graphql-jit, whose execute its timeout wraps. The field bound is twice the router's: the router's
      // planned fetches add key fields and __typename to what its clients select.
      useOperationBounds({ maxFields: MAX_SUBGRAPH_OPERATION_FIELDS, timeoutMs: OPERATION_TIMEOUT_MS }),
      shared.plugin,
      useArgumentNamingValidation(),
    ],
    context: opts.context ?? {},
    maskedErrors: { maskError: maskSubgraphError },
    graphqlEndpoint: '/graphql',
    graphiql: { title: `${name} subgraph` },
    landingPage: false,
    logging: subgraphLog,
  });
  // Each request runs as part of the client request the router names in `x-request-id` (platform/log.ts), and,
  // traced, in a span continuing the router's trace (platform/tracing.ts).
  const part = `subgraph-${name}`;
  const serve = tracing()
    ? (req: IncomingMessage, res: ServerResponse) => traceRequest(part, req, res, () => yoga(req, res))
    : (req: IncomingMessage, res: ServerResponse) => yoga(req, res);
  const server = createServer(
    boundedBodies((req, res) => withRequestId(requestIdOf(req.headers[REQUEST_ID_HEADER]), () => serve(req, res))),
  );
  type Enveloped = ReturnType<typeof yoga.getEnveloped>;
  type Args = { rootValue: unknown } & Parameters<Enveloped['execute']>[0];
  const ws = serveGraphqlWs({
    server,
    path: yoga.graphqlEndpoint,
    options: {
      execute: (args) => ((args as Args).rootValue as Enveloped).execute(args as Args),
      subscribe: (args) => ((args as Args).rootValue as Enveloped).subscribe(args as Args),
      onSubscribe: async (ctx, _id, payload) => {
        const env = yoga.getEnveloped({ ...ctx, req: ctx.extra.request, socket: ctx.extra.socket, params: payload });
        const document = env.parse(payload.query);
        const errors = env.validate(env.schema, document);
        if (errors.length) return errors;
        return {
          schema: env.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await env.contextFactory(),
          rootValue: env,
        };
      },
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${opts.host ?? '127.0.0.1'}:${port}/graphql`;
  return {
    url,
    subscriptions: shared.stats,
    answer(request) {
      if (tracing()) return null;
      const headers = { 'content-type': 'application/json', accept: request.accept };
      return withRequestId(requestIdOf(request.requestId), async () => {
        const res = await yoga.fetch(url, { method: 'POST', headers, body: request.body });
        const body = new Uint8Array(await res.arrayBuffer());
        return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
      });
    },
    async close() {
      await ws.dispose();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
