// A path route's input read through its capability's definition (kit/input.ts) before the call is charged: what the
// definition refuses (a bound, a pattern, a window's order) is a 400 that costs nothing, even to a key without
// credits, and the handler gets the checked input without reading the request again.
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Input } from './input.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reads the route's input (throwing a FieldError for a refused one); compat runs it before the charge. */
    input?: (request: FastifyRequest) => unknown;
  }
}

const inputs = new WeakMap<FastifyRequest, unknown>();

/** Runs the route's `input` reader, if it has one: compat-rest calls it before charging the call. */
export function readRouteInput(request: FastifyRequest): void {
  const read = request.routeOptions.config.input;
  if (read) inputs.set(request, read(request));
}

/** What the route's `input` reader made of this request (compat ran it before the charge). */
export const routeInputOf = (request: FastifyRequest): unknown => inputs.get(request);

/**
 * A route reading `definition` from its query string and path parameters (`fields` maps a request to the
 * definition's fields where a path parameter is named otherwise): spread `config` into the route's options, and
 * call `of(request)` in the handler.
 */
export function routeInput<P extends TProperties>(
  definition: Input<P>,
  fields: (request: FastifyRequest) => Readonly<Record<string, unknown>> = (request) => ({
    ...(request.query as object),
    ...(request.params as object),
  }),
) {
  return {
    config: { input: (request: FastifyRequest) => definition.fromQuery(fields(request)) },
    querystring: (omit?: readonly (keyof P & string)[]) => definition.query(omit),
    /** The path parameters' schema (`{ user_address: 'user' }`: each the field it names), `others` beside them. */
    params: (names: Readonly<Record<string, keyof P & string>>, others: Readonly<Record<string, unknown>> = {}) => {
      const own = definition.params(names) as { properties: object; required: string[] };
      return { ...own, properties: { ...others, ...own.properties } };
    },
    of: (request: FastifyRequest) => inputs.get(request) as Static<TObject<P>>,
  };
}
