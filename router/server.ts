// The router: Hive Gateway runtime over the composed supergraph. Clients use HTTP (queries, SSE subscriptions)
// and graphql-ws on /graphql; subgraph subscriptions travel over graphql-ws. Operations are bounded by depth,
// token count and estimated cost; the key rules of spec §5 apply (plugins in router/plugins.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createGatewayRuntime, getGraphQLWSOptions } from '@graphql-hive/gateway-runtime';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { GraphQLError } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
import type { KeyChecker } from '../platform/auth.ts';
import { type GraphqlWsExtra, serveGraphqlWs } from '../platform/graphql-ws.ts';
import { sharedSubscriptions } from '../platform/shared-subscriptions.ts';
import { downstreamRefusal, useSafeIntegerLiterals } from './input.ts';
import { passThrough } from './pass-through.ts';
import { checkUpgrade, maskRouterError, useApiKeys, useFetchSignalPerRequest } from './plugins.ts';

export interface RouterLimits {
  maxDepth: number;
  maxTokens: number;
  maxCost: number;
}

export const DEFAULT_LIMITS: RouterLimits = { maxDepth: 10, maxTokens: 2000, maxCost: 50_000 };

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

/**
 * Every operation on a graphql-ws connection is a request like an HTTP one: it is checked with the key the
 * connection presented at its upgrade, and counted in the key's per-minute window. A refused operation gets an
 * `error` message naming the rule (its connection stays open for the next minute's operations).
 */
function withOperationKeyCheck(auth: KeyChecker | undefined, options: WsOptions): WsOptions {
  if (!auth) return options;
  const onSubscribe = options.onSubscribe;
  return {
    ...options,
    async onSubscribe(ctx, id, payload) {
      const outcome = await checkUpgrade(auth, ctx.extra.request);
      if (!outcome.ok) return [new GraphQLError(outcome.error, { extensions: { http: { status: outcome.status } } })];
      return onSubscribe?.(ctx, id, payload);
    },
  };
}

export async function startRouter(opts: RouterOptions) {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  // Identical client subscriptions share one execution here, and so one upstream subscription to the subgraph.
  const shared = sharedSubscriptions();
  const bytes = opts.passThrough === false ? null : passThrough({ supergraphSdl: opts.supergraphSdl });
  const gateway = createGatewayRuntime({
    supergraph: opts.supergraphSdl,
    // Hive Router's query planner and executor (native planner, projection-based results): about twice the
    // throughput of the default stitching runtime on our queries (npm run bench, "markets GraphQL query").
    unifiedGraphHandler,
    maskedErrors: { maskError: (error, message, isDev) => maskRouterError(downstreamRefusal(error), message, isDev) },
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: { title: 'Hyperliquid data graph' },
    logging: 'warn',
    transportEntries: transportEntries(opts.deduplicateInflightRequests ?? true),
    demandControl: { maxCost: limits.maxCost, includeExtensionMetadata: false },
    plugins: () => [
      ...(opts.auth ? [useApiKeys(opts.auth)] : []),
      useFetchSignalPerRequest(),
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
  const server = createServer(gateway);
  const auth = opts.auth;
  const ws = serveGraphqlWs({
    server,
    path: gateway.graphqlEndpoint,
    verifyClient: auth
      ? (info, done) => {
          checkUpgrade(auth, info.req).then(
            (o) => (o.ok ? done(true) : done(false, o.status, o.error)),
            () => done(false, 503, 'storage unavailable'),
          );
        }
      : undefined,
    options: withOperationKeyCheck(
      auth,
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
