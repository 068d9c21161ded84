// The compat contract in one place (spec §2.1 and ARCHITECTURE.md's error contract): the response envelopes, the
// paging headers, the request timing the data envelope reports, and the mapping of a thrown error to its answer
// (its code from platform/error-codes.ts).
import type { FastifyRequest } from 'fastify';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../db/unavailable.ts';
import { type ErrorBody, type ErrorCode, errorBody, statusOf } from '../platform/error-codes.ts';
import { FieldError } from '../platform/fields.ts';
import { UpstreamError } from '../platform/upstream.ts';

// ---- envelopes and paging ----

/** `{result, cursor}`: most locally answered `/info` types. */
export function resultEnvelope<T>(result: T): { result: T; cursor: null } {
  return { result, cursor: null };
}

export interface DataEnvelope<T> {
  success: true;
  message: string;
  data: T;
  execution_time_ms: number;
  has_more?: boolean;
  next_cursor?: string | null;
  total_count?: number;
}

/** A page of a list: whether more follows, the cursor resuming after it, and (when counted) the matching total. */
export interface ListPage {
  hasMore: boolean;
  nextCursor?: string | null;
  totalCount?: number;
}

const requestStarts = new WeakMap<FastifyRequest, number>();

/**
 * The onRequest hook (compat-rest/app.ts) noting when each request started, for the data envelope's
 * `execution_time_ms`.
 */
export function noteRequestStart(req: FastifyRequest): void {
  requestStarts.set(req, performance.now());
}

/**
 * `{success, message, data, execution_time_ms}` of the path endpoints, timed from the request's start; list routes
 * add `has_more` and, when they page by cursor, `next_cursor` and `total_count`.
 */
export function dataEnvelope<T>(req: FastifyRequest, data: T, page?: boolean | ListPage): DataEnvelope<T> {
  const p = typeof page === 'boolean' ? { hasMore: page } : page;
  return {
    success: true,
    message: 'ok',
    data,
    execution_time_ms: Math.round(performance.now() - (requestStarts.get(req) ?? performance.now())),
    ...(p === undefined ? {} : { has_more: p.hasMore }),
    ...(p?.nextCursor === undefined ? {} : { next_cursor: p.nextCursor }),
    ...(p?.totalCount === undefined ? {} : { total_count: p.totalCount }),
  };
}

/**
 * dataEnvelope's JSON around a data array written as text (a large page written from its rows, platform/json-text.ts
 * JsonArrayWriter): the text before the array and the text after it, the same bytes as the envelope's own JSON.
 * Timed when called, as dataEnvelope is: take `after` once the rows are written.
 */
export function dataEnvelopeAround(req: FastifyRequest, page?: boolean | ListPage): { before: string; after: string } {
  const text = JSON.stringify(dataEnvelope(req, null, page));
  // `success` and `message` come first and are fixed: the first `"data":null` is the data.
  const at = text.indexOf(DATA_NULL) + DATA_NULL.length;
  return { before: text.slice(0, at - 'null'.length), after: text.slice(at) };
}

const DATA_NULL = ',"data":null';

/** The same page as `/info`'s response headers: X-Has-More, X-Next-Cursor and (when counted) X-Total-Count. */
export function pagingHeaders(page: ListPage): Record<string, string> {
  return {
    'x-has-more': String(page.hasMore),
    ...(page.nextCursor ? { 'x-next-cursor': page.nextCursor } : {}),
    ...(page.totalCount !== undefined ? { 'x-total-count': String(page.totalCount) } : {}),
  };
}

// ---- errors: every failure is an error body (platform/error-codes.ts) with the status its code assigns ----

/** A refusal that is not bad input (a FieldError): a key's, credits', a 404; its status is its code's. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.status = statusOf(code);
  }
}

export interface ErrorAnswer {
  status: number;
  body: ErrorBody;
}

const answerOf = (code: ErrorCode, message: string): ErrorAnswer => ({
  status: statusOf(code),
  body: errorBody(code, message),
});

/**
 * The answer to a thrown error, for POST /info and the path endpoints (compat-rest/app.ts's error handler) and for
 * /ws `post` requests alike; undefined for an error that is our bug (the caller logs it and answers 500).
 */
export function errorAnswer(err: unknown): ErrorAnswer | undefined {
  if (err instanceof FieldError) return answerOf(err.code, err.message);
  if (err instanceof HttpError) return answerOf(err.code, err.message);
  if (err instanceof UpstreamError) return answerOf(err.code, err.callerMessage);
  // Fastify's own refusals: a body over the limit, a request its schemas reject.
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return answerOf('body_too_large', 'body too large (max 1 MiB)');
  const refused = e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500;
  if (refused) return answerOf('bad_input', e.message ?? 'bad request');
  if (isStorageUnavailable(err)) return answerOf('storage_unavailable', STORAGE_UNAVAILABLE);
  return undefined;
}

/** The answer to our own bug, once logged: nothing more is said. */
export const INTERNAL_ERROR: ErrorAnswer = answerOf('internal_error', 'internal error');
