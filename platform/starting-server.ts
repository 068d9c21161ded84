// What a role's public ports answer while its start retries a slow Postgres (db/startup.ts): every request 503 with
// Retry-After and the error body, so that a client or a load balancer is told "not yet" rather than refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ErrorBody, errorBody } from './error-codes.ts';

/** Seconds a caller is told to wait: the start's retries back off to 10 s, most come sooner. */
export const STARTING_RETRY_AFTER_S = 5;

export interface StartingServers {
  /** The ports held (as bound: a port 0 asked for is the one the system gave). */
  ports: number[];
  /** The reason the next answers give: the last failure of the step being retried. */
  setReason(reason: string): void;
  /** Frees the ports, dropping the connections held, for the real servers to listen on; twice is once. */
  close(): Promise<void>;
}

/** The body of every answer, in the shape of every other error body (`error`, `code`, `msg`). */
export function startingBody(reason: string): ErrorBody {
  return errorBody('storage_unavailable', `starting: storage is slow (${reason}); retrying`);
}

const urlOf = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Listens on each of `ports` at `host`, answering every request (a WebSocket upgrade too) 503 with `Retry-After` and
 * `startingBody(reason)`. A port it cannot take is told and skipped: the real server's listen will say it again.
 */
export async function answerStarting(opts: {
  ports: readonly number[];
  host: string;
  reason: string;
  log: (line: string) => void;
}): Promise<StartingServers> {
  let reason = opts.reason;
  const answer = () => {
    const body = JSON.stringify(startingBody(reason));
    return {
      body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'retry-after': String(STARTING_RETRY_AFTER_S),
        // Nothing kept alive: the real server takes the port soon.
        connection: 'close',
      },
    };
  };
  const servers: http.Server[] = [];
  const ports: number[] = [];
  for (const port of opts.ports) {
    const server = http.createServer((_req, res) => {
      const { body, headers } = answer();
      res.writeHead(503, headers).end(body);
    });
    // `/ws` and graphql-ws clients ask for an upgrade: answered the same way, in HTTP, before the socket is closed.
    server.on('upgrade', (_req, socket) => {
      const { body, headers } = answer();
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      socket.end(`HTTP/1.1 503 Service Unavailable\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, opts.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      opts.log(`starting          port ${port} not held (${err instanceof Error ? err.message : String(err)})`);
      continue;
    }
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  if (ports.length) {
    const urls = ports.map((p) => urlOf(opts.host, p)).join(', ');
    opts.log(`starting          ${urls} answer 503 until Postgres answers the start`);
  }
  let closing: Promise<void> | undefined;
  return {
    ports,
    setReason: (next) => {
      reason = next;
    },
    close: () => {
      closing ??= Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeAllConnections();
            }),
        ),
      ).then(() => undefined);
      return closing;
    },
  };
}
