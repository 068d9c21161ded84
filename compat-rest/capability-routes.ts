// The path-route door of a domain's capabilities (kit/capability.ts): each capability with a `rest` door becomes a
// GET route under its domain's prefix. Its query string is read once, by the capability's input definition, before
// the call is charged (kit/route-input.ts); fastify only publishes the schema (OpenAPI) and checks no query itself.
// A page is answered as a bare array of records with the paging headers (spec §4.1), or as the capability's
// envelope (`{ ..., count, data }`).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Capabilities, Capability } from '../kit/capability.ts';
import type { CompatRoutes } from '../kit/domain.ts';
import { pagingHeaders } from '../kit/envelopes.ts';
import type { CompatServices } from '../kit/info.ts';
import { routeInputOf } from '../kit/route-input.ts';
import { JsonArrayWriter, jsonBytes } from '../platform/json-text.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** The routes of `domain`'s capabilities that have a path route, under their prefix. */
export function capabilityRoutes(domain: string, capabilities: Capabilities): CompatRoutes {
  const plugin: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
    const service = (services as unknown as Record<string, unknown>)[domain];
    for (const c of capabilities.list) {
      if (!c.rest) continue;
      const options = routeOptions(c);
      const handler = (req: FastifyRequest, reply: FastifyReply) => answer(c, service, routeInputOf(req), reply);
      for (const path of c.rest.paths) app.get(path, options, handler);
    }
  };
  return { prefix: capabilities.prefix, plugin };
}

function routeOptions(c: Capability) {
  const rest = c.rest as NonNullable<Capability['rest']>;
  const definition = c.input.query();
  const { fields } = rest;
  return {
    schema: { querystring: rest.querystring?.(definition) ?? definition, answer: rest.answer },
    config: {
      input: (req: FastifyRequest) =>
        c.input.fromQuery(fields ? fields(req) : { ...(req.query as object), ...(req.params as object) }),
      ...(c.credits ? { credits: (req: FastifyRequest) => c.credits?.(routeInputOf(req) as never) as number } : {}),
    },
    // The definition reads the query (once, above); the schema is the document's.
    validatorCompiler: () => () => true,
  };
}

async function answer(c: Capability, service: unknown, input: unknown, reply: FastifyReply) {
  const rest = c.rest as NonNullable<Capability['rest']>;
  if (rest.text) {
    const json = new JsonArrayWriter(((input as { limit?: number }).limit ?? 100) * (rest.rowBytes ?? 256));
    const paging = await rest.text(service, input as never, (row) => json.push(row));
    return reply.headers(pagingHeaders(paging)).type(JSON_TYPE).send(json.end());
  }
  const page = await c.page(service, input as never);
  reply.headers(pagingHeaders(page));
  const records = page.rows.map((row) => c.record(row));
  if (!c.envelope) return records;
  // An envelope of many buckets as JSON bytes written item by item: about twice as fast as fastify's stringify.
  return reply.type(JSON_TYPE).send(jsonBytes({ ...c.envelope(page), count: records.length, data: records }));
}
