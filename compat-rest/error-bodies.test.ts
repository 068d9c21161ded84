// Every kind of refusal REST answers, each read as the exchange's Python SDK reads an error: the body carries `error`,
// and the `code` and `msg` of platform/error-codes.ts, so that the SDK raises a ClientError naming the code instead
// of a KeyError. The one table is also the one OpenAPI publishes and docs/access.md lists.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, revokeKey } from '../access/keys.ts';
import { ERROR_CODES, type ErrorCode } from '../platform/error-codes.ts';
import type { Answer, TestCompatApp } from '../test/compat-app.ts';
import { startCompatApp } from '../test/compat-app.ts';

/**
 * hyperliquid-python-sdk `hyperliquid/api.py`, `API._handle_exception`, in TypeScript: under 400 nothing is raised;
 * a 4xx is `json.loads(response.text)`, then `ClientError(status_code, err["code"], err["msg"], response.headers,
 * err.get("data"))` (a missing `code` or `msg` is Python's KeyError); 5xx is `ServerError(status_code, response.text)`.
 */
function pythonSdkRaises(status: number, text: string) {
  if (status < 400) return null;
  if (status >= 500) return { ServerError: { status_code: status, message: text } };
  const err = JSON.parse(text) as Record<string, unknown> | null;
  if (err === null) return { ClientError: { status_code: status, error_code: null, error_message: text } };
  for (const key of ['code', 'msg']) if (!(key in err)) throw new Error(`KeyError: '${key}'`);
  return { ClientError: { status_code: status, error_code: err.code, error_message: err.msg, error_data: err.data } };
}

/** The answer is `code`'s status and body, `message` in both `error` and `msg`, as the SDK reads it. */
function expectRefusal(res: Answer, code: ErrorCode, message: string | RegExp): void {
  const status = ERROR_CODES[code].status;
  const msg = typeof message === 'string' ? message : expect.stringMatching(message);
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { error: msg, code, msg } });
  expect(res.body.msg).toBe(res.body.error);
  const raised = pythonSdkRaises(res.status, res.text);
  if (status < 500) {
    expect(raised).toEqual({
      ClientError: { status_code: status, error_code: code, error_message: res.body.error, error_data: undefined },
    });
  } else expect(raised).toEqual({ ServerError: { status_code: status, message: res.text } });
}

const USER = `0x${'ab'.repeat(20)}`;
/** The fake node fails (500) for this user's relayed types, and cuts every other request off (unreachable). */
const FAILING = `0x${'50'.repeat(20)}`;

let node: http.Server;
let compat: TestCompatApp;
const keys = { good: '', mcp: '', broke: '', limited: '', revoked: '' };

beforeAll(async () => {
  node = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk;
    });
    req.on('end', () => {
      if (body.includes(FAILING)) return res.writeHead(500).end('internal');
      req.socket.destroy();
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/info`;
  compat = await startCompatApp({ data: 'empty', node: { url } });
  const pool = compat.db.pool;
  const key = async (opts: Parameters<typeof createKey>[1]) => (await createKey(pool, opts)).key;
  keys.good = await key({ scope: 'data', rateLimitPerMin: 100_000 });
  keys.mcp = await key({ scope: 'mcp', rateLimitPerMin: 100_000 });
  keys.broke = await key({ scope: 'data', credits: 0, rateLimitPerMin: 100_000 });
  keys.limited = await key({ scope: 'data', rateLimitPerMin: 1 });
  const revoked = await createKey(pool, { scope: 'data' });
  await revokeKey(pool, String(revoked.record.id));
  keys.revoked = revoked.key;
  compat.auth.invalidate();
}, 120_000);
afterAll(async () => {
  await compat?.close();
  await new Promise((r) => node?.close(r));
});

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const info = (body: unknown, key = keys.good) => compat.info(body, bearer(key));
const raw = (text: string) => compat.info(null, bearer(keys.good), text);
/** A GET with the key in the query (`api_key`, which every route takes). */
const get = (path: string) => compat.get(`${path}${path.includes('?') ? '&' : '?'}api_key=${keys.good}`);

describe('error bodies as the Python SDK reads them', () => {
  it('bad input: a bad value, an unknown parameter, an unknown type, malformed JSON, a body too large', async () => {
    expectRefusal(
      await info({ type: 'userFills', user: '0x12' }),
      'bad_input',
      'user: must be a 0x address, got "0x12"',
    );
    expectRefusal(
      await info({ type: 'allMids', bogus: 1 }),
      'unknown_parameter',
      /^bogus: unknown parameter; it takes/,
    );
    expectRefusal(await get('/market/coins?bogus=1'), 'unknown_parameter', 'bogus: unknown parameter; it takes none');
    expectRefusal(await info({ type: 'nope' }), 'unknown_type', 'Unknown type: nope');
    expectRefusal(await raw('{not json'), 'malformed_json', 'JSON body required');
    expectRefusal(await raw(''), 'malformed_json', 'JSON body required');
    const tooLarge = `{"type":"allMids","dex":"${'x'.repeat(1 << 20)}"}`;
    expectRefusal(await raw(tooLarge), 'body_too_large', 'body too large (max 1 MiB)');
  });

  it('not found', async () => {
    expectRefusal(await get('/nope'), 'not_found', 'no such endpoint: GET /nope');
  });

  it('keys: missing, invalid, revoked, mcp-only', async () => {
    expectRefusal(await compat.info({ type: 'allMids' }), 'missing_key', 'missing api key');
    expectRefusal(await info({ type: 'allMids' }, 'hlk_nope'), 'invalid_key', 'invalid api key');
    // A revoked key reads as an invalid one (spec §7); its code says why.
    expectRefusal(await info({ type: 'allMids' }, keys.revoked), 'revoked_key', 'invalid api key');
    expectRefusal(await info({ type: 'allMids' }, keys.mcp), 'mcp_only_key', 'mcp_only_key');
  });

  it('no credits left, and over the rate', async () => {
    expectRefusal(await info({ type: 'allMids' }, keys.broke), 'insufficient_credits', 'insufficient credits');
    // One request a minute: of three, one at least is refused (a window turns over at most once meanwhile).
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await info({ type: 'allMids' }, keys.limited));
    const refused = answers.find((a) => a.status === 429) as Answer;
    expectRefusal(refused, 'rate_limited', 'rate limit exceeded: 1 requests per minute');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('the node unreachable, and the node failing', async () => {
    expectRefusal(await info({ type: 'userFees', user: USER }), 'upstream_unreachable', /^Upstream unreachable: /);
    expectRefusal(
      await info({ type: 'userFees', user: FAILING }),
      'upstream_error',
      'Upstream error: status 500: internal',
    );
  });
});

describe('the one table of codes', () => {
  it('is the enum of the OpenAPI error schema, `code` and `msg` required', async () => {
    const doc = await compat.get('/openapi.json');
    const schema = doc.body.components.schemas.Error;
    expect(schema.required).toEqual(['error', 'code', 'msg']);
    expect(schema.properties.code.enum).toEqual(Object.keys(ERROR_CODES));
  });

  it('is the table of docs/access.md, each code with its status and GraphQL form', () => {
    const doc = readFileSync(new URL('../docs/access.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d+) \| `([A-Z_]+)` \|/gm)].map(([, code, status, graphql]) => [
      code,
      { status: Number(status), graphql },
    ]);
    expect(Object.fromEntries(rows)).toEqual(ERROR_CODES);
  });
});
