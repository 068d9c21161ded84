// What every answer of the bad-input fuzz test must be (no 5xx; a 4xx is the error body naming a field it was
// sent), failures grouped and reported with the seed, and the request helpers the test shares.
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { codeOfBody } from '../../platform/error-codes.ts';

export const SEED = Number(process.env.FUZZ_SEED ?? 16_0607);

/** The field a 400's message names: `field: rule` (`req.coin`, `users[2]`), fastify's schema wording, or the body. */
export function namedField(message: string): string | null {
  const patterns = [
    /^(?:querystring|params|body)\/(\w+) /,
    /^(?:querystring|params|body) must have required property '(\w+)'/,
    /^([A-Za-z_]\w*)(?:[.[][^\s:]*)?(?::| must | is | only )/,
    /^JSON (body) required$/,
    /^Unknown (type): /,
    // A key as the client spelt it (`?start_time` after a doubled `?`).
    /^([^\s:]+): /,
  ];
  for (const re of patterns) {
    const m = re.exec(message);
    if (m) return m[1] as string;
  }
  return null;
}

export interface Failure {
  /** What kind of request and failure it is: thousands of the same bug are reported as one. */
  group: string;
  line: string;
}

/**
 * A REST answer: no 5xx; a 4xx is exactly the error body `{"error", "code", "msg"}` (a code of the table, `msg` the
 * same message: what the exchange's Python SDK reads); a 400 names one of `fields`.
 */
export function checkRest(
  res: { status: number; text: string; head?: boolean },
  what: string,
  group: string,
  fields: ReadonlySet<string>,
  failures: Failure[],
): void {
  const { status, text } = res;
  const fail = (why: string) =>
    failures.push({ group: `${why} ${group}`, line: `${why}: ${what} → ${status} ${short(text)}` });
  if (status >= 500) return void fail('5xx');
  if (status < 400 || res.head) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return void fail('4xx not JSON');
  }
  const { error, msg } = (body ?? {}) as { error?: unknown; msg?: unknown };
  if (typeof error !== 'string' || msg !== error || !codeOfBody(body) || Object.keys(body as object).length !== 3) {
    return void fail('4xx not {"error", "code", "msg"}');
  }
  const field = namedField(error);
  if (status === 400 && (field === null || !fields.has(field))) fail('400 names no field it was sent');
}

export function report(name: string, failures: Failure[]): void {
  const seen = new Map<string, string>();
  for (const f of failures) if (!seen.has(f.group)) seen.set(f.group, f.line);
  expect([...seen.values()].slice(0, 40), `${name}: ${failures.length} failures, FUZZ_SEED=${SEED}`).toEqual([]);
}

export async function inBatches<T>(
  items: T[],
  width: number,
  run: (item: T, i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await run(items[i] as T, i);
      }
    }),
  );
}

/** A request or answer as a failure shows it: long runs of one character squeezed, then cut at 400 characters. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export function short(text: string): string {
  const s = text.replace(/(.)\1{39,}/gs, (run, c: string) => `${c}…×${run.length}`);
  return s.length > 400 ? `${s.slice(0, 400)}…(${s.length})` : s;
}

/** The query keys of a URL as a server reads them (decoded where they decode). */
export function sentKeys(url: string): string[] {
  const query = url.slice(url.indexOf('?') + 1);
  return query.split('&').map((pair) => {
    const key = pair.split('=')[0] as string;
    try {
      return decodeURIComponent(key);
    } catch {
      return key;
    }
  });
}

/** A request with the URL exactly as given (fetch would normalise a broken escape or a raw byte). */
export function rawHttp(host: string, port: number, method: string, path: string, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest({ host, port, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
