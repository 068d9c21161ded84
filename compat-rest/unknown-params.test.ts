// A parameter a request does not take is a 400 naming it (and what the request takes), on /info bodies at every
// level, WS posts, and path routes' query strings and bodies; the fields the exchange's clients are known to add
// (request-schema.ts CLIENT_EXTRAS) and the API key are taken. The rule runs before the charge (test/hardening.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { errorBody } from '../platform/error-codes.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';

let c: TestCompatApp;
let user: string;
beforeAll(async () => {
  c = await startCompatApp();
  const { rows } = await c.db.pool.query(
    'SELECT address FROM accounts.fills GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
  );
  user = rows[0].address;
}, 120_000);
afterAll(async () => {
  await c?.close();
});

describe('/info', () => {
  it.each([
    [
      { type: 'userFunding', start_Time: 0 },
      'start_Time: unknown parameter; it takes type, user, startTime, endTime, limit, cursor',
    ],
    [
      { type: 'userNonFundingLedgerUpdates', offset: 500 },
      'offset: unknown parameter; it takes type, user, startTime, endTime, limit, cursor',
    ],
    [
      { type: 'userFills', aggregatebytime: true },
      'aggregatebytime: unknown parameter; it takes type, user, aggregateByTime',
    ],
    [
      { type: 'historicalOrders', limits: 5 },
      'limits: unknown parameter; it takes type, user, limit, lookbackDays, startTime, endTime, cursor',
    ],
  ])('%j is refused naming the field', async (fields, error) => {
    const r = await c.info({ user, ...fields });
    expect(r.status).toBe(400);
    expect(r.body.error.startsWith(error)).toBe(true);
  });

  it('refuses one in a nested object, naming its path', async () => {
    const r = await c.info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 0, end_time: 1 } });
    expect([r.status, r.body]).toEqual([
      400,
      errorBody('unknown_parameter', 'req.end_time: unknown parameter; it takes coin, interval, startTime, endTime'),
    ]);
  });

  it('refuses one on a type without fields and on a relayed type, where the node is asked nothing', async () => {
    expect((await c.info({ type: 'spotMetaAndAssetCtxs', coin: 'BTC' })).body).toEqual(
      errorBody('unknown_parameter', 'coin: unknown parameter; it takes type'),
    );
    expect((await c.info({ type: 'userFees', user, coin: 'BTC' })).body).toEqual(
      errorBody('unknown_parameter', 'coin: unknown parameter; it takes type, user'),
    );
  });

  it('takes the fields the exchange clients add (dex on any type, endTime on userFills) and ignores them', async () => {
    const plain = await c.info({ type: 'userFills', user });
    const withExtras = await c.info({ type: 'userFills', user, endTime: 1, dex: '' });
    expect(withExtras.status).toBe(200);
    expect(withExtras.body).toEqual(plain.body);
    expect((await c.info({ type: 'historicalOrders', user, dex: 'xyz' })).status).toBe(200);
    expect((await c.info({ type: 'userFunding', user, dex: 'xyz' })).status).toBe(200);
    // endTime is an extra of userFills only.
    expect((await c.info({ type: 'twapHistory', user, endTime: 1 })).status).toBe(400);
  });
});

describe('path routes', () => {
  it.each([
    ['/fills/recent?start_Time=2026-01-01', 'start_Time'],
    ['/funding/userFunding?user=USER&start_time=0', 'start_time'],
    ['/market/bbo/BTC?limt=5', 'limt'],
    ['/hip3/top-movers?count=5', 'count'],
    ['/hip4/questions?questionId=1', 'questionId'],
    ['/evm/transactions?blocknumber=1', 'blocknumber'],
    ['/users/leaderboard?windows=7d', 'windows'],
    ['/users/USER/pnl-calendar?window=7d&tz=UTC', 'tz'],
  ])('%s is refused naming %s and what the route takes', async (path, name) => {
    const r = await c.get(path.replace('USER', user));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${name}: unknown parameter; it takes \\w`));
  });

  it('refuses any parameter on a route that takes none, saying so', async () => {
    const r = await c.get('/evm/hip3/backstop/health?dex=xyz');
    expect([r.status, r.body]).toEqual([400, errorBody('unknown_parameter', 'dex: unknown parameter; it takes none')]);
    expect((await c.get('/evm/hip3/backstop/health')).status).toBe(200);
  });

  it('takes a query parameter without a name (`&=`, `=1`) as saying nothing, there being nothing to name', async () => {
    for (const query of ['?limit=1&=', '?=1&limit=1', '?limit=1&&&&=']) {
      const r = await c.get(`/fills/recent${query}`);
      expect([query, r.status, r.body.data?.length]).toEqual([query, 200, 1]);
    }
    expect((await c.get('/evm/hip3/backstop/health?=')).status).toBe(200);
  });

  it('refuses a field a POST route body does not take', async () => {
    const res = await c.app.inject({
      method: 'POST',
      url: '/users/batch/performance',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ addresses: [user], window: '7d', includeDrawdown: true }),
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body).error).toBe(
      'includeDrawdown: unknown parameter; it takes addresses, window, include_drawdown',
    );
  });

  it('takes the API key as a query parameter on every route, and the route names its own', async () => {
    const { key } = await createKey(c.db.pool, { scope: 'data', rateLimitPerMin: 100_000 });
    c.auth.invalidate();
    const r = await c.get(`/fills/recent?limit=1&api_key=${key}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    const info = await c.app.inject({
      method: 'POST',
      url: `/info?api_key=${key}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"type":"allMids"}',
    });
    expect(info.statusCode).toBe(200);
    const other = await c.app.inject({
      method: 'POST',
      url: `/info?api_key=${key}&type=allMids`,
      headers: { 'content-type': 'application/json' },
      payload: '{"type":"allMids"}',
    });
    expect(JSON.parse(other.body)).toEqual(errorBody('unknown_parameter', 'type: unknown parameter; it takes none'));
  });
});
