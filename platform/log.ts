// Structured logs (pino, the logger fastify is built for): one JSON object a line on stderr, or pino-pretty's
// coloured lines when stderr is a terminal. Every line written while a request is served carries that request's id
// (`reqId`): compat-rest and the subgraphs run each request inside `withRequestId`, and the router passes its
// `x-request-id` on to the subgraphs, so the lines of one client request can be found in every server.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';

export const REQUEST_ID_HEADER = 'x-request-id';

const requestContext = new AsyncLocalStorage<{ reqId: string }>();

/** Runs `fn` as part of request `reqId`: what it logs, and what it starts, carries the id. */
export function withRequestId<T>(reqId: string, fn: () => T): T {
  return requestContext.run({ reqId }, fn);
}

/** The id of the request being served here, if any. */
export const currentRequestId = (): string | undefined => requestContext.getStore()?.reqId;

/**
 * Whether a client's `x-request-id` is kept (logged, passed on, echoed): 1 to 128 letters, digits, `.`, `_`, `:`
 * or `-` (UUIDs, ULIDs, trace-style ids). Anything else is replaced by a new id: a header a client makes up must
 * not break a log line, fill it, or come back to it as something else.
 */
export function isClientRequestId(sent: string | string[] | undefined): sent is string {
  return typeof sent === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(sent);
}

/** A request's id: the one its client (or the router) sent in `x-request-id` when isClientRequestId, or a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  const sent = Array.isArray(header) ? header[0] : header;
  return isClientRequestId(sent) ? sent : randomUUID();
}

/** The log lines' destination: pino-pretty on a terminal, JSON otherwise (a file, a collector). */
function destination() {
  if (!process.stderr.isTTY || process.env.LOG_FORMAT === 'json') return pino.destination(2);
  return pino.transport({ target: 'pino-pretty', options: { destination: 2, translateTime: 'SYS:HH:MM:ss.l' } });
}

/** A logger writing to `to` whose every line logged during a request carries its id. */
export function createLogger(to: pino.DestinationStream, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino(
    {
      level,
      mixin: () => {
        const reqId = currentRequestId();
        return reqId ? { reqId } : {};
      },
    },
    to,
  );
}

/** The process's logger (LOG_LEVEL, default info); servers take a child naming themselves. */
export const logger: Logger = createLogger(destination());

/** A `(line) => void` log function (the form the servers take) writing to `log` at `level`. */
export const lineLog =
  (log: Logger, level: 'info' | 'warn' | 'error' = 'warn') =>
  (line: string): void =>
    log[level](line);
