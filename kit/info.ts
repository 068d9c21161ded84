// What an /info type handler is: request body in, a reply out. Compat-rest dispatches POST /info and WS `post`
// requests through one table of these (compat-rest/info/index.ts).

import type { Coverage } from '../platform/coverage.ts';
import { jsonBytes } from '../platform/json-text.ts';
import type { Upstream } from '../platform/upstream.ts';
import type { DomainServices } from './domain.ts';
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

/** A type's handler: the body as sent, the services, and what its entry's `read` made of the body. */
export type InfoHandler = (
  body: Record<string, unknown>,
  services: CompatServices,
  input?: unknown,
) => Promise<InfoReply>;

/**
 * One /info type: the JSON Schema of its body (its input definition's, as OpenAPI publishes it), how the body is
 * checked against it and read (`read`, once, before the call is charged), its handler, and the JSON Schema of its 200
 * answer (response-schema.ts; documentation only, pinned against real answers by openapi-answers.test.ts).
 */
export interface InfoEntry {
  schema: JsonSchema;
  /**
   * Checks the body against `schema` (with `type`, closed to other fields but the clients' extras) and reads it by the
   * type's input definition, in one pass (kit/input.ts `infoReader`), before the call is charged: a FieldError
   * refuses it for free, and what it read is the handler's `input`.
   */
  read: (body: Record<string, unknown>) => unknown;
  handler: InfoHandler;
  response: JsonSchema;
}

/** An /info type whose handler takes what `read` made of the body (typed), and the body as sent. */
export function readInfo<I>(entry: {
  schema: JsonSchema;
  read: (body: Record<string, unknown>) => I;
  handler: (input: I, services: CompatServices, body: Record<string, unknown>) => Promise<InfoReply>;
  response: JsonSchema;
}): InfoEntry {
  const { handler, ...rest } = entry;
  // checkInfo ran `read` on this body: `input` is what it returned.
  return { ...rest, handler: (body, services, input) => handler(input as I, services, body) };
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
