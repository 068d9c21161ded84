// What an /info type handler is: request body in, a reply out. Compat-rest dispatches POST /info and WS `post`
// requests through one table of these (compat-rest/info/index.ts).

import type { Coverage } from '../platform/coverage.ts';
import { jsonBytes } from '../platform/json-text.ts';
import type { Upstream } from '../platform/upstream.ts';
import type { DomainServices } from '../subgraphs/domain.ts';
import type { JsonSchema } from './request-schema.ts';

/** What handlers get: every domain's service by its name (domains.ts), the node relay and dataCoverage. */
export type CompatServices = DomainServices & {
  upstream: Upstream;
  /** dataCoverage of every domain's datasets (domains.ts DATASETS) at `now`. */
  coverage(now: number): Promise<Coverage>;
};

/**
 * A JSON answer (with optional response headers), JSON text a service wrote itself (`encodedJson`: valid JSON, sent
 * and embedded as it is), the same written in chunks as it goes (`streamedJson`: `write` hands each chunk to `out`
 * and resolves with the last), or an upstream answer relayed byte for byte (whatever the node sent).
 */
export type InfoReply =
  | { kind: 'json'; body: unknown; headers?: Record<string, string> }
  | { kind: 'encoded'; body: Buffer }
  | { kind: 'streamed'; write: (out: (chunk: Buffer) => void) => Promise<Buffer>; headers?: Record<string, string> }
  | { kind: 'relay'; status: number; contentType: string; body: string };

export type InfoHandler = (body: Record<string, unknown>, services: CompatServices) => Promise<InfoReply>;

/**
 * One /info type: the JSON Schema of its body (request-schema.ts; the dispatcher checks the body against it before
 * the handler runs, OpenAPI publishes it), its handler, which checks only what a schema cannot say (a window's
 * order, a u64 read from the body's text), and the JSON Schema of its 200 answer (response-schema.ts; documentation
 * only, pinned against real answers by openapi-answers.test.ts).
 */
export interface InfoEntry {
  schema: JsonSchema;
  /**
   * The service's own input rules that need no storage (a book's aggregation, an order reference, a cursor's form),
   * run on the body once it matches `schema` and before the call is charged: a FieldError refuses it for free.
   */
  check?: (body: Record<string, unknown>) => void;
  handler: InfoHandler;
  response: JsonSchema;
}

export const json = (body: unknown, headers?: Record<string, string>): InfoReply => ({
  kind: 'json',
  body,
  ...(headers ? { headers } : {}),
});

/** JSON the service already wrote (UTF-8 bytes), sent as it is. */
export const encodedJson = (text: Buffer): InfoReply => ({ kind: 'encoded', body: text });

/** JSON a service writes in chunks (a large answer that can be sent while its rows are still being read). */
export const streamedJson = (
  write: (out: (chunk: Buffer) => void) => Promise<Buffer>,
  headers?: Record<string, string>,
): InfoReply => ({ kind: 'streamed', write, ...(headers ? { headers } : {}) });

const encodedAnswers = new WeakMap<object, Buffer>();

/**
 * An answer object the service hands out unchanged for as long as its data is (the mids, an aggregated book), as
 * JSON encoded once per object: between two changes every caller gets the same bytes.
 */
export function sharedJson(body: object | null): InfoReply {
  return body === null ? json(null) : encodedJson(sharedBytes(body));
}

/** sharedJson's bytes of one object (to embed in a larger answer, e.g. the books of l2Books). */
export function sharedBytes(body: object): Buffer {
  let bytes = encodedAnswers.get(body);
  if (!bytes) {
    bytes = jsonBytes(body);
    encodedAnswers.set(body, bytes);
  }
  return bytes;
}

/**
 * Marks an answer object as handed out unchanged (as sharedJson's are) and returns it: its JSON is encoded once, and
 * an interface that embeds it (the MCP tool server, mcp/direct.ts) copies those bytes.
 */
export function shared<T extends object>(body: T): T {
  sharedBytes(body);
  return body;
}

/** The bytes sharedJson, sharedBytes or shared encoded for this object, if any. */
export const knownJson = (body: object): Buffer | undefined => encodedAnswers.get(body);
