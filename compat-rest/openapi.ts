// The OpenAPI 3.1 document of compat-rest (GET /openapi.json) and its docs page (GET /docs), both made by the
// fastify ecosystem's plugins from the schemas the routes validate with: a path route's `schema` as fastify reads
// it, POST /info's body as each /info type's reading checks it (one request schema per `type`, discriminated on `type`)
// and its answer per `type` (each /info entry's `response`, a component `info.<type>`).
// The docs page's assets (swagger-ui) are served from node_modules: the page works without internet.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { dataEnvelopeOf, PAGING_HEADERS, type RouteAnswer } from '../kit/answers.ts';
import { ERROR_CODES } from '../platform/error-codes.ts';
import { INFO_TYPES, infoRequestSchemas, infoResponseName, infoResponseSchemas } from './info/index.ts';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PREFIX = '/docs';

/** The document and the docs page are public: they say what the API is, not what its data holds. */
export function isDocsRequest(urlPath: string): boolean {
  return urlPath === OPENAPI_PATH || urlPath === DOCS_PREFIX || urlPath.startsWith(`${DOCS_PREFIX}/`);
}

/** Every error body (platform/error-codes.ts): the message twice, as `error` and as the `msg` the Python SDK reads. */
const errorSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    error: { type: 'string', description: 'what was refused: bad input names the field and the rule it breaks' },
    code: {
      type: 'string',
      enum: Object.keys(ERROR_CODES),
      description: 'the kind of refusal, a stable name (docs/access.md, "Error codes")',
    },
    msg: { type: 'string', description: 'the same message as `error`' },
  },
  required: ['error', 'code', 'msg'],
};

const json = (schema: object, description: string) => ({ description, content: { 'application/json': { schema } } });

const errorRef = { $ref: '#/components/schemas/Error' };

/** The answers every keyed route shares (spec §5, §7 and the error contract). */
const COMMON_RESPONSES = {
  '400': json(
    errorRef,
    'bad input (`bad_input`, `unknown_parameter`, `unknown_type`, `malformed_json`): the message names the field and the rule',
  ),
  '401': json(
    errorRef,
    'a key is required (keys are configured: `missing_key`), or the key is unknown (`invalid_key`) or revoked (`revoked_key`)',
  ),
  '402': json(errorRef, 'the key has no credits left: `insufficient credits` (`insufficient_credits`)'),
  '403': json(errorRef, 'a key restricted to the tool server: `mcp_only_key`'),
  '429': json(errorRef, "over the key's requests per minute, with Retry-After (`rate_limited`)"),
  '503': json(errorRef, 'storage unavailable (`storage_unavailable`)'),
};

/** The statuses a route declares beyond the common ones (answers.ts RouteAnswer.errors). */
const ROUTE_ERRORS = {
  404: json(errorRef, 'no such resource, the message naming it (`not_found`)'),
  502: json(
    errorRef,
    '`Upstream unreachable: <reason>` (`upstream_unreachable`): the node, which this route asks, did not answer; ' +
      '`Upstream error: <reason>` (`upstream_error`): it answered with a failure',
  ),
};

/** Routes that need no key (app.ts PUBLIC_PATHS): only their own answers. */
const PUBLIC_ROUTES = new Set(['/health', '/ready']);

/**
 * POST /info's route options: its body schema is every type's request, `oneOf` discriminated on `type`, for the
 * document; each type's reading checks the body against the same schemas (with its own messages), so fastify does
 * not.
 */
export const infoRouteOptions = () => ({
  schema: {
    summary: 'The exchange-compatible /info endpoint',
    description:
      'One request schema per `type` (discriminated on `type`). Types the exchange answers keep its response ' +
      "shape; the service's own types answer `{result, cursor}`.",
    body: infoRequestSchemas(),
  },
  validatorCompiler: () => () => true,
});

/**
 * POST /info's 200: one of the per-type answer schemas (components `info.<type>`, info/response-schema.ts).
 * `anyOf`, not a discriminated `oneOf`: answers carry no `type` to tell them apart, and several have one shape.
 */
const infoAnswer = () => ({
  anyOf: Object.keys(INFO_TYPES).map((type) => ({ $ref: `#/components/schemas/${infoResponseName(type)}` })),
});

/**
 * What each route answers with 200, for the document only: a route schema's `response` would also become its
 * serializer, and the app serializes every answer itself (app.ts setReplySerializer).
 */
function okResponse(url: string, answer: RouteAnswer | undefined) {
  if (url === '/info') return json(infoAnswer(), "the answer of the body's `type`: the schema titled with it");
  if (url === '/health') return json({ type: 'object', properties: { ok: { const: true } } }, 'the process serves');
  if (url === '/ready') return json({ type: 'object' }, 'whether storage answers (503 when it does not)');
  if (!answer) return json(dataEnvelopeOf(), 'the data envelope');
  if (answer.contentType)
    return { description: 'the answer', content: { [answer.contentType]: { schema: answer.body } } };
  const ok = json(answer.body, 'the answer');
  return answer.pagingHeaders ? { ...ok, headers: PAGING_HEADERS } : ok;
}

/** Every status a route answers, with its body. */
function responses(url: string, answer: RouteAnswer | undefined) {
  const ok = okResponse(url, answer);
  if (PUBLIC_ROUTES.has(url)) return { 200: ok, ...(url === '/ready' ? { 503: ok } : {}) };
  const own = Object.fromEntries((answer?.errors ?? []).map((status) => [String(status), ROUTE_ERRORS[status]]));
  return { 200: ok, ...COMMON_RESPONSES, ...own };
}

/**
 * Registers the document and the docs page: before any route, since @fastify/swagger collects routes as they are
 * registered (a new domain's routes are in the document by being routes).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'hl-data-graph compat REST',
        description:
          'Wire-compatible Hyperliquid /info and the path endpoints of the data API. A key, when keys are ' +
          'configured, goes in `Authorization: Bearer`, `X-API-Key` or `?api_key=`. WebSocket: `/ws`.',
        version: '0.1.0',
      },
      components: {
        schemas: { Error: errorSchema, ...infoResponseSchemas() },
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
        },
      },
      security: [{ bearer: [] }, { apiKeyHeader: [] }, { apiKeyQuery: [] }, {}],
    },
    transform: ({ schema, url, route }) => {
      const hidden = url === OPENAPI_PATH || url === '/*' || route.method === 'OPTIONS';
      const { answer, ...base } = (schema ?? {}) as Record<string, unknown> & { answer?: RouteAnswer };
      return {
        url,
        schema: { ...base, hide: hidden || base.hide === true, response: responses(url, answer) },
      };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    // No online validator badge: the page requests nothing off this server.
    uiConfig: { url: OPENAPI_PATH, validatorUrl: null } as Record<string, unknown>,
  });
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
}
