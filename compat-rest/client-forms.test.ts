// The exchange's clients as they really are: /info bodies and /ws messages byte for byte as the Python SDK
// (hyperliquid-python-sdk: hyperliquid/info.py, websocket_manager.py) and ccxt (ts/src/hyperliquid.ts) send them,
// orderStatus's oid as any u64 or a cloid, and the service's own types l2Books, availableDates and allFills.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { openSocket } from '../test/ws-client.ts';

/** compat-rest alone on a port (test/compat-app.ts) over two hours of simulated history, frozen. */
let stack: TestCompatApp;
/** Picked from the simulated history. */
const who = { trader: '', maker: '', oid: 0, cloid: '', cloidUser: '', funded: '' };
/** 2^53 + 1: JSON.parse reads it as 2^53. */
const BIG_OID = '9007199254740993';
const U64_MAX = '18446744073709551615';

beforeAll(async () => {
  stack = await startCompatApp({ historyMs: 2 * 3_600_000, listen: true });
  const one = async (sql: string) => (await stack.db.pool.query(sql)).rows[0];
  who.trader = (await one('SELECT address FROM accounts.fills GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).address;
  const c = await one(
    'SELECT address, cloid, oid FROM accounts.order_statuses WHERE cloid IS NOT NULL ORDER BY time LIMIT 1',
  );
  Object.assign(who, { cloidUser: c.address, cloid: c.cloid, oid: c.oid });
  who.funded = (await one('SELECT address FROM accounts.funding_payments LIMIT 1')).address;
  // An order whose oid only a lossless reading finds: a copy of a stored status row under oid 2^53 + 1.
  await stack.db.pool.query(
    `CREATE TEMP TABLE big AS SELECT * FROM accounts.order_statuses WHERE address = '${who.cloidUser}' LIMIT 1;
     UPDATE big SET oid = ${BIG_OID}, cloid = NULL;
     INSERT INTO accounts.order_statuses SELECT * FROM big;`,
  );
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function raw(text: string) {
  const res = await fetch(`${stack.urls.compat}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}
const info = (body: unknown) => raw(JSON.stringify(body));
/** A checksummed (mixed-case) form of a lowercase address, as Python users paste them. */
const mixedCase = (a: string) => `0x${[...a.slice(2)].map((ch, i) => (i % 2 ? ch.toUpperCase() : ch)).join('')}`;

describe('orderStatus: oid as any u64, or a cloid', () => {
  it('finds an order by oid as a JSON number, a decimal string, and a cloid in oid or in cloid', async () => {
    const user = who.cloidUser;
    for (const body of [
      { type: 'orderStatus', user, oid: who.oid },
      { type: 'orderStatus', user, oid: String(who.oid) },
      // The Python SDK's query_order_by_cloid and ccxt's fetchOrder with a clientOrderId: the cloid in `oid`.
      { type: 'orderStatus', user, oid: who.cloid },
      { type: 'orderStatus', user, oid: who.cloid.toUpperCase().replace('0X', '0x') },
      { type: 'orderStatus', user, cloid: who.cloid },
    ]) {
      const r = await info(body);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ status: 'order', order: { order: { oid: who.oid } } });
    }
  });

  it('reads an oid above 2^53 sent as a JSON number exactly, over HTTP and in a /ws post', async () => {
    const body = `{"type":"orderStatus","user":"${who.cloidUser}","oid":${BIG_OID}}`;
    expect((await raw(body)).body.status).toBe('order');
    // One below, as JSON.parse would have read it: no such order.
    const rounded = `{"type":"orderStatus","user":"${who.cloidUser}","oid":9007199254740992}`;
    expect((await raw(rounded)).body).toEqual({ status: 'unknownOid' });
    expect((await info({ type: 'orderStatus', user: who.cloidUser, oid: BIG_OID })).body.status).toBe('order');
    const socket = new WebSocket(stack.urls.ws);
    await new Promise((r) => socket.once('open', r));
    const answer = new Promise<{ data: { response: { payload: { data: { status: string } } } } }>((r) =>
      socket.once('message', (m) => r(JSON.parse(String(m)))),
    );
    socket.send(`{"method":"post","id":7,"request":{"type":"info","payload":${body}}}`);
    expect((await answer).data.response.payload.data.status).toBe('order');
    socket.close();
  });

  it('takes every u64 up to 18446744073709551615, as a number or a string, and refuses one more naming oid', async () => {
    const user = who.cloidUser;
    expect((await info({ type: 'orderStatus', user, oid: 0 })).body).toEqual({ status: 'unknownOid' });
    expect((await info({ type: 'orderStatus', user, oid: U64_MAX })).body).toEqual({ status: 'unknownOid' });
    expect((await raw(`{"type":"orderStatus","user":"${user}","oid":${U64_MAX}}`)).body).toEqual({
      status: 'unknownOid',
    });
    for (const text of [
      `{"type":"orderStatus","user":"${user}","oid":18446744073709551616}`,
      `{"type":"orderStatus","user":"${user}","oid":"18446744073709551616"}`,
      `{"type":"orderStatus","user":"${user}","oid":-1}`,
      `{"type":"orderStatus","user":"${user}","oid":1.5}`,
      `{"type":"orderStatus","user":"${user}","oid":"0x12"}`,
      `{"type":"orderStatus","user":"${user}","oid":true}`,
    ]) {
      const r = await raw(text);
      expect(r.status, text).toBe(400);
      expect(r.body.error, text).toMatch(/^oid: must be an order id \(an integer from 0 to 18446744073709551615/);
    }
    const none = await info({ type: 'orderStatus', user });
    expect(none).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^oid: is required/) } });
  });
});

describe('/info bodies as the Python SDK sends them', () => {
  it('answers its explicit nulls, empty dex and false flags', async () => {
    const user = mixedCase(who.trader);
    const start = Date.now() - 3_600_000;
    const cases: unknown[] = [
      { type: 'allMids', dex: '' },
      { type: 'meta', dex: '' },
      { type: 'metaAndAssetCtxs' },
      { type: 'spotMeta' },
      { type: 'l2Book', coin: 'BTC' },
      { type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: start, endTime: Date.now() } },
      { type: 'fundingHistory', coin: 'BTC', startTime: start },
      { type: 'userFills', user },
      { type: 'userFillsByTime', user, startTime: start, endTime: null, aggregateByTime: false },
      { type: 'userFunding', user: who.funded, startTime: 0 },
      { type: 'userNonFundingLedgerUpdates', user, startTime: 0, endTime: null },
      { type: 'historicalOrders', user },
      { type: 'userTwapSliceFills', user },
      { type: 'clearinghouseState', user, dex: '' },
      { type: 'openOrders', user, dex: '' },
      { type: 'frontendOpenOrders', user, dex: '' },
      { type: 'spotClearinghouseState', user },
    ];
    for (const body of cases) expect((await info(body)).status, JSON.stringify(body)).toBe(200);
    // A checksummed address is the same user.
    const fills = await info({ type: 'userFills', user });
    expect(fills.body.length).toBeGreaterThan(0);
    expect(fills.body).toEqual((await info({ type: 'userFills', user: who.trader })).body);
  });
});

describe('/info bodies as ccxt sends them', () => {
  it('answers its forms: no startTime on userFunding and the ledger, extra dex and endTime fields', async () => {
    const user = who.trader;
    const cases: unknown[] = [
      { type: 'userFunding', user: who.funded },
      { type: 'userNonFundingLedgerUpdates', user },
      { type: 'historicalOrders', user, dex: 'xyz' },
      // fetchMyTrades without `since` but with `until`: userFills with an endTime it does not read.
      { type: 'userFills', user, endTime: Date.now() },
      { type: 'userFillsByTime', user, startTime: 0, endTime: Date.now() },
      // fetchOHLCV without `since`: startTime 0.
      { type: 'candleSnapshot', req: { coin: 'ETH', interval: '1h', startTime: 0, endTime: Date.now() } },
      { type: 'orderStatus', user: who.cloidUser, oid: who.oid },
      { type: 'perpDexs' },
      { type: 'spotMetaAndAssetCtxs' },
      { type: 'metaAndAssetCtxs', dex: 'xyz' },
    ];
    for (const body of cases) expect((await info(body)).status, JSON.stringify(body)).toBe(200);
    const funding = await info({ type: 'userFunding', user: who.funded });
    expect(funding.body.length).toBeGreaterThan(0);
  });

  it('puts the spec top-level coin, usdc and szi beside delta in userFunding and accountFunding', async () => {
    for (const type of ['userFunding', 'accountFunding']) {
      const { body } = await info({ type, user: who.funded, startTime: 0 });
      expect(body.length).toBeGreaterThan(0);
      for (const p of body) {
        expect(p).toMatchObject({ coin: p.delta.coin, usdc: p.delta.usdc, szi: p.delta.szi, time: expect.any(Number) });
      }
    }
  });
});

describe('/ws messages as the Python SDK sends them', () => {
  it('acknowledges its subscriptions (checksummed users included) and answers its ping', async () => {
    const socket = await openSocket(stack.urls.ws);
    const user = mixedCase(who.trader);
    const subscriptions = [
      { type: 'allMids' },
      { type: 'l2Book', coin: 'BTC' },
      { type: 'trades', coin: 'ETH' },
      { type: 'bbo', coin: 'BTC' },
      { type: 'candle', coin: 'BTC', interval: '1m' },
      { type: 'activeAssetCtx', coin: 'BTC' },
      { type: 'userEvents', user },
      { type: 'userFills', user },
      { type: 'orderUpdates', user },
      { type: 'userFundings', user },
      { type: 'userNonFundingLedgerUpdates', user },
    ];
    for (const subscription of subscriptions) {
      socket.send({ method: 'subscribe', subscription });
      let m = (await socket.next()) as { channel: string; data: { subscription?: { type: string } } };
      while (m.channel !== 'subscriptionResponse' && m.channel !== 'error') {
        m = (await socket.next()) as typeof m;
      }
      expect(m.channel, JSON.stringify(subscription)).toBe('subscriptionResponse');
      expect(m.data.subscription?.type).toBe(subscription.type);
    }
    socket.send({ method: 'ping' });
    let m = (await socket.next()) as { channel: string };
    while (m.channel !== 'pong') m = (await socket.next()) as typeof m;
    socket.close();
  });
});

describe('l2Books', () => {
  it('answers several books keyed by coin, each as l2Book answers it, null for a coin without a book', async () => {
    const r = await info({ type: 'l2Books', coins: ['BTC', 'ETH', 'NOPE'], nSigFigs: 3, mantissa: null });
    expect(r.status).toBe(200);
    expect(r.body.cursor).toBeNull();
    expect(Object.keys(r.body.result)).toEqual(['BTC', 'ETH', 'NOPE']);
    expect(r.body.result.NOPE).toBeNull();
    expect(r.body.result.BTC).toEqual((await info({ type: 'l2Book', coin: 'BTC', nSigFigs: 3 })).body);
    expect(r.body.result.ETH.levels).toHaveLength(2);
  });

  it('takes 1 to 50 coins and refuses the rest with 400 naming the field', async () => {
    const fifty = Array.from({ length: 50 }, (_, i) => (i ? `C${i}` : 'BTC'));
    expect((await info({ type: 'l2Books', coins: fifty })).status).toBe(200);
    expect((await info({ type: 'l2Books', coins: ['BTC'] })).status).toBe(200);
    for (const [body, error] of [
      [{ coins: [...fifty, 'ETH'] }, 'coins: must hold 1 to 50 coins, got 51'],
      [{ coins: [] }, 'coins: must hold 1 to 50 coins, got 0'],
      [{}, 'coins: is required, must hold 1 to 50 coins'],
      [{ coins: 'BTC' }, 'coins: must hold 1 to 50 coins, got "BTC"'],
      [{ coins: ['BTC', ''] }, 'coins[1]: must be a non-empty string'],
      [{ coins: ['BTC'], nSigFigs: 6 }, 'nSigFigs: must be an integer from 2 to 5'],
      [{ coins: ['BTC'], nSigFigs: 4, mantissa: 2 }, 'mantissa: only with nSigFigs 5'],
    ] as const) {
      const r = await info({ type: 'l2Books', ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toContain(error);
    }
  });
});

describe('availableDates', () => {
  const today = () => new Date().toISOString().slice(0, 10);

  it('lists the UTC dates with stored history per coin and dataset', async () => {
    await stack.markets.history.sampleOnce();
    const one = await info({ type: 'availableDates', coin: 'BTC', dataset: 'trades' });
    expect(one.status).toBe(200);
    expect(one.body.result).toEqual({ BTC: { trades: expect.arrayContaining([today()]) } });
    const dates: string[] = one.body.result.BTC.trades;
    expect(dates).toEqual([...dates].sort());
    expect(dates.every((d) => /^\d{4}-\d{2}-\d{2}$/.test(d))).toBe(true);
    const all = await info({ type: 'availableDates', coin: 'BTC' });
    expect(Object.keys(all.body.result.BTC)).toEqual([
      'trades',
      'candles',
      'assetCtxs',
      'fundingRates',
      'l2Book',
      'bbo',
      'depth',
      'slippage',
    ]);
    expect(all.body.result.BTC.l2Book).toContain(today());
    expect(all.body.result.BTC.candles).toContain(today());
  });

  it('lists every coin without a coin, and a coin without history with empty lists', async () => {
    const every = await info({ type: 'availableDates', dataset: 'l2Book' });
    expect(Object.keys(every.body.result)).toEqual(expect.arrayContaining(['BTC', 'ETH']));
    const none = await info({ type: 'availableDates', coin: 'NOPE', dataset: 'bbo' });
    expect(none.body.result).toEqual({ NOPE: { bbo: [] } });
  });

  it('refuses an unknown dataset and an empty coin', async () => {
    const bad = await info({ type: 'availableDates', dataset: 'orders' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('dataset: must be one of trades, candles');
    expect((await info({ type: 'availableDates', coin: '' })).body.error).toContain('coin: must be a non-empty string');
  });
});

describe('allFills', () => {
  it("pages every user's fills of a window with X-Has-More and X-Next-Cursor, nothing lost or repeated", async () => {
    const startTime = Date.now() - 2 * 3_600_000;
    const endTime = Date.now();
    const whole = await info({ type: 'allFills', startTime, endTime, limit: 1000 });
    expect(whole.status).toBe(200);
    const users = new Set(whole.body.result.map((f: { user: string }) => f.user));
    expect(users.size).toBeGreaterThan(1);
    expect(whole.body.result[0]).toMatchObject({ time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]{12}$/) });
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const r = await info({ type: 'allFills', startTime, endTime, limit: 97, ...(cursor ? { cursor } : {}) });
      expect(r.headers.get('x-total-count')).toBeNull();
      seen.push(...r.body.result.map((f: { tid: number; user: string }) => `${f.tid}:${f.user}`));
      if (r.headers.get('x-has-more') !== 'true') break;
      cursor = r.headers.get('x-next-cursor') as string;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, whole.body.result.length)).toEqual(
      whole.body.result.map((f: { tid: number; user: string }) => `${f.tid}:${f.user}`),
    );
  });

  it('takes a window of one day at most, and limits 1 to 1000', async () => {
    const startTime = Date.now() - 86_400_000;
    expect((await info({ type: 'allFills', startTime, endTime: startTime + 86_400_000 })).status).toBe(200);
    expect((await info({ type: 'allFills', startTime })).status).toBe(200);
    // limit 1: one trade, whose two fills (one per side) are never split across pages.
    const single = (await info({ type: 'allFills', startTime, limit: 1 })).body.result;
    expect(new Set(single.map((f: { tid: number }) => f.tid)).size).toBe(1);
    expect((await info({ type: 'allFills', startTime, limit: 1000 })).status).toBe(200);
    for (const [body, error] of [
      [
        { startTime, endTime: startTime + 86_400_001 },
        'endTime: must be at most 86400000 ms (one day) after startTime',
      ],
      [{}, 'startTime: is required'],
      [{ startTime, endTime: startTime - 1 }, 'startTime: must not be after endTime'],
      [{ startTime, limit: 1001 }, 'limit: must be an integer from 1 to 1000'],
      [{ startTime, limit: 0 }, 'limit: must be an integer from 1 to 1000'],
      // Every user's fills: a user filter is `fills`' (the rule of unknown parameters names it).
      [
        { startTime, user: who.trader },
        'user: unknown parameter; it takes type, startTime, coin, side, endTime, limit',
      ],
      [{ startTime, cursor: 'x' }, 'cursor: must be'],
    ] as const) {
      const r = await info({ type: 'allFills', ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toContain(error);
    }
  });
});
