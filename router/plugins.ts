// Router plugins: the API-key rules of spec §5 on every GraphQL request (the GraphiQL page itself is public), an
// abort signal per subgraph fetch, and error masking.
import type { IncomingMessage } from 'node:http';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { type DocumentNode, GraphQLError, type GraphQLSchema } from 'graphql';
import { maskError } from 'graphql-yoga';
import { type AuthOutcome, type KeyChecker, presentedKey } from '../access/auth.ts';
import { errorBody, graphqlCode, type Refusal } from '../platform/error-codes.ts';
import { operationCredits } from './credits.ts';

/** The key an operation's request presented: its HTTP request's, or its graphql-ws connection's. */
function operationKey(context: unknown): string | null {
  const c = (context ?? {}) as {
    request?: Request;
    req?: IncomingMessage;
    socket?: unknown;
    connectionParams?: unknown;
  };
  if (c.socket !== undefined && c.req) {
    const url = new URL(c.req.url ?? '/', 'http://localhost');
    return presentedKey({ headers: c.req.headers, query: url.searchParams, connectionParams: c.connectionParams });
  }
  if (c.request) {
    const url = new URL(c.request.url, 'http://localhost');
    return presentedKey({ headers: Object.fromEntries(c.request.headers), query: url.searchParams });
  }
  return null;
}

/**
 * The key rules of spec §5 on every request (401, 403, 429 with `Retry-After`), and each operation charged its
 * credits (router/credits.ts) before it runs: refused for credits, it does not run and answers 402.
 */
export function useApiKeys(auth: KeyChecker): GatewayPlugin {
  const charge = async (
    args: {
      document: DocumentNode;
      operationName?: string | null;
      variableValues?: unknown;
      contextValue: unknown;
      schema: GraphQLSchema;
    },
    refuse: (result: { errors: GraphQLError[] }) => void,
  ) => {
    const credits = operationCredits(
      args.document,
      args.operationName,
      (args.variableValues ?? {}) as Record<string, unknown>,
      { schema: args.schema },
    );
    if (credits instanceof GraphQLError) return refuse({ errors: [credits] });
    const outcome = await auth.charge(operationKey(args.contextValue), credits, 'graphql');
    if (!outcome.ok) refuse({ errors: [refusalError(outcome)] });
  };
  return {
    onExecute: ({ args, setResultAndStopExecution }) => charge(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => charge(args, setResultAndStopExecution),
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const wantsPage = request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
      if (wantsPage) return;
      const outcome = await auth.check(
        { headers: Object.fromEntries(request.headers), query: url.searchParams },
        'graphql',
      );
      if (!outcome.ok) {
        endResponse(
          new fetchAPI.Response(JSON.stringify(errorBody(outcome.code, outcome.error)), {
            status: outcome.status,
            headers: {
              'content-type': 'application/json',
              ...(outcome.status === 429 ? { 'retry-after': String(outcome.retryAfter) } : {}),
            },
          }),
        );
      }
    },
  };
}

/**
 * A key's or credits' refusal as a GraphQL error (an operation refused for its credits, one on a graphql-ws connection
 * whose key no longer passes): its message, its code's GraphQL form and its HTTP status.
 */
export function refusalError(refused: Refusal): GraphQLError {
  return new GraphQLError(refused.error, {
    extensions: { code: graphqlCode(refused.code), http: { status: refused.status } },
  });
}

/**
 * Gives every subgraph fetch an abort signal of its own that follows the one it was given. Where a client request
 * brings no signal, the HTTP executor passes its own long-lived one to every fetch, and each request in flight adds
 * a listener to it (removed when it ends): from eleven at once, node logs a "possible EventTarget memory leak" that
 * is not one. `AbortSignal.any` follows its source without adding a listener to it.
 */
export function useFetchSignalPerRequest(): GatewayPlugin {
  return {
    onFetch({ options, setOptions }) {
      if (options.signal) setOptions({ ...options, signal: AbortSignal.any([options.signal]) });
    },
  };
}

/**
 * The same rules for a graphql-ws connection: the key comes in its `connection_init` params or with its upgrade
 * request (headers, `?api_key=`).
 */
export function checkConnection(
  auth: KeyChecker,
  req: IncomingMessage,
  connectionParams: Readonly<Record<string, unknown>> | undefined,
): Promise<AuthOutcome> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  return auth.check({ headers: req.headers, query: url.searchParams, connectionParams }, 'graphql');
}

/**
 * Error masking for the router. A subgraph's error reaches the router runtime's subscriptions as the formatted
 * JSON its subgraph sent (a plain object tagged with `serviceName`), not as a GraphQLError, and would be masked as
 * unexpected. The subgraph has masked its own unexpected errors already: such an error is passed on as it was
 * sent. Everything else is masked as usual.
 */
export function maskRouterError(error: unknown, message: string, isDev?: boolean): Error {
  const sent = error as { message?: unknown; path?: unknown; extensions?: Record<string, unknown> } | null;
  if (
    !(error instanceof Error) &&
    typeof sent?.message === 'string' &&
    typeof sent.extensions === 'object' &&
    sent.extensions !== null &&
    typeof sent.extensions.serviceName === 'string'
  ) {
    return new GraphQLError(sent.message, {
      path: Array.isArray(sent.path) ? (sent.path as (string | number)[]) : undefined,
      extensions: sent.extensions,
    });
  }
  return maskError(error, message, isDev);
}
