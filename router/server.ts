// The router: Hive Gateway runtime over the composed supergraph. Clients use HTTP (queries, SSE subscriptions)
// and graphql-ws on /graphql; subgraph subscriptions travel over graphql-ws. Operations are bounded by their field
// selections with fragments expanded (before planning), depth, token count, estimated cost and execution time; the
// key rules of spec §5 apply (plugins in router/plugins.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createGatewayRuntime, getGraphQLWSOptions } from '@graphql-hive/gateway-runtime';
import { ConsoleLogWriter, Logger } from '@graphql-hive/logger';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { CloseCode, type ServerOptions } from 'graphql-ws';
import type { AuthOutcome, KeyChecker } from '../access/auth.ts';
import { graphqlCode } from '../platform/error-codes.ts';
import { MAX_OPERATION_FIELDS, OPERATION_TIMEOUT_MS, useOperationBounds } from '../platform/graphql-limits.ts';
import { type GraphqlWsExtra, MAX_SUBSCRIPTIONS_PER_CONNECTION, serveGraphqlWs } from '../platform/graphql-ws.ts';
import { boundedBodies } from '../platform/http-body.ts';
import { sharedSubscriptions } from '../platform/shared-subscriptions.ts';
import { useCors } from './cors.ts';
import { graphiqlPage } from './graphiql.ts';
import { useGraphiQLAssets } from './graphiql-bundle.ts';
import { downstreamRefusal, useSafeIntegerLiterals } from './input.ts';
import { routerMetrics } from './metrics.ts';
import { type LocalSubgraphs, passThrough } from './pass-through.ts';
import { checkConnection, maskRouterError, refusalError, useApiKeys, useFetchSignalPerRequest } from './plugins.ts';
import { dropRefusedRequestId, routerRequestIds } from './request-id.ts';
import { routerTracing } from './tracing.ts';

export interface RouterLimits {
  maxDepth: number;
  maxTokens: number;
  maxCost: number;
  /** Field selections with fragments expanded and aliases counted (platform/graphql-limits.ts). */
  maxFields?: number;
  /** How long a query or mutation may run. */
  operationTimeoutMs?: number;
}

export const DEFAULT_LIMITS: RouterLimits = {
  maxDepth: 10,
  maxTokens: 2000,
  maxCost: 50_000,
  maxFields: MAX_OPERATION_FIELDS,
  operationTimeoutMs: OPERATION_TIMEOUT_MS,
};

export interface RouterOptions {
  supergraphSdl: string;
  port: number;
  host?: string;
  auth?: KeyChecker;
  limits?: RouterLimits;
  /**
   * Merge identical in-flight subgraph requests: for every subgraph, or per subgraph name (unnamed ones: on, Hive's
   * default). Merging structured-clones each answer for every caller, so it pays where identical requests meet.
   * Queries answered by pass-through share their fetch whatever this says (router/pass-through.ts): bytes need no
   * clone.
   */
  deduplicateInflightRequests?: boolean | Record<string, boolean>;
  /** Answer queries planned as one subgraph fetch with that subgraph's bytes (router/pass-through.ts); default on. */
  passThrough?: boolean;
  /** Origins answered with credentials allowed (`CORS_ORIGINS`); any other gets `*` without (router/cors.ts). */
  corsOrigins?: readonly string[];
  /**
   * Subgraphs of this process, answered without a socket where pass-through sends a query whole
   * (router/thread.ts); every other subgraph, and every other fetch, over HTTP and graphql-ws.
   */
  local?: LocalSubgraphs;
}

/** Subgraph transport: subscriptions over graphql-ws; merging for all, or per subgraph (which Hive merges first). */
function transportEntries(merging: boolean | Record<string, boolean>) {
  const http = { subscriptions: { kind: 'ws' as const, location: '/graphql' } };
  if (typeof merging === 'boolean') return { '*.http': { options: { ...http, deduplicateInflightRequests: merging } } };
  return {
    '*.http': { options: http },
    ...Object.fromEntries(
      Object.entries(merging).map(([name, on]) => [name, { options: { deduplicateInflightRequests: on } }]),
    ),
  };
}

type WsOptions = ServerOptions<Record<string, unknown> | undefined, GraphqlWsExtra>;

/** graphql-ws close codes for the refusals of spec §5 (4401 and 4403 are graphql-ws's own; 4xxx mirrors HTTP). */
const CLOSE_CODE: Record<401 | 403 | 429 | 503, number> = {
  401: CloseCode.Unauthorized,
  403: CloseCode.Forbidden,
  429: 4429,
  // The key could not be looked up (storage down): graphql-ws clients retry 4503, unlike 4401 and 4429.
  503: 4503,
};

/**
 * The key rules on graphql-ws. The upgrade is never refused for its key: a browser cannot set headers on it, so the
 * key may come in `connection_init`. That message is checked like an HTTP request (and counted in the key's
 * window); a refusal closes the connection with 4401, 4403 or 4429 and the HTTP error's message as the reason, which
 * graphql-ws clients report (a bare HTTP 401 at the upgrade would reach them as an unexplained failure). Every
 * operation on an open connection is checked and counted again with the same key, so a revoked key stops being
 * served; a refused operation gets an `error` message naming the rule (its connection stays open for the next
 * minute's operations).
 */
function withKeyChecks(auth: KeyChecker | undefined, options: WsOptions): WsOptions {
  if (!auth) return options;
  const { onConnect, onSubscribe } = options;
  return {
    ...options,
    async onConnect(ctx) {
      let outcome: AuthOutcome;
      try {
        outcome = await checkConnection(auth, ctx.extra.request, ctx.connectionParams);
      } catch {
        // The main thread could not answer the check at all: treated as storage down.
        ctx.extra.socket.close(CLOSE_CODE[503], 'storage unavailable');
        return false;
      }
      if (!outcome.ok) {
        // Closed here with the reason; graphql-ws's own close for `false` (4403 Forbidden) comes second and is ignored.
        ctx.extra.socket.close(CLOSE_CODE[outcome.status], outcome.error);
        return false;
      }
      return onConnect?.(ctx);
    },
    async onSubscribe(ctx, id, payload) {
      const outcome = await checkConnection(auth, ctx.extra.request, ctx.connectionParams);
      if (!outcome.ok) return [refusalError(outcome)];
      return onSubscribe?.(ctx, id, payload);
    },
  };
}

/** Whether a log record is about a caller's bad input (a subgraph's BAD_USER_INPUT), which its answer explains. */
function aboutBadInput(value: unknown, depth = 0): boolean {
  if (depth > 4 || value === null || typeof value !== 'object') return false;
  if ((value as { extensions?: { code?: unknown } }).extensions?.code === graphqlCode('bad_input')) return true;
  return Object.values(value).some((v) => aboutBadInput(v, depth + 1));
}

/** Warnings and errors on stderr, as Hive writes them, less the refusals of bad input (not the operator's concern). */
const stderrWriter = new ConsoleLogWriter();
const routerLog = new Logger({
  level: 'warn',
  writers: [
    { write: (level, attrs, msg) => (aboutBadInput(attrs) ? undefined : stderrWriter.write(level, attrs, msg)) },
  ],
});

export async function startRouter(opts: RouterOptions) {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  // Identical client subscriptions share one execution here, and so one upstream subscription to the subgraph.
  const shared = sharedSubscriptions();
  const bytes =
    opts.passThrough === false ? null : passThrough({ supergraphSdl: opts.supergraphSdl, local: opts.local });
  const gateway = createGatewayRuntime({
    supergraph: opts.supergraphSdl,
    // Hive Router's query planner and executor (native planner, projection-based results): about twice the
    // throughput of the default stitching runtime on our queries (npm run bench, "markets GraphQL query").
    unifiedGraphHandler,
    maskedErrors: { maskError: (error, message, isDev) => maskRouterError(downstreamRefusal(error), message, isDev) },
    graphqlEndpoint: '/graphql',
    landingPage: false,
    cors: false,
    // GraphiQL's page with its scripts and styles from node_modules, served by the router (useGraphiQLAssets): it
    // works without internet (the default page loads them from a CDN). Its options and the page's key:
    // router/graphiql.ts.
    ...graphiqlPage(opts.auth),
    logging: routerLog,
    requestId: routerRequestIds,
    transportEntries: transportEntries(opts.deduplicateInflightRequests ?? true),
    demandControl: { maxCost: limits.maxCost, includeExtensionMetadata: false },
    plugins: (ctx) => [
      // First: its spans wrap everything the other plugins do (none while tracing is off).
      ...routerTracing(),
      useCors(opts.corsOrigins ?? []),
      // Before the key check: the GraphiQL page needs no key, nor do the files it loads.
      useGraphiQLAssets(),
      // Before the key check: /metrics has its own rule (loopback peers).
      ...routerMetrics(ctx),
      ...(opts.auth ? [useApiKeys(opts.auth)] : []),
      useFetchSignalPerRequest(),
      // Before validation and planning: what an operation expands to is bounded before anything expands it.
      useOperationBounds({
        maxFields: limits.maxFields ?? MAX_OPERATION_FIELDS,
        timeoutMs: limits.operationTimeoutMs ?? OPERATION_TIMEOUT_MS,
      }),
      ...(bytes ? [bytes.plugin] : []),
      useSafeIntegerLiterals(),
      maxTokensPlugin({ n: limits.maxTokens }),
      maxDepthPlugin({ n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true }),
      shared.plugin,
    ],
  });
  // The runtime builds its schema on the first HTTP request; a graphql-ws subscription arriving first would find
  // none ("Expected null to be a GraphQL schema"). Build it before accepting anything.
  await gateway.getSchema();
  const server = createServer(
    boundedBodies((req, res) => {
      dropRefusedRequestId(req);
      return gateway(req, res);
    }),
  );
  const ws = serveGraphqlWs({
    server,
    path: gateway.graphqlEndpoint,
    maxSubscriptionsPerConnection: MAX_SUBSCRIPTIONS_PER_CONNECTION,
    options: withKeyChecks(
      opts.auth,
      getGraphQLWSOptions<Record<string, unknown>, GraphqlWsExtra>(gateway, (ctx) => ({
        req: ctx.extra?.request,
        socket: ctx.extra?.socket,
        connectionParams: ctx.connectionParams,
      })),
    ),
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/graphql`,
    subscriptions: shared.stats,
    passThrough: { answered: () => bytes?.answered() ?? 0 },
    async close() {
      await ws.dispose();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await gateway[Symbol.asyncDispose]();
      bytes?.close();
    },
  };
}
