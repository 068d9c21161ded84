// A role's start against a Postgres that is slow, busy or still starting: each start-up step that reads or writes
// it is retried with backoff while storage is unavailable (db/unavailable.ts); a wrong DATABASE_URL or a refused
// login ends the start.
import { setTimeout as sleep } from 'node:timers/promises';
import { isStorageUnavailable } from './unavailable.ts';

/** Runs one named start-up step (`run`), retrying it as `startupRetry` decides. */
export type StartupStep = <T>(step: string, run: () => Promise<T>) => Promise<T>;

/** Each step once, failures as they come: the commands beside a running service (keys, import, derive). */
export const runOnce: StartupStep = (_step, run) => run();

export interface StartupRetryOptions {
  /** One line per retry: the step, why, and when it runs again. */
  log: (line: string) => void;
  /** The first wait, doubled at each retry up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /**
   * How long a refused connection (nothing listens at the address) is retried before the start ends: a Postgres
   * starting beside the service listens within seconds, a wrong port never does.
   */
  refusedForMs?: number;
  /** Told before each wait (npm start then answers 503 on its public ports), with the failure's reason. */
  onRetry?: (reason: string) => void;
  /** Once aborted (the process is stopping), the step fails, saying so, instead of waiting for another try. */
  signal?: AbortSignal;
}

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
const REFUSED_FOR_MS = 30_000;

/** What ends a start at once, as each error code is told to whoever started it. */
const CONFIGURATION_ERRORS: Record<string, (err: ErrorFacts) => string> = {
  ENOTFOUND: (e) => `no such host${e.hostname ? ` ${e.hostname}` : ''} (ENOTFOUND): check the host in DATABASE_URL`,
  '3D000': (e) => `${e.message} (3D000): check the database name in DATABASE_URL, or create it (CREATE DATABASE)`,
  '28P01': (e) => `Postgres refused the login: ${e.message} (28P01): check the user and password in DATABASE_URL`,
  '28000': (e) =>
    `Postgres refused the login: ${e.message} (28000): check the user in DATABASE_URL and the server's pg_hba.conf`,
};

interface ErrorFacts {
  code?: string;
  message: string;
  hostname?: string;
  address?: string;
  port?: number;
}

/** The first error of `err`'s cause chain that carries a code (pg's SQLSTATE, or a socket's), else `err` itself. */
function factsOf(err: unknown): ErrorFacts {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const facts = e as Partial<ErrorFacts> & { errors?: unknown[] };
    if (typeof facts.code === 'string') {
      // A host name with several addresses fails as an AggregateError whose own message is empty.
      const first = (facts.errors?.[0] ?? {}) as Partial<ErrorFacts>;
      return {
        code: facts.code,
        message: facts.message || first.message || facts.code,
        ...(facts.hostname ? { hostname: facts.hostname } : {}),
        ...((facts.address ?? first.address) ? { address: facts.address ?? first.address } : {}),
        ...((facts.port ?? first.port) ? { port: facts.port ?? first.port } : {}),
      };
    }
    e = (e as { cause?: unknown }).cause;
  }
  return { message: err instanceof Error ? err.message : String(err) };
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/**
 * A `StartupStep` that retries a step while Postgres cannot answer it now (a statement timeout, a connection timeout,
 * a terminated connection, a server starting up: what `isStorageUnavailable` classifies), with backoff (0.5 s
 * doubling to 10 s) and a line on the console each time, for as long as it takes: a role started while another loads
 * its history waits for it rather than dying. A refused connection is retried for `refusedForMs` only, and a wrong
 * host, a missing database or a refused login fail at once, saying what to check; any other failure as it came.
 */
export function startupRetry(opts: StartupRetryOptions): StartupStep {
  const firstDelayMs = opts.firstDelayMs ?? FIRST_DELAY_MS;
  const maxDelayMs = opts.maxDelayMs ?? MAX_DELAY_MS;
  const refusedForMs = opts.refusedForMs ?? REFUSED_FOR_MS;
  return async <T>(step: string, run: () => Promise<T>): Promise<T> => {
    let delayMs = firstDelayMs;
    let refusedSince: number | undefined;
    for (;;) {
      try {
        return await run();
      } catch (err) {
        const facts = factsOf(err);
        const configuration = facts.code ? CONFIGURATION_ERRORS[facts.code] : undefined;
        if (configuration) throw new Error(`${step}: ${configuration(facts)}`, { cause: err });
        if (!isStorageUnavailable(err)) throw err;
        const reason = facts.message.replace(/\s+/g, ' ');
        let wait = delayMs;
        let line: string;
        if (facts.code === 'ECONNREFUSED') {
          const at = facts.address
            ? `${facts.address}${facts.port ? `:${facts.port}` : ''}`
            : 'the address in DATABASE_URL';
          refusedSince ??= Date.now();
          const left = refusedSince + refusedForMs - Date.now();
          if (left <= 0) {
            throw new Error(
              `${step}: connection refused at ${at} for ${seconds(refusedForMs)}: is Postgres running there? ` +
                "check DATABASE_URL's host and port",
              { cause: err },
            );
          }
          wait = Math.min(wait, left);
          line =
            `${step}: connection refused at ${at} (Postgres may be starting); ` +
            `retrying in ${seconds(wait)}, for up to ${seconds(left)} more`;
        } else {
          refusedSince = undefined;
          line = `${step}: ${reason} (Postgres slow or busy); retrying in ${seconds(wait)}`;
        }
        const stopped = () => new Error(`${step}: stopped while waiting for Postgres (${reason})`, { cause: err });
        if (opts.signal?.aborted) throw stopped();
        opts.log(`postgres: ${line}`);
        opts.onRetry?.(reason);
        try {
          await sleep(wait, undefined, opts.signal ? { signal: opts.signal } : {});
        } catch {
          throw stopped();
        }
        delayMs = Math.min(delayMs * 2, maxDelayMs);
      }
    }
  };
}
