// A role's start-up steps against a slow Postgres: what is retried and told, what ends the start at once, the bound
// on a refused connection, and the public ports answering 503 meanwhile (platform/starting-server.ts), freed after.
import http from 'node:http';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { answerStarting, type StartingServers } from '../platform/starting-server.ts';
import { freePort } from '../test/ports.ts';
import { startupRetry } from './startup.ts';

/** An error as pg gives it: a message and, for the server's, its SQLSTATE; for a socket's, its syscall code. */
const pgError = (message: string, facts: Record<string, unknown>) => Object.assign(new Error(message), facts);
const STATEMENT_TIMEOUT = () =>
  pgError('canceling statement due to statement timeout', { code: '57014', severity: 'ERROR' });

/** A step failing with `failures` in turn, then answering `done`; `calls` counts its tries. */
function flaky(failures: (() => Error)[]) {
  const step = {
    calls: 0,
    run: async () => {
      const failure = failures[step.calls++];
      if (failure) throw failure();
      return 'done';
    },
  };
  return step;
}

const fast = (lines: string[], more: Partial<Parameters<typeof startupRetry>[0]> = {}) =>
  startupRetry({ log: (line) => lines.push(line), firstDelayMs: 5, maxDelayMs: 20, ...more });

describe('startupRetry', () => {
  it('retries a statement timeout with backoff, a line each time, until the step succeeds', async () => {
    const lines: string[] = [];
    const reasons: string[] = [];
    const step = flaky([STATEMENT_TIMEOUT, STATEMENT_TIMEOUT]);
    const retry = fast(lines, { onRetry: (reason) => reasons.push(reason) });
    expect(await retry('schema check', step.run)).toBe('done');
    expect(step.calls).toBe(3);
    expect(lines).toEqual([
      'postgres: schema check: canceling statement due to statement timeout (Postgres slow or busy); retrying in 0 s',
      'postgres: schema check: canceling statement due to statement timeout (Postgres slow or busy); retrying in 0 s',
    ]);
    expect(reasons).toEqual(Array(2).fill('canceling statement due to statement timeout'));
  });

  it('retries a connection timeout and a terminated connection, doubling the wait up to its cap', async () => {
    const lines: string[] = [];
    const timeout = () => new Error('Connection terminated due to connection timeout');
    const terminated = () => new Error('Connection terminated unexpectedly');
    const step = flaky([timeout, terminated, timeout]);
    const retry = startupRetry({ log: (line) => lines.push(line), firstDelayMs: 100, maxDelayMs: 250 });
    expect(await retry('key check', step.run)).toBe('done');
    expect(lines.map((l) => /retrying in (\S+ s)/.exec(l)?.[1])).toEqual(['0.1 s', '0.2 s', '0.3 s']);
  });

  it('ends the start at once on a wrong password, saying what to check', async () => {
    const lines: string[] = [];
    const step = flaky([() => pgError('password authentication failed for user "hl"', { code: '28P01' })]);
    await expect(fast(lines)('schema check', step.run)).rejects.toThrow(
      'schema check: Postgres refused the login: password authentication failed for user "hl" (28P01): check the ' +
        'user and password in DATABASE_URL',
    );
    expect(step.calls).toBe(1);
    expect(lines).toEqual([]);
  });

  it('ends the start at once on a host that does not exist or a database that does not', async () => {
    const noHost = flaky([
      () =>
        pgError('getaddrinfo ENOTFOUND db.invalid', {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname: 'db.invalid',
        }),
    ]);
    await expect(fast([])('migrations', noHost.run)).rejects.toThrow(
      'migrations: no such host db.invalid (ENOTFOUND): check the host in DATABASE_URL',
    );
    expect(noHost.calls).toBe(1);
    const noDatabase = flaky([() => pgError('database "hl" does not exist', { code: '3D000' })]);
    await expect(fast([])('migrations', noDatabase.run)).rejects.toThrow(
      'migrations: database "hl" does not exist (3D000): check the database name in DATABASE_URL',
    );
    expect(noDatabase.calls).toBe(1);
  });

  it('gives a refused connection a bounded time, then ends the start naming the address', async () => {
    const lines: string[] = [];
    const refused = () =>
      pgError('connect ECONNREFUSED 127.0.0.1:5999', { code: 'ECONNREFUSED', address: '127.0.0.1', port: 5999 });
    const step = flaky(Array(1000).fill(refused));
    const startedAt = Date.now();
    await expect(fast(lines, { refusedForMs: 150 })('writer lock', step.run)).rejects.toThrow(
      "writer lock: connection refused at 127.0.0.1:5999 for 0.2 s: is Postgres running there? check DATABASE_URL's host and port",
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
    expect(step.calls).toBeGreaterThan(2);
    expect(lines[0]).toMatch(
      /^postgres: writer lock: connection refused at 127\.0\.0\.1:5999 \(Postgres may be starting\)/,
    );
  });

  it('passes any other failure on as it came, untried again (a refusal of its own, a bug)', async () => {
    const refusal = new Error('another process already ingests into this database');
    const step = flaky([() => refusal]);
    await expect(fast([])('writer lock', step.run)).rejects.toBe(refusal);
    expect(step.calls).toBe(1);
  });

  it('stops retrying once the process stops, failing with why it waited', async () => {
    const stopping = new AbortController();
    const step = flaky(Array(1000).fill(STATEMENT_TIMEOUT));
    const retry = startupRetry({ log: () => {}, firstDelayMs: 60_000, signal: stopping.signal });
    const outcome = retry('domain services', step.run);
    setTimeout(() => stopping.abort(), 20);
    await expect(outcome).rejects.toThrow(
      'domain services: stopped while waiting for Postgres (canceling statement due to statement timeout)',
    );
    expect(step.calls).toBe(1);
  });
});

/** Whether a server can listen on `port` now (the placeholder has let it go). */
const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('the public ports while the start retries', () => {
  it('answer every request 503 with Retry-After and the error body, and are free once released', async () => {
    const port = await freePort();
    let placeholder: Promise<StartingServers> | undefined;
    let slow = true;
    const retry = startupRetry({
      log: () => {},
      firstDelayMs: 20,
      maxDelayMs: 20,
      // As npm start does: held from the first retry on, the reason updated at each.
      onRetry: (reason) => {
        if (placeholder) void placeholder.then((held) => held.setReason(reason));
        else placeholder = answerStarting({ ports: [port], host: '127.0.0.1', reason, log: () => {} });
      },
    });
    const starting = retry('domain services', async () => {
      if (slow) throw STATEMENT_TIMEOUT();
      return 'started';
    });
    while (!placeholder) await new Promise((r) => setTimeout(r, 5));
    await placeholder;
    const error = 'starting: storage is slow (canceling statement due to statement timeout); retrying';
    for (const [path, method] of [
      ['/info', 'POST'],
      ['/health', 'GET'],
      ['/graphql', 'GET'],
    ] as const) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({ error, code: 'storage_unavailable', msg: error });
    }
    // A /ws or graphql-ws client's upgrade is answered the same, in HTTP.
    const upgrade = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.request({
        port,
        host: '127.0.0.1',
        path: '/ws',
        headers: { connection: 'Upgrade', upgrade: 'websocket' },
      });
      req.on('response', resolve).on('error', reject).end();
    });
    upgrade.resume();
    expect([upgrade.statusCode, upgrade.headers['retry-after']]).toEqual([503, '5']);
    expect(await listenable(port)).toBe(false);

    slow = false;
    expect(await starting).toBe('started');
    await (await placeholder).close();
    expect(await listenable(port)).toBe(true);
  });
});
