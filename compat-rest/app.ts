// The compatibility layer's HTTP app (fastify): POST /info, the path endpoints and, on the same server, /ws.
// Cross-cutting concerns live here once: CORS headers, API keys (spec §5), JSON parsing and the error contract.
import type { ErrorObject } from 'ajv';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchemaValidationError,
  LogController,
} from 'fastify';
import type pg from 'pg';
import type { Authenticator } from '../access/auth.ts';
import { CALL_CREDITS } from '../access/costs.ts';
import type { ApiKey } from '../access/keys.ts';
import { databaseStatus } from '../db/pool.ts';
import { isStorageUnavailable } from '../db/unavailable.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { errorAnswer, HttpError, INTERNAL_ERROR, noteRequestStart } from '../kit/envelopes.ts';
import type { CompatServices } from '../kit/info.ts';
import { parseJsonBody } from '../kit/json-source.ts';
import { checkParamText, checkTimeText, TIME_FORMAT } from '../kit/params.ts';
import {
  EVERY_ROUTE_PARAMS,
  fieldError,
  type JsonSchema,
  RULE,
  ruleOf,
  unknownParameter,
} from '../kit/request-schema.ts';
import { readRouteInput } from '../kit/route-input.ts';
import { errorBody } from '../platform/error-codes.ts';
import { FieldError } from '../platform/fields.ts';
import { jsonBytes, utf8 } from '../platform/json-text.ts';
import { lineLog, logger, REQUEST_ID_HEADER, requestIdOf, withRequestId } from '../platform/log.ts';
import { traceRequest, tracing } from '../platform/tracing.ts';
import { capabilityRoutes } from './capability-routes.ts';
import { exportRoutes } from './export-routes.ts';
import { checkInfo } from './info/index.ts';
import { isLivePageRequest, registerLivePage } from './live.ts';
import { isMetricsRequest, registerMetrics } from './metrics.ts';
import { infoRouteOptions, isDocsRequest, registerOpenApi } from './openapi.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a call of the route costs, when more than CALL_CREDITS (the rule is access/costs.ts's). */
    credits?: (request: FastifyRequest) => number;
  }
}

/**
 * The Ajv of the routes' schemas. Infinity and NaN are no number a field takes (a JSON body's 1e309 parses to
 * Infinity, which Ajv's range keywords skip); time parameters are read by timeParam, their format only names them.
 * A field's own rule (RULE) is a keyword it knows; `verbose` hands each error the schema that rule is read from.
 */
export const ROUTE_AJV_OPTIONS = {
  customOptions: { strictNumbers: true, formats: { [TIME_FORMAT]: true as const }, keywords: [RULE], verbose: true },
};

/**
 * What a route's schema refuses, said as every edge says a refused field (kit/request-schema.ts fieldMessage): its
 * name, its rule and the value sent (`limit: must be an integer from 1 to 1000, got 1001`; a field with a rule of its
 * own says that rule, `coins: must hold 1 to 50 coins, got 51`).
 */
function routeSchemaError(errors: FastifySchemaValidationError[]): Error {
  return fieldError(errors[0] as ErrorObject);
}

export interface CompatAppOptions {
  services: CompatServices;
  auth: Authenticator;
  /** The service's database, for `GET /ready`. */
  pool?: pg.Pool;
  log?: (line: string) => void;
  /** The router's GraphQL endpoint, which the live page at / reads (no page without it). */
  graphqlUrl?: string;
  /** Where GET /export writes its files (default EXPORT_DIR). */
  exportDir?: string;
}

// Probes carry no key, and must answer when the keys themselves cannot be read.
const PUBLIC_PATHS = new Set(['/health', '/ready']);
/** Fastify's default: longer than any coin name or address. */
const MAX_PARAM_LENGTH = 100;

/**
 * Every path or query parameter its route's schema types as an integer is plain decimal digits (an optional minus)
 * within ±2^53: Ajv's coercion takes `Infinity`, `1e309`, `0x10` and ` 5` as numbers, and its range keywords pass
 * an infinite one, which would reach Postgres as a bigint it cannot read.
 */
function checkIntegerText(schema: unknown, values: unknown): void {
  const properties = (schema as { properties?: Record<string, JsonSchema> } | undefined)?.properties;
  if (!properties || typeof values !== 'object' || values === null) return;
  for (const [key, value] of Object.entries(values)) {
    const field = properties[key];
    if (!field || ![field.type].flat().includes('integer')) continue;
    for (const text of Array.isArray(value) ? value : [value]) {
      if (typeof text !== 'string' || (/^-?\d{1,16}$/.test(text) && Number.isSafeInteger(Number(text)))) continue;
      throw new FieldError(`${key}: ${ruleOf(field)}, got ${JSON.stringify(text.slice(0, 40))}`);
    }
  }
}

/**
 * Every query parameter (and body field, for a route whose body is an object of named fields) is one its route's
 * schema names, or the API key: anything else is a 400 naming it (request-schema.ts unknownParameter), so that a
 * typo (`start_Time`) or a parameter the route does not take (`offset` on a cursor-paged list) is never ignored.
 */
function checkKnownParams(schema: unknown, values: unknown, extras: readonly string[] = []): void {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return;
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  for (const key of Object.keys(values)) {
    if (!Object.hasOwn(properties, key) && !extras.includes(key)) {
      throw new FieldError(unknownParameter(key, Object.keys(properties)), 'unknown_parameter');
    }
  }
}

/**
 * What every route's query string may hold beyond its own parameters: the key's, and a parameter without a name
 * (`?&=`, `?=1`), which says nothing and names nothing a refusal could point at.
 */
const QUERY_EXTRAS = [...EVERY_ROUTE_PARAMS, ''];

/** Requests outside the API: probes, the documents, metrics and the live page (no key, no parameter rules). */
const outsideApi = (req: FastifyRequest) => req.method === 'OPTIONS' || outsideApiPath(req.method, pathOf(req.url));
const outsideApiPath = (method: string, path: string) =>
  PUBLIC_PATHS.has(path) || isDocsRequest(path) || isMetricsRequest(path) || isLivePageRequest(method, path);
const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

function queryOf(req: FastifyRequest): URLSearchParams {
  const i = req.url.indexOf('?');
  return new URLSearchParams(i < 0 ? '' : req.url.slice(i + 1));
}

/**
 * A streamed answer: the status, the headers and the first chunk go out as soon as the service hands that chunk
 * over, the rest as it is written (chunked transfer encoding), so the answer travels while its rows are still being
 * read; one that fits a single chunk goes out whole, as any other. A failure before the first chunk is an ordinary
 * error answer. After it, the status is sent and cannot change: the connection is cut, so that the client sees a
 * truncated response, never a shorter one that parses.
 */
export async function sendStreamed(
  reply: FastifyReply,
  write: (out: (chunk: Buffer) => void) => Promise<Buffer>,
  log: (line: string) => void,
): Promise<unknown> {
  const res = reply.raw;
  let started = false;
  try {
    const last = await write((chunk) => {
      if (!started) {
        started = true;
        reply.hijack();
        // The headers set so far (CORS) are fastify's until the reply is hijacked.
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) res.setHeader(name, value);
        }
        res.writeHead(200, { 'content-type': 'application/json' });
      }
      res.write(chunk);
    });
    if (!started) return reply.type('application/json').send(last);
    res.end(last);
  } catch (err) {
    if (!started) throw err;
    const message = err instanceof Error ? err.message : String(err);
    log(`compat: a streamed answer failed after it started, connection cut: ${message}`);
    res.destroy();
  }
  return undefined;
}

export async function buildCompatApp(opts: CompatAppOptions): Promise<FastifyInstance> {
  const appLogger = logger.child({ server: 'compat' });
  const log = opts.log ?? lineLog(appLogger, 'error');
  const app = Fastify({
    // JSON logs (platform/log.ts); each request's id comes from its `x-request-id` or is made here, and every line
    // logged while it is served carries it (the logger's own mixin, so requests' loggers add nothing).
    loggerInstance: appLogger as FastifyBaseLogger,
    childLoggerFactory: (parent) => parent,
    // Requests are logged at debug by the metrics hook (compat-rest/metrics.ts), not at info by fastify.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (req) => requestIdOf(req.headers[REQUEST_ID_HEADER]),
    bodyLimit: 1 << 20,
    return503OnClosing: true,
    // What fastify's router refuses before any route runs (a broken %-escape, a path parameter over
    // maxParamLength): the same error contract as everything else.
    frameworkErrors: (err, _req, reply) => {
      const error =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `path: a path parameter is longer than ${MAX_PARAM_LENGTH} characters`
          : 'url: not a valid URL (a malformed %-escape, or one that is not UTF-8)';
      return (reply as FastifyReply).code(400).send(errorBody('bad_input', error));
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: ROUTE_AJV_OPTIONS,
    schemaErrorFormatter: routeSchemaError,
  });

  // Clients send JSON with or without a content type; anything unparsable is the same 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    // Made only when refused: an Error captures its stack, a cost every request would otherwise pay.
    const malformed = () => new FieldError('JSON body required', 'malformed_json');
    if (typeof body !== 'string' || body.trim() === '') return done(malformed());
    try {
      done(null, parseJsonBody(body));
    } catch (err) {
      done(err instanceof FieldError ? err : malformed());
    }
  });

  /** Each admitted request's key (null: none needed), for its charge. */
  const callers = new WeakMap<FastifyRequest, ApiKey | null>();
  // The hooks below take a callback rather than return a promise where they can finish at once: an async hook costs
  // every request a promise and a turn of the microtask queue (a third of compat's time on a small /info answer was
  // its hooks', beside a bare route sending the same bytes; bench section `compat POST /info`).
  app.addHook('onRequest', (req, reply, done) => {
    noteRequestStart(req);
    reply.header(REQUEST_ID_HEADER, req.id);
    withRequestId(req.id, done);
  });
  // Traced (platform/tracing.ts): each request in a server span, named by its route, over its statements.
  if (tracing()) {
    app.addHook('onRequest', (req, reply, done) =>
      traceRequest('compat', req.raw, reply.raw, done, () => req.routeOptions.url),
    );
  }
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', '*');
    if (outsideApi(req)) return done();
    opts.auth.check({ headers: req.headers, query: queryOf(req) }, 'rest').then((outcome) => {
      if (!outcome.ok) {
        if (outcome.status === 429) reply.header('retry-after', String(outcome.retryAfter));
        return done(new HttpError(outcome.code, outcome.error));
      }
      callers.set(req, outcome.key);
      done();
    }, done);
  });

  // The call is charged once its input passed the schemas (a refused input costs nothing), before it runs; its
  // cost may depend on the body (a batch's wallets). No route, nothing charged. A call its handler then refuses
  // for its input (400, 404) gets the charge back in the error handler.
  const charges = new WeakMap<FastifyRequest, { key: ApiKey | null; credits: number }>();
  app.addHook('preHandler', (req, _reply, done) => {
    if (req.is404) return done();
    // What the route's input definition refuses is refused here, before the charge.
    readRouteInput(req);
    if (!callers.has(req)) return done();
    const credits = req.routeOptions.config.credits?.(req) ?? CALL_CREDITS;
    const key = callers.get(req) ?? null;
    opts.auth.chargeKey(key, credits, 'rest').then((charged) => {
      if (!charged.ok) return done(new HttpError(charged.code, charged.error));
      charges.set(req, { key, credits });
      done();
    }, done);
  });
  const refundRefused = async (req: FastifyRequest, status: number) => {
    const charge = charges.get(req);
    if (!charge || (status !== 400 && status !== 404)) return;
    charges.delete(req);
    await opts.auth.refundKey(charge.key, charge.credits, 'rest');
  };

  // One check of every path and query parameter for all routes, before their schemas (and before the charge): its
  // text, its name, an integer's digits.
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.is404) return done();
    checkParamText(req.params);
    checkParamText(req.query);
    const schema = req.routeOptions.schema;
    // A request of the API has its caller (onRequest told it apart once).
    if (callers.has(req)) {
      checkKnownParams(schema?.querystring, req.query, QUERY_EXTRAS);
      // /info's body is checked by its type's schema (info/index.ts): its route schema names no fields at the top.
      if ((schema?.body as { properties?: unknown } | undefined)?.properties) checkKnownParams(schema?.body, req.body);
    }
    checkIntegerText(schema?.params, req.params);
    checkIntegerText(schema?.querystring, req.query);
    checkTimeText(schema?.querystring, req.query);
    done();
  });

  // Bodies go out as bytes: fastify and node's http encode a string body several times slower (utf8 in
  // platform/json-text.ts). Objects (the path endpoints' envelopes, errors) are serialized straight to bytes, array
  // item by array item (jsonBytes); a string sent as it is gets encoded here. Fastify sends a Buffer as it is.
  app.setReplySerializer((payload) => jsonBytes(payload) as unknown as string);
  app.addHook('onSend', (_req, _reply, payload, done) =>
    done(null, typeof payload === 'string' ? utf8(payload) : payload),
  );

  // The one mapping of thrown errors to answers (envelopes.ts), shared with /ws posts.
  app.setErrorHandler(async (err, req, reply) => {
    const answer = errorAnswer(err);
    const message = (err as { message?: string }).message ?? String(err);
    if (answer && isStorageUnavailable(err)) log(`compat: storage unavailable: ${message}`);
    if (answer) {
      await refundRefused(req, answer.status);
      return reply.code(answer.status).send(answer.body);
    }
    log(`compat: ${message}`);
    return reply.code(INTERNAL_ERROR.status).send(INTERNAL_ERROR.body);
  });
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send(errorBody('not_found', `no such endpoint: ${req.method} ${req.url.split('?')[0]}`)),
  );

  // Before the routes: the document is made of the routes registered after it.
  await registerOpenApi(app);
  registerMetrics(app);
  registerLivePage(app, opts.graphqlUrl, () => opts.auth.keyRequired());

  app.options('/*', async (_req, reply) =>
    reply
      .header('access-control-allow-methods', 'GET, POST, OPTIONS')
      .header('access-control-allow-headers', 'content-type, authorization, x-api-key')
      .code(204)
      .send(),
  );

  // Liveness: the process serves. Readiness: it can also answer what needs storage (live channels and the
  // in-memory answers keep working while it cannot).
  app.get('/health', async () => ({ ok: true }));
  app.get('/ready', async (_req, reply) => {
    const database = opts.pool ? await databaseStatus(opts.pool) : 'up';
    return reply.code(database === 'up' ? 200 : 503).send({ ready: database === 'up', database });
  });

  // `/info#<type>` is only a label: the fragment never reaches the server.
  // The body is checked before the call is charged (preValidation runs before the charging preHandler).
  const checkedInfo = new WeakMap<FastifyRequest, ReturnType<typeof checkInfo>>();
  const infoOptions = {
    ...infoRouteOptions(),
    preValidation: (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
      checkedInfo.set(req, checkInfo(req.body));
      done();
    },
  };
  app.post('/info', infoOptions, async (req, reply) => {
    const { request, entry, input } = checkedInfo.get(req) ?? checkInfo(req.body);
    const answer = await entry.handler(request, opts.services, input);
    if (answer.kind === 'relay') return reply.code(answer.status).type(answer.contentType).send(answer.body);
    if (answer.kind === 'encoded') return reply.type('application/json').send(answer.body);
    if (answer.headers) reply.headers(answer.headers);
    if (answer.kind === 'streamed') return sendStreamed(reply, answer.write, log);
    return reply.type('application/json').send(jsonBytes(answer.body));
  });

  // Each domain's path endpoints (its capabilities' routes, domains.ts), under its prefix.
  const routes = DOMAIN_LIST.flatMap((d) => (d.capabilities ? [capabilityRoutes(d.name, d.capabilities)] : []));
  for (const { plugin, prefix } of routes) {
    await app.register(plugin, { prefix, services: opts.services });
  }

  await app.register(exportRoutes, { prefix: '/export', pool: opts.pool, dir: opts.exportDir });

  return app;
}
