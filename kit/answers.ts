// What a path route answers, as the OpenAPI document says it (compat-rest/openapi.ts): a route's `schema.answer` is
// the JSON Schema of its 200 body (documentation only, never a serializer: the app writes every answer itself), with
// the paging headers of a bare-array list, and `schema.errors` the statuses it answers beyond those every route
// shares. A route without `answer` answers the data envelope. The shapes are pinned against real answers by
// compat-rest/openapi-paths.test.ts.
import type { JsonSchema } from './request-schema.ts';
import * as R from './response-schema.ts';

/** What a route declares beside its request schemas (fastify reads none of it). */
export interface RouteAnswer {
  /** The 200 body. */
  body: JsonSchema;
  /** Its media type when not JSON (an export's `application/vnd.apache.parquet`; `body` then describes the bytes). */
  contentType?: string;
  /** Sent with X-Has-More and X-Next-Cursor (spec §4.1's paging headers). */
  pagingHeaders?: boolean;
  /** Statuses beyond those of every route (400, 401, 402, 403, 429, 503): 404, 502. */
  errors?: readonly (404 | 502)[];
}

declare module 'fastify' {
  interface FastifySchema {
    /** See kit/answers.ts. */
    answer?: RouteAnswer;
  }
}

/** The path endpoints' data envelope (envelopes.ts dataEnvelope) around `data`. */
export const dataEnvelopeOf = (data: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties: {
    success: { const: true },
    message: { type: 'string' },
    data,
    execution_time_ms: { type: 'integer', minimum: 0 },
    has_more: { type: 'boolean', description: 'list routes: whether more rows follow this page' },
    next_cursor: { type: ['string', 'null'], description: 'list routes paged by cursor: send it back as `cursor`' },
    total_count: { type: 'integer' },
  },
  required: ['success', 'message', 'data', 'execution_time_ms'],
});

/** HIP-4 analytics' envelope (spec §2.1). */
export const analyticsEnvelopeOf = (item: JsonSchema): JsonSchema =>
  R.record({ status: { enum: ['live', 'not_yet_live'] }, count: R.int, data: R.list(item) });

/** A time in a path-endpoint row: naive ISO 8601 (UTC, no zone), to the millisecond unless the spec says less. */
export const naiveTime: JsonSchema = {
  type: 'string',
  pattern: '^\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}:\\d{2}(\\.\\d{3})?$',
};

/** The headers of a page of a bare-array list, for the document (each a JSON Schema with its description). */
export const PAGING_HEADERS = {
  'X-Has-More': { type: 'string', enum: ['true', 'false'], description: 'whether more rows follow this page' },
  'X-Next-Cursor': { type: 'string', description: 'when more follow: send it back as `cursor` for the next page' },
};
