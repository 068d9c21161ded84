// Request bodies of the GraphQL servers (the router and the subgraphs), bounded before anything parses them: at most
// 1 MiB (compat-rest's limit), and JSON nested at most 64 deep, found by a linear scan of the bytes, so that no
// parser's recursion (JSON.parse's, GraphQL variable coercion's, the query planner's) meets a deeper one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorCode, errorBody, statusOf } from './error-codes.ts';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Far deeper than any GraphQL request's variables need, far shallower than any parser's stack. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `max`, brackets inside strings not counted. One pass over
 * the bytes, no recursion; malformed text is left to the parser (UTF-8 never puts these ASCII bytes inside a
 * multi-byte character).
 */
export function jsonNestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACKET || b === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (b === CLOSE_BRACKET || b === CLOSE_BRACE) depth--;
  }
  return false;
}

/** The refusal of a JSON body too deep, the same text on every transport that checks it. */
export const TOO_DEEP = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;

function refuse(res: ServerResponse, code: ErrorCode, error: string): void {
  res.writeHead(statusOf(code), { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(JSON.stringify(errorBody(code, error)));
}

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/**
 * `handler` given only requests whose body is within `MAX_BODY_BYTES` and, when JSON, `MAX_JSON_DEPTH`; others are
 * answered 413 or 400 with an error body (platform/error-codes.ts). The body is read here, and handed on as the pre-read `body` that
 * @whatwg-node/server (yoga's and the gateway's adapter) takes instead of the stream: an async iterable with one own
 * key (it tests for own keys, and Object.keys of a 1 MiB Buffer would list a million).
 */
export function boundedBodies(handler: Handler): Handler {
  const tooLarge = `request body over ${MAX_BODY_BYTES} bytes (1 MiB)`;
  return (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return handler(req, res);
    const declared = Number(req.headers['content-length']);
    if (declared > MAX_BODY_BYTES) return refuse(res, 'body_too_large', tooLarge);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return chunks.push(chunk);
      refused = true;
      chunks.length = 0;
      // What else the client sends is read and dropped: the answer reaches it before the connection closes.
      req.off('data', onData);
      req.resume();
      refuse(res, 'body_too_large', tooLarge);
    };
    req.on('data', onData);
    req.once('error', () => res.destroy());
    req.once('end', () => {
      if (refused) return;
      const bytes = Buffer.concat(chunks, size);
      if ((req.headers['content-type'] ?? '').includes('json') && jsonNestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
        return refuse(res, 'bad_input', `request body: ${TOO_DEEP}`);
      }
      (req as IncomingMessage & { body?: unknown }).body = {
        bytes,
        async *[Symbol.asyncIterator]() {
          yield bytes;
        },
      };
      handler(req, res);
    });
  };
}
