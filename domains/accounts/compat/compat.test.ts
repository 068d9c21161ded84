// Accounts through compat-rest over a simulated node: the path endpoints, the paging headers of /info fills and
// historicalOrders, include_order_type, a 400 naming the field for every bad input, and dataCoverage's delay.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFill } from '../../../ingest/formats/fills.ts';
import type { Address } from '../../../platform/fields.ts';
import { describeWsChannels } from '../../../test/accounts-ws-channels.ts';
import { startCompatApp, type TestCompatApp } from '../../../test/compat-app.ts';
import { nodeFill } from '../../../test/node-files.ts';
import { type FrozenTestStack, startFrozenStack } from '../../../test/stack.ts';
import { openSocket } from '../../../test/ws-client.ts';
import { MAX_COUNTED_FILLS } from '../service/fill-pages.ts';
import { userFillsJson } from '../service/fills.ts';

let stack: FrozenTestStack;
let trader = '';
/** For the 400s: compat-rest alone (test/compat-app.ts). */
let compat: TestCompatApp;

beforeAll(async () => {
  compat = await startCompatApp({ data: 'empty', node: 'down' });
  // These tests compare answers with each other: the loaded history, with no node writing and no ingest.
  stack = await startFrozenStack({ historyMs: 2 * 3_600_000 });
  // The busiest trader whose fills are still counted (a total past MAX_COUNTED_FILLS is null): how many fills the
  // busiest one has varies with the hours of the day the simulated history covers.
  const { rows } = await stack.db.pool.query(
    'SELECT address FROM accounts.fills GROUP BY 1 HAVING count(*) <= $1 ORDER BY count(*) DESC LIMIT 1',
    [MAX_COUNTED_FILLS],
  );
  trader = rows[0].address;
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await compat?.close();
});

async function get(path: string) {
  const res = await fetch(`${stack.urls.compat}${path}`);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function info(body: unknown) {
  const res = await fetch(`${stack.urls.compat}/info`, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('dataCoverage', () => {
  it('reports every dataset with its start, latest event and delay', async () => {
    // The delay is the seconds from the latest event to the answer (spec §2: "delay in seconds").
    const before = Date.now();
    const res = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      body: JSON.stringify({ type: 'dataCoverage' }),
    });
    const { result, cursor } = await res.json();
    expect(cursor).toBeNull();
    expect(result.region).toBe('local');
    expect(result.datasets.fills).toMatchObject({ start: expect.any(Number), latest: expect.any(Number) });
    const { latest, delaySeconds } = result.datasets.fills;
    expect(delaySeconds).toBeGreaterThanOrEqual(Math.floor((before - latest) / 1000));
    expect(delaySeconds).toBeLessThanOrEqual(Math.ceil((Date.now() - latest) / 1000));
    expect(result.datasets.accountSnapshots).toEqual({ start: null, earliest: null, latest: null, delaySeconds: null });
  });
});

describe('/fills/*', () => {
  it('pages /fills/user/{user} by cursor with no fill lost or repeated', async () => {
    // The simulated node keeps trading: page a window that is already complete.
    const end = `end_time=${Date.now() - 5000}`;
    const all = await get(`/fills/user/${trader}?limit=1000&${end}`);
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 1000; page++) {
      const r = await get(
        `/fills/user/${trader}?limit=97&${end}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((f: { tid: number; oid: number }) => `${f.tid}:${f.oid}`));
      if (!r.body.has_more) break;
      cursor = r.body.next_cursor;
    }
    expect(seen.slice(0, 1000)).toEqual(all.body.data.map((f: { tid: number; oid: number }) => `${f.tid}:${f.oid}`));
    expect(new Set(seen).size).toBe(seen.length);
    expect(all.body.total_count).toBe(seen.length);
  });

  it('adds orderType only when include_order_type is true, the body otherwise unchanged', async () => {
    const end = `end_time=${Date.now() - 5000}`;
    const plain = await get(`/fills/user/${trader}?limit=20&${end}`);
    const typed = await get(`/fills/user/${trader}?limit=20&${end}&include_order_type=true`);
    expect(plain.body.data.every((r: object) => !('orderType' in r))).toBe(true);
    expect(typed.body.data.every((r: object) => 'orderType' in r)).toBe(true);
    const strip = (rows: Record<string, unknown>[]) => rows.map(({ orderType: _o, ...rest }) => rest);
    expect(strip(typed.body.data)).toEqual(plain.body.data);
    expect(plain.body.data[0]).toMatchObject({
      crossed: expect.any(Number),
      time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
    });
  });

  it('adds orderType on /fills/ and /fills/recent too', async () => {
    for (const path of ['/fills/', '/fills/recent']) {
      const r = await get(`${path}?limit=20&include_order_type=true&end_time=${Date.now() - 5000}`);
      expect(r.status).toBe(200);
      expect(r.body.data.every((row: object) => 'orderType' in row)).toBe(true);
    }
  });

  it('lists recent fills of every user, newest first', async () => {
    const r = await get('/fills/recent?limit=10');
    expect(r.body.data).toHaveLength(10);
    expect(new Set(r.body.data.map((f: { user: string }) => f.user)).size).toBeGreaterThan(1);
  });

  it.each([
    ['/fills/user/0x123', 'user_address: must be a 0x address, got "0x123"'],
    ['/fills/recent?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/fills/recent?side=X', 'side: must be one of A, B, got "X"'],
    ['/fills/?cursor=yesterday', 'cursor'],
    ['/users/0xnope/account', 'user: must be a 0x address, got "0xnope"'],
    ['/funding/userFunding', 'user: is required, must be a 0x address'],
    [`/funding/userFunding?user=0x${'1'.repeat(40)}&startTime=10&endTime=5`, 'startTime: must not be after endTime'],
    ['/fills/?start_time=2026-01-02&end_time=2026-01-01', 'start_time: must not be after end_time'],
  ])('answers 400 for %s', async (path, message) => {
    const r = await compat.get(path);
    expect(r.status).toBe(400);
    expect(r.body.error).toContain(message);
  });
});

describe('/users/{user}/account and /funding/userFunding', () => {
  it('reports the account state valued at the live mids', async () => {
    const r = await get(`/users/${trader}/account`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      user: trader,
      account_value: expect.any(String),
      perp_account_empty: expect.any(Boolean),
    });
  });

  it("takes each position's leverage from the node, and values the account as GraphQL does", async () => {
    const [rest, node, graph] = await Promise.all([
      get(`/users/${trader}/account`),
      info({ type: 'clearinghouseState', user: trader }),
      fetch(`${stack.urls.router}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: `{ user(address: "${trader}") { account { accountValue positions { coin leverage leverageType roe } } } }`,
        }),
      }).then((r) => r.json()),
    ]);
    const onNode = new Map<string, { type: string; value: number }>(
      node.body.assetPositions.map((a: { position: { coin: string; leverage: { type: string; value: number } } }) => [
        a.position.coin,
        a.position.leverage,
      ]),
    );
    const positions = rest.body.data.positions as {
      coin: string;
      leverage: number;
      leverage_type: string;
      roe: string;
    }[];
    expect(positions.length).toBeGreaterThan(0);
    for (const p of positions) {
      const set = onNode.get(p.coin);
      if (!set) continue;
      expect([p.coin, p.leverage, p.leverage_type]).toEqual([p.coin, set.value, set.type]);
      expect(p.roe).toEqual(expect.any(String));
    }
    expect(positions.some((p) => onNode.has(p.coin))).toBe(true);
    const account = graph.data.user.account;
    expect(account.accountValue).toBe(rest.body.data.account_value);
    expect(account.positions).toEqual(
      positions.map((p) => ({ coin: p.coin, leverage: p.leverage, leverageType: p.leverage_type, roe: p.roe })),
    );
  });

  it('lists funding payments with their fields at the top level and in delta', async () => {
    const { rows } = await stack.db.pool.query('SELECT address FROM accounts.funding_payments LIMIT 1');
    const r = await get(`/funding/userFunding?user=${rows[0].address}&startTime=0`);
    expect(r.status).toBe(200);
    expect(r.body[0]).toMatchObject({
      coin: expect.any(String),
      usdc: expect.any(String),
      szi: expect.any(String),
      time: expect.any(Number),
      hash: `0x${'0'.repeat(64)}`,
      delta: { type: 'funding', fundingRate: expect.any(String), nSamples: null },
    });
    expect(r.body[0].coin).toBe(r.body[0].delta.coin);
  });
});

describe('POST /info accounts types', () => {
  it('streams a large userFills answer: the bytes written whole, with its headers, and whole in a /ws post', async () => {
    const user = `0x${'5e'.repeat(20)}` as Address;
    const t0 = Date.now() - 3_600_000;
    // 600 fills, ~176 kB: two 64 kB chunks and the rest.
    const fills = Array.from({ length: 600 }, (_, i) =>
      parseFill([user, nodeFill({ tid: 9_000_000 + i, oid: 8_000_000 + i, time: t0 + i * 1000 })], 0, i),
    );
    await stack.db.pool.query(
      `INSERT INTO accounts.fills SELECT * FROM json_populate_recordset(NULL::accounts.fills, $1)`,
      [JSON.stringify(fills)],
    );
    const whole = (await userFillsJson(stack.db.pool, { user })).toString('utf8');
    expect(whole.length).toBeGreaterThan(2 * 64 * 1024);
    for (const body of [
      { type: 'userFills', user },
      { type: 'userFillsByTime', user, startTime: t0 },
    ]) {
      const res = await fetch(`${stack.urls.compat}/info`, { method: 'POST', body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.text()).toBe(whole);
    }
    const socket = await openSocket(stack.urls.ws);
    try {
      socket.send({ method: 'post', id: 7, request: { type: 'info', payload: { type: 'userFills', user } } });
      const frame = (await socket.next()) as { data: { response: { payload: { data: unknown[] } } } };
      expect(frame.data.response.payload.data).toEqual(JSON.parse(whole));
    } finally {
      socket.close();
    }
  });

  it('pages fills with X-Has-More, X-Next-Cursor and X-Total-Count', async () => {
    const r = await info({ type: 'fills', user: trader, limit: 5 });
    expect(r.body.result).toHaveLength(5);
    expect(r.body.cursor).toBeNull();
    expect(r.headers.get('x-has-more')).toBe('true');
    const next = r.headers.get('x-next-cursor');
    expect(next).toMatch(/^\d+:\d+:\d+:\d+$/);
    expect(Number(r.headers.get('x-total-count'))).toBeGreaterThan(5);
    const page2 = await info({ type: 'fills', user: trader, limit: 5, cursor: next });
    expect(page2.body.result[0].tid).not.toBe(r.body.result[4].tid);
  });

  it('sends the paging headers with the default 100 rows too, so that a cut is never silent', async () => {
    const r = await info({ type: 'recentFills' });
    expect(r.body.result).toHaveLength(100);
    expect(r.headers.get('x-has-more')).toBe('true');
    expect(r.headers.get('x-next-cursor')).toMatch(/^\d+:\d+:\d+:\d+$/);
  });

  it('adds orderType to fills for include_order_type, as the path endpoints spell it, or includeOrderType', async () => {
    const end = Date.now() - 5000;
    const plain = await info({ type: 'fills', user: trader, endTime: end, limit: 20 });
    expect(plain.body.result.every((r: object) => !('orderType' in r))).toBe(true);
    for (const flag of ['include_order_type', 'includeOrderType']) {
      const typed = await info({ type: 'fills', user: trader, endTime: end, limit: 20, [flag]: true });
      expect(typed.body.result.map(({ orderType: _o, ...rest }: Record<string, unknown>) => rest)).toEqual(
        plain.body.result,
      );
      expect(typed.body.result.some((r: { orderType?: string }) => typeof r.orderType === 'string')).toBe(true);
    }
  });

  it('takes the historicalOrders cursor back as a string or as a number', async () => {
    const window = { type: 'historicalOrders', user: trader, startTime: 0, endTime: Date.now(), limit: 3 };
    const first = await info(window);
    const cursor = first.headers.get('x-next-cursor');
    expect(cursor).toMatch(/^\d+$/);
    const asString = await info({ ...window, cursor });
    const asNumber = await info({ ...window, cursor: Number(cursor) });
    expect(asNumber.status).toBe(200);
    expect(asNumber.body).toEqual(asString.body);
    expect(asString.body[0].order.oid).toBeLessThan(Number(cursor));
  });

  it('pages historicalOrders in window mode with headers', async () => {
    const now = Date.now();
    const r = await info({
      type: 'historicalOrders',
      user: trader,
      startTime: now - 7_200_000,
      endTime: now,
      limit: 3,
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-has-more')).toMatch(/true|false/);
    const oids = r.body.map((o: { order: { oid: number } }) => o.order.oid);
    expect([...oids].sort((a, b) => b - a)).toEqual(oids);
  });

  it.each([
    [{ type: 'userFills' }, 'user: is required, must be a 0x address'],
    [{ type: 'userFills', user: '0x12' }, 'user: must be a 0x address'],
    [{ type: 'userFillsByTime', user: `0x${'1'.repeat(40)}` }, 'startTime: is required'],
    [
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, limit: 5001 },
      'limit: must be an integer from 1 to 5000',
    ],
    [
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, lookbackDays: 0 },
      'lookbackDays: must be an integer from 1 to 365',
    ],
    [
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, lookbackDays: 366 },
      'lookbackDays: must be an integer from 1 to 365',
    ],
    [
      { type: 'orderStatus', user: `0x${'1'.repeat(40)}`, oid: 'abc' },
      'oid: must be an order id (an integer from 0 to 18446744073709551615',
    ],
    [{ type: 'fills', limit: 0 }, 'limit: must be an integer from 1 to 1000'],
    [{ type: 'fills', cursor: 'not-a-cursor' }, 'cursor'],
    [{ type: 'clearinghouseState', users: [] }, 'users: must hold 1 to 50 addresses'],
    // The body's schema states no count of users and takes a cursor as a number: the definition's check reads both.
    [
      { type: 'clearinghouseState', users: Array.from({ length: 51 }, () => `0x${'1'.repeat(40)}`) },
      'users: must hold 1 to 50 addresses, got 51',
    ],
    [
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, cursor: '12ab' },
      'cursor: must be an oid (at most 2^63 - 1), got "12ab"',
    ],
    [
      { type: 'historicalOrders', user: `0x${'1'.repeat(40)}`, cursor: -5 },
      'cursor: must be an oid (at most 2^63 - 1), got "-5"',
    ],
    [{ type: 'clearinghouseState', users: [`0x${'1'.repeat(40)}`, '0x12'] }, 'users[1]: must be a 0x address'],
    [
      { type: 'userFunding', user: `0x${'1'.repeat(40)}`, startTime: 10, endTime: 5 },
      'startTime: must not be after endTime',
    ],
  ])('answers 400 for %j', async (body, message) => {
    const r = await compat.info(body);
    expect(r.status).toBe(400);
    expect(r.body.error).toContain(message);
  });

  it('accepts the limit edges 1 and 5000 of historicalOrders and lookbackDays 1 and 365', async () => {
    for (const extra of [{ limit: 1 }, { limit: 5000 }, { lookbackDays: 1 }, { lookbackDays: 365 }]) {
      expect((await info({ type: 'historicalOrders', user: trader, ...extra })).status).toBe(200);
    }
  });

  it('answers accountFunding as userFunding', async () => {
    const { rows } = await stack.db.pool.query('SELECT address FROM accounts.funding_payments LIMIT 1');
    const body = { user: rows[0].address, startTime: 0 };
    const [user, account] = await Promise.all([
      info({ type: 'userFunding', ...body }),
      info({ type: 'accountFunding', ...body }),
    ]);
    expect(user.body.length).toBeGreaterThan(0);
    expect(account.body).toEqual(user.body);
  });

  it('answers clearinghouseState for several users in the order asked', async () => {
    const { rows } = await stack.db.pool.query('SELECT DISTINCT address FROM accounts.fills LIMIT 2');
    const users = rows.map((r: { address: string }) => r.address).reverse();
    const r = await info({ type: 'clearinghouseState', users });
    expect(r.status).toBe(200);
    expect(r.body.map((e: { user: string }) => e.user)).toEqual(users);
    for (const e of r.body) expect(e.clearinghouseState).toMatchObject({ marginSummary: expect.any(Object) });
  });

  it('answers orderStatus by a cloid given in its own field', async () => {
    const { rows } = await stack.db.pool.query(
      'SELECT address, oid, cloid FROM accounts.order_statuses WHERE cloid IS NOT NULL LIMIT 1',
    );
    const r = await info({ type: 'orderStatus', user: rows[0].address, cloid: rows[0].cloid });
    expect(r.body).toMatchObject({ status: 'order', order: { order: { oid: Number(rows[0].oid) } } });
  });

  it('answers userTwapSliceFills of one TWAP within inclusive bounds', async () => {
    const { rows } = await stack.db.pool.query(
      `SELECT address, twap_id, min(time) AS first, max(time) AS last FROM accounts.fills
       WHERE twap_id IS NOT NULL GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`,
    );
    const { address, twap_id: twapId, first, last } = rows[0];
    const all = await info({ type: 'userTwapSliceFills', user: address, twapId: Number(twapId) });
    expect(all.body.length).toBeGreaterThan(0);
    for (const s of all.body) expect(s).toMatchObject({ twapId: Number(twapId), fill: { twapId: Number(twapId) } });
    const bounded = await info({
      type: 'userTwapSliceFills',
      user: address,
      twapId: Number(twapId),
      startTime: Number(first),
      endTime: Number(last),
    });
    expect(bounded.body).toEqual(all.body);
  });

  it('returns [] for a funding window before the coverage start', async () => {
    const end = Date.UTC(2025, 8, 27, 9, 59, 59, 999);
    expect((await info({ type: 'userFunding', user: trader, startTime: 0, endTime: end })).body).toEqual([]);
  });
});

describeWsChannels(() => stack);
