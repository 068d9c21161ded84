// The path-route door of a domain's capabilities (kit/capability.ts): each capability with a `rest` door becomes a
// route under its domain's prefix (GET, or POST with a JSON body). Its query string (or body) and path parameters are
// read once, by the capability's input definition, before the call is charged (kit/route-input.ts); fastify only
// publishes the schemas (OpenAPI) and checks no request itself. A page is answered as a bare array of records with
// the paging headers (spec §4.1), as the capability's envelope (`{ ..., count, data }`), or in the data envelope
// (`{success, message, data, execution_time_ms, has_more, ...}`); a whole answer in the data envelope.
import { OptionalKind, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  type Capabilities,
  type Capability,
  callOf,
  type DataAnswer,
  type Paged,
  takesCursor,
} from '../kit/capability.ts';
import type { CompatRoutes } from '../kit/domain.ts';
import { dataEnvelope, dataEnvelopeAround, HttpError, type ListPage, pagingHeaders } from '../kit/envelopes.ts';
import type { CompatServices } from '../kit/info.ts';
import { routeInputOf } from '../kit/route-input.ts';
import { FieldError } from '../platform/fields.ts';
import { JsonArrayWriter, jsonBytes } from '../platform/json-text.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

type Rest = NonNullable<Capability['rest']>;

/** The routes of `domain`'s capabilities that have a path route, under their prefix. */
export function capabilityRoutes(domain: string, capabilities: Capabilities): CompatRoutes {
  const plugin: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
    const service = (services as unknown as Record<string, unknown>)[domain];
    const add = (scope: FastifyInstance, c: Capability) => {
      const rest = c.rest as Rest;
      const options = routeOptions(c);
      const handler = (req: FastifyRequest, reply: FastifyReply) =>
        answer(c, service, services, routeInputOf(req), req, reply);
      for (const path of rest.paths) scope.route({ method: rest.method ?? 'GET', url: path, ...options, handler });
    };
    // A door's own prefix is a scope of its own, as fastify registers a prefixed plugin (`/fills` and `/fills/`).
    const scoped = new Map<string, Capability[]>();
    for (const c of capabilities.list) {
      if (!c.rest) continue;
      if (c.rest.prefix === undefined) add(app, c);
      else scoped.set(c.rest.prefix, [...(scoped.get(c.rest.prefix) ?? []), c]);
    }
    for (const [prefix, list] of scoped) {
      await app.register(
        async (scope) => {
          for (const c of list) add(scope, c);
        },
        { prefix },
      );
    }
  };
  return { prefix: capabilities.prefix, plugin };
}

function routeOptions(c: Capability) {
  const rest = c.rest as Rest;
  const params = rest.params ?? {};
  const given = Object.values(params);
  const definition = c.input.query(given);
  const querystring = rest.querystring ? rest.querystring(definition) : definition;
  const { fields } = rest;
  const post = rest.method === 'POST';
  const read = (req: FastifyRequest) => {
    const named = fields ? fields(req) : { ...((post ? req.body : req.query) as object) };
    const raw: Record<string, unknown> = { ...named };
    for (const [param, key] of Object.entries(params)) raw[key] = (req.params as Record<string, unknown>)[param];
    return refusalNaming(params, () => c.input.fromQuery(raw));
  };
  const pathParams = given.length || rest.otherParams;
  return {
    schema: {
      // A body names every field (a path's too: the path's value is read), as the query string would.
      ...(post ? { body: { ...c.input.query(), required: requiredOf(c, given) } } : {}),
      ...(!post && querystring ? { querystring } : {}),
      ...(pathParams ? { params: paramsSchema(c, params, rest.otherParams) } : {}),
      ...(rest.answer ? { answer: rest.answer } : {}),
    },
    config: {
      input: read,
      ...(c.credits ? { credits: (req: FastifyRequest) => c.credits?.(routeInputOf(req) as never) as number } : {}),
    },
    // The definition reads the request (once, above); the schemas are the document's.
    validatorCompiler: () => () => true,
  };
}

/** The path parameters' schema: each the field it gives, `others` before them. */
function paramsSchema(c: Capability, params: Readonly<Record<string, string>>, others = {}) {
  const own = c.input.params(params) as { properties: object; required: string[] };
  return { ...own, properties: { ...others, ...own.properties } };
}

/** The fields a body must hold, as a query string names them: those without a default the path does not give. */
function requiredOf(c: Capability, given: readonly string[]): string[] {
  const query = c.input.query() as { properties: Record<string, unknown> };
  const names = Object.keys(query.properties);
  return Object.entries(c.input.fields as Record<string, TSchema>)
    .map(([key, field], i) => ({ key, name: names[i] as string, field }))
    .filter(({ key, field }) => !given.includes(key) && field.default === undefined && !isOptional(field))
    .map(({ name }) => name);
}

const isOptional = (field: TSchema) => (field as { [OptionalKind]?: string })[OptionalKind] === 'Optional';

/** Reads the input, a refusal of a field a path parameter gives naming the parameter (`address` for `token`). */
function refusalNaming<T>(params: Readonly<Record<string, string>>, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    for (const [param, key] of Object.entries(params)) {
      if (param !== key && (err.message.startsWith(`${key}:`) || err.message.startsWith(`${key}[`))) {
        throw new FieldError(param + err.message.slice(key.length), err.code);
      }
    }
    throw err;
  }
}

/** A page's paging as the capability states it: its next cursor only when its input takes one; its total if counted. */
const pagingOfPage = (c: Capability, page: { hasMore: boolean; nextCursor: string | null; totalCount?: number }) => {
  const paging: ListPage = takesCursor(c)
    ? { hasMore: page.hasMore, nextCursor: page.nextCursor }
    : { hasMore: page.hasMore };
  return page.totalCount === undefined ? paging : { ...paging, totalCount: page.totalCount };
};

async function answer(
  c: Capability,
  service: unknown,
  services: CompatServices,
  input: unknown,
  req: FastifyRequest,
  reply: FastifyReply,
) {
  const rest = c.rest as Rest;
  rest.check?.(req);
  if (rest.text) {
    const limit = ((input as { limit?: number }).limit ?? 100) * (rest.rowBytes ?? 256);
    if (rest.data) {
      // The rows written as JSON text into the data envelope's bytes (the same as dataEnvelope's).
      const json = new JsonArrayWriter(limit, undefined, dataEnvelopeAround(req).before);
      const paging = await rest.text(service, input as never, (row) => json.push(row));
      return reply.type(JSON_TYPE).send(json.end(dataEnvelopeAround(req, pagingOfPage(c, paging)).after));
    }
    const json = new JsonArrayWriter(limit);
    const paging = await rest.text(service, input as never, (row) => json.push(row));
    return reply.headers(pagingHeaders(paging)).type(JSON_TYPE).send(json.end());
  }
  const result = await callOf(c, service, input, 'rest', undefined, services);
  if (result === null && !c.orNull) throw new HttpError('not_found', c.missing?.(input as never) ?? 'not found');
  if (!c.page) {
    const shaped: DataAnswer = typeof rest.data === 'function' ? rest.data(result) : { data: result };
    return { ...dataEnvelope(req, shaped.data, shaped.page), ...shaped.beside };
  }
  const page = result as Paged<unknown>;
  const records = c.record ? page.rows.map((row) => c.record?.(row)) : page.rows;
  if (rest.data) return dataEnvelope(req, records, pagingOfPage(c, page));
  reply.headers(pagingHeaders(page));
  if (!c.envelope) return records;
  // An envelope of many buckets as JSON bytes written item by item: about twice as fast as fastify's stringify.
  return reply.type(JSON_TYPE).send(jsonBytes({ ...c.envelope(page as never), count: records.length, data: records }));
}
