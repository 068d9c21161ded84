// The service's error codes, in one table: each kind of refusal by a stable snake_case name, with the HTTP status it
// answers and its GraphQL `extensions.code`. Every interface names a refusal by it: REST bodies, /ws error frames,
// GraphQL errors and MCP tool errors (the table for readers: docs/access.md#error-codes; OpenAPI's `code` enum).

/**
 * Code → HTTP status and GraphQL form. GraphQL keeps the codes its clients already read where one existed
 * (`BAD_USER_INPUT` for every kind of bad input, Apollo's; `UPSTREAM_ERROR`, `STORAGE_UNAVAILABLE`,
 * `INSUFFICIENT_CREDITS`, `OPERATION_TIMEOUT`, this service's since before the table); the others are the name in
 * upper case, or Apollo's `UNAUTHENTICATED` and `FORBIDDEN` for keys.
 */
export const ERROR_CODES = {
  /** A field or parameter breaks its rule; the message names it and the rule. */
  bad_input: { status: 400, graphql: 'BAD_USER_INPUT' },
  /** A field or parameter the request does not take; the message lists those it takes. */
  unknown_parameter: { status: 400, graphql: 'BAD_USER_INPUT' },
  /** An /info `type`, a /ws subscription or post type, or an MCP tool that is not served. */
  unknown_type: { status: 400, graphql: 'BAD_USER_INPUT' },
  /** A body (or /ws frame) that is empty, not JSON, or not a JSON object. */
  malformed_json: { status: 400, graphql: 'BAD_USER_INPUT' },
  body_too_large: { status: 413, graphql: 'BODY_TOO_LARGE' },
  not_found: { status: 404, graphql: 'NOT_FOUND' },
  method_not_allowed: { status: 405, graphql: 'METHOD_NOT_ALLOWED' },
  missing_key: { status: 401, graphql: 'UNAUTHENTICATED' },
  invalid_key: { status: 401, graphql: 'UNAUTHENTICATED' },
  /** A key that existed and was revoked (its message still reads `invalid api key`, as spec §7 words it). */
  revoked_key: { status: 401, graphql: 'UNAUTHENTICATED' },
  /** A tool-server-only key on REST, /ws or GraphQL: the code is also the message, as spec §7 has it. */
  mcp_only_key: { status: 403, graphql: 'FORBIDDEN' },
  /** Served to some callers only: metrics to loopback peers, the tool server to its allowed hosts. */
  forbidden: { status: 403, graphql: 'FORBIDDEN' },
  insufficient_credits: { status: 402, graphql: 'INSUFFICIENT_CREDITS' },
  /** Over the key's requests per minute, or a connection's pending requests or stored snapshots. */
  rate_limited: { status: 429, graphql: 'RATE_LIMITED' },
  /** A /ws or graphql-ws connection at its subscription cap. */
  too_many_subscriptions: { status: 429, graphql: 'TOO_MANY_SUBSCRIPTIONS' },
  upstream_unreachable: { status: 502, graphql: 'UPSTREAM_ERROR' },
  /** The node answered, with a failure of its own. */
  upstream_error: { status: 502, graphql: 'UPSTREAM_ERROR' },
  storage_unavailable: { status: 503, graphql: 'STORAGE_UNAVAILABLE' },
  /** The server is stopping: another instance, or this one restarted, will answer. */
  shutting_down: { status: 503, graphql: 'SHUTTING_DOWN' },
  /** A GraphQL query or mutation over its time. */
  timeout: { status: 504, graphql: 'OPERATION_TIMEOUT' },
  /** An MCP tool call stopped before its answer (the caller cancelled it, or the server is stopping): nginx's 499. */
  cancelled: { status: 499, graphql: 'CANCELLED' },
  /** Our bug: logged, and the answer says nothing more. */
  internal_error: { status: 500, graphql: 'INTERNAL_SERVER_ERROR' },
} as const satisfies Record<string, { status: number; graphql: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of a code, typed as its literal (a 401 code gives `401`). */
export type StatusOf<C extends ErrorCode> = (typeof ERROR_CODES)[C]['status'];

export const statusOf = <C extends ErrorCode>(code: C): StatusOf<C> => ERROR_CODES[code].status;

export const graphqlCode = (code: ErrorCode): string => ERROR_CODES[code].graphql;

/**
 * Every JSON error body: `error`, which every client of the service has read, and `code` and `msg`, which the
 * exchange's Python SDK reads on a 4xx (hyperliquid/api.py `API._handle_exception`: `err["code"]`, `err["msg"]`;
 * `data` it reads with `.get`, so none is sent).
 */
export type ErrorBody = {
  error: string;
  code: ErrorCode;
  msg: string;
};

export const errorBody = (code: ErrorCode, message: string): ErrorBody => ({ error: message, code, msg: message });

/** The code an error body names, when it is one of ours (a relayed node answer is not). */
export function codeOfBody(body: unknown): ErrorCode | undefined {
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code) ? (code as ErrorCode) : undefined;
}

/** A refusal as a check returns it (access/auth.ts, access/credits.ts): its code, its code's status, its message. */
export interface Refusal<C extends ErrorCode = ErrorCode> {
  ok: false;
  status: StatusOf<C>;
  code: C;
  error: string;
}

export const refusal = <C extends ErrorCode>(code: C, error: string): Refusal<C> => ({
  ok: false,
  status: statusOf(code),
  code,
  error,
});
