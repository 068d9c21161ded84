// What "storage unavailable" is: the one classification of database failures that every edge answers with 503
// `storage unavailable` and on which ingest waits and resumes. Free of imports, so that the router's thread and
// the platform modules can use it without loading pg.

/** What a caller is told, on every interface, when storage cannot answer (service-details.md). */
export const STORAGE_UNAVAILABLE = 'storage unavailable';

/** Thrown where storage is known to be unavailable; `isStorageUnavailable` recognises it and pg's own errors. */
export class StorageUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(STORAGE_UNAVAILABLE);
    this.name = 'StorageUnavailableError';
  }
}

// SQLSTATE classes and codes of a server that cannot serve now: connection exceptions (08), insufficient resources
// (53), operator intervention (57: shutdown, crash, starting up, a statement cancelled by `statement_timeout`),
// system errors (58).
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);
// What pg and pg-pool say when the server does not answer or the connection dies (they carry no SQLSTATE).
const UNAVAILABLE_MESSAGES =
  /^(Query read timeout|timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Connection ended unexpectedly)/;
const UNAVAILABLE_SYSCALLS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * Whether `err` means storage cannot answer now (server down, stalled, restarting, or too slow), rather than a bad
 * statement or a bug: the one classification every edge maps to 503 `storage unavailable`, and on which ingest
 * retries instead of stopping. Follows `cause` chains (a wrapped pg error counts).
 */
export function isStorageUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (e instanceof StorageUnavailableError) return true;
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNAVAILABLE_SYSCALLS.has(code)) return true;
      if (/^[0-9A-Z]{5}$/.test(code) && UNAVAILABLE_CLASSES.has(code.slice(0, 2))) return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
