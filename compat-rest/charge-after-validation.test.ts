// Validation comes before charging (ARCHITECTURE.md, service-details: "refused input costs nothing, on every
// interface"): a malformed POST /info body (broken JSON, not an object, a wrong type, a missing or unknown field)
// and a path route's malformed parameter answer 400 and take no credit, even from a key with none left (a 400, not
// a 402), and so is what a route's input definition refuses (a window's order: kit/input.ts). Values a service rule
// refuses once the call runs (an unknown dex, a cursor's meaning) are charged and given back: the key ends with what it
// had. A well-formed call is charged its credit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';

let compat: TestCompatApp;
const USER = `0x${'ab'.repeat(20)}`;

beforeAll(async () => {
  compat = await startCompatApp();
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

async function newKey(credits: number) {
  const { key, record } = await createKey(compat.db.pool, { scope: 'data', rateLimitPerMin: 100_000, credits });
  compat.auth.invalidate();
  return { headers: { authorization: `Bearer ${key}` }, id: record.id };
}

const creditsLeft = async (id: number) =>
  Number((await compat.db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [id])).rows[0].credits);

/** Raw /info bodies refused for their form, before anything runs. */
const MALFORMED_BODIES: string[] = [
  '',
  '{"type":',
  '{"type": "allMids"',
  'not json',
  '[]',
  '"allMids"',
  'null',
  '42',
  '{}',
  '{"type": 5}',
  '{"type": "noSuchType"}',
  '{"type": "l2Book"}',
  '{"type": "l2Book", "coin": 5}',
  '{"type": "l2Book", "coin": "BTC", "nSigFigs": "three"}',
  `{"type": "userFills", "user": "0x12"}`,
  `{"type": "userFills", "user": "${USER}", "aggregateByTime": "yes"}`,
  `{"type": "userFillsByTime", "user": "${USER}", "startTime": "yesterday"}`,
  `{"type": "userFillsByTime", "user": "${USER}", "startTime": 1e309}`,
  `{"type": "historicalOrders", "user": "${USER}", "limit": 0}`,
  `{"type": "borrowLendReserveHistory", "interval": "2m"}`,
  '{"type": "candleSnapshot", "req": {"coin": "BTC", "interval": "7m", "startTime": 0}}',
  '{"type": "l2Book", "coin": "BTC", "nSigFigs": 9}',
  '{"type": "l2Book", "coin": "BTC", "nSigFigs": 3, "mantissa": 2}',
  '{"type": "l2Books", "coins": ["BTC"], "mantissa": true}',
  `{"type": "orderStatus", "user": "${USER}", "oid": true}`,
  `{"type": "orderStatus", "user": "${USER}", "oid": {}}`,
  `{"type": "orderStatus", "user": "${USER}", "cloid": "0x12"}`,
  `{"type": "recentFills", "cursor": "x"}`,
  `{"type": "fills", "user": "${USER}", "cursor": "1:2"}`,
  `{"type": "historicalOrders", "user": "${USER}", "startTime": 0, "cursor": "oid-7"}`,
  `{"type": "historicalOrders", "user": "${USER}", "cursor": "99999999999999999999"}`,
];

/** Bodies of the right form whose values a service rule refuses (found once the call runs). */
const REFUSED_BY_RULE: string[] = [
  `{"type": "userFillsByTime", "user": "${USER}", "startTime": 2000, "endTime": 1000}`,
  '{"type": "allMids", "dex": "nosuchdex"}',
];

/** Path routes with a parameter their schema refuses. */
const BAD_PATHS: string[] = [
  '/hip4/questions?limit=0',
  '/hip4/questions?question_id=x',
  '/hip4/fills?start=yesterday',
  '/evm/transactions?limit=1001',
  '/evm/transactions?start_time=2026-13-45',
  '/evm/hip3/backstop/transfers?is_deposit=maybe',
  '/market/bbo/BTC?start_time=tomorrow',
  '/hip3/top-movers?limit=101',
  `/fills/user/${USER}?limit=0`,
  '/fills/user/0x12',
  // What an input definition refuses beyond a field's own schema (kit/input.ts): a window's order, a list's items.
  '/hip4/fills?start=2000&end=1000',
  '/hip4/analytics?coin=BTC',
  '/evm/transactions?start_time=2000&end_time=1000',
  `/evm/user/${USER}/ledger-events?start_time=2000&end_time=1000`,
];

/** Path routes whose parameters a service rule refuses once the call runs: charged, and given back. */
const REFUSED_PATHS_BY_RULE: string[] = [
  '/hip4/questions?cursor=x',
  '/fills/?start_time=2026-01-02&end_time=2026-01-01',
];

describe('a refused input costs nothing', () => {
  it.each(MALFORMED_BODIES.concat(REFUSED_BY_RULE))('POST /info %s', async (raw) => {
    const { headers, id } = await newKey(3);
    const res = await compat.info(undefined, { ...headers, 'content-type': 'application/json' }, raw);
    expect({ status: res.status, error: typeof res.body?.error }).toEqual({ status: 400, error: 'string' });
    expect(await creditsLeft(id)).toBe(3);
  });

  it.each(MALFORMED_BODIES)('POST /info %s from a key without credits: 400, not 402', async (raw) => {
    const { headers, id } = await newKey(0);
    const res = await compat.info(undefined, headers, raw);
    expect(res.status).toBe(400);
    expect(await creditsLeft(id)).toBe(0);
  });

  it.each(BAD_PATHS.concat(REFUSED_PATHS_BY_RULE))('GET %s', async (path) => {
    const { headers, id } = await newKey(3);
    const res = await compat.app.inject({ method: 'GET', url: path, headers });
    expect({ status: res.statusCode, error: typeof res.json().error }).toEqual({ status: 400, error: 'string' });
    expect(await creditsLeft(id)).toBe(3);
  });

  it.each(BAD_PATHS)('GET %s from a key without credits: 400, not 402', async (path) => {
    const { headers, id } = await newKey(0);
    const res = await compat.app.inject({ method: 'GET', url: path, headers });
    expect(res.statusCode).toBe(400);
    expect(await creditsLeft(id)).toBe(0);
  });

  it('a well-formed call costs its credit; one from a key without credits is 402', async () => {
    const { headers, id } = await newKey(1);
    expect((await compat.info({ type: 'allMids' }, headers)).status).toBe(200);
    expect(await creditsLeft(id)).toBe(0);
    expect((await compat.info({ type: 'allMids' }, headers)).status).toBe(402);
    expect((await compat.app.inject({ method: 'GET', url: '/hip4/questions', headers })).statusCode).toBe(402);
  });
});
