// historicalOrders (the four rules of spec §4.1, the stop order's three rows of spec §3) and the indexed step of
// orderStatus, on order statuses loaded from hand-made node files.

import type { GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressValue } from '../../../platform/fields.ts';
import { accountsOver, NodeFiles, statusEvent, userConnection } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, nodeOrder, T0 } from '../../../test/node-files.ts';
import type { NodeOrder, OrderStatusEvent } from '../../../wire/node-lines.ts';
import { accountsSchema } from '../schema/index.ts';
import { ORDER_FIELD_COLUMNS } from '../schema/order.ts';
import { type HistoricalOrder, historicalOrders, historicalOrdersJson, orderStatus } from './orders.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const CAROL = addr(0xc3);
const DAN = addr(0xd4);
const DAY = 86_400_000;
const NOW = T0 + 3_600_000;
const STOP_CLOID = '0x000000000000000000000000000000aa';
const STOP_OID = 2000;
const OLD_OID = 500;

// 24 ordinary orders 1001..1024: order i opens at T0 + i·10 s and ends 5 s later, filled when i is even,
// canceled when odd. One stop order (oid 2000): open at T0, triggered at +300 s, filled 1 ms later. One order of
// 100 days ago; one order of Bob's.
const openAt = (i: number) => T0 + i * 10_000;
const child = nodeOrder({
  oid: 5000,
  side: 'A',
  isTrigger: true,
  tif: null,
  orderType: 'Take Profit Market',
  triggerPx: '3100.0',
  triggerCondition: 'Price above 3100',
  reduceOnly: true,
  isPositionTpsl: true,
});
const ordinary = (i: number): NodeOrder =>
  nodeOrder({
    coin: 'ETH',
    oid: 1000 + i,
    limitPx: `${2800 + i}.0`,
    timestamp: openAt(i),
    children: i === 24 ? [child] : [],
  });
const stop = nodeOrder({
  coin: 'ETH',
  side: 'A',
  oid: STOP_OID,
  limitPx: '2800.0',
  timestamp: T0,
  isTrigger: true,
  tif: null,
  triggerCondition: 'Price below 2850',
  triggerPx: '2850.0',
  orderType: 'Stop Market',
  reduceOnly: true,
  cloid: STOP_CLOID,
});
const stopFilled: NodeOrder = {
  ...stop,
  sz: '0.0',
  triggerPx: '0.0',
  timestamp: T0 + 300_000,
  triggerCondition: 'Triggered',
};

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  const at = (time: number, events: OrderStatusEvent[]) => files.add('node_order_statuses_by_block', time, events);
  at(T0, [statusEvent(ALICE, T0, 'open', stop)]);
  for (let i = 1; i <= 24; i++) {
    const o = ordinary(i);
    at(openAt(i), [statusEvent(ALICE, openAt(i), 'open', o)]);
    const done = i % 2 === 0 ? { ...o, sz: '0.0' } : o;
    at(openAt(i) + 5_000, [statusEvent(ALICE, openAt(i) + 5_000, i % 2 === 0 ? 'filled' : 'canceled', done)]);
  }
  at(T0 + 300_000, [statusEvent(ALICE, T0 + 300_000, 'triggered', stop)]);
  at(T0 + 300_001, [statusEvent(ALICE, T0 + 300_001, 'filled', stopFilled)]);
  const old = nodeOrder({ oid: OLD_OID, timestamp: T0 - 100 * DAY });
  at(T0 - 100 * DAY, [statusEvent(ALICE, T0 - 100 * DAY, 'open', old)]);
  at(T0 - 100 * DAY + 1, [statusEvent(ALICE, T0 - 100 * DAY + 1, 'canceled', old)]);
  at(T0 + 1, [statusEvent(BOB, T0 + 1, 'open', nodeOrder({ oid: 3000 }))]);
  // Carol: two old orders, then one order with 300 status rows (more than the first newest-first slice holds).
  at(T0 + 2, [statusEvent(CAROL, T0 + 2, 'open', nodeOrder({ oid: 4001 }))]);
  at(T0 + 3, [statusEvent(CAROL, T0 + 3, 'open', nodeOrder({ oid: 4002 }))]);
  const busy = nodeOrder({ oid: 4003 });
  at(
    T0 + 10,
    Array.from({ length: 300 }, (_, k) => statusEvent(CAROL, T0 + 10 + k, 'open', busy)),
  );
  // Dan: a coin whose JSON needs escapes.
  const odd = nodeOrder({ oid: 6000, coin: 'we"ird\\coin', cloid: STOP_CLOID });
  at(T0 + 20, [statusEvent(DAN, T0 + 20, 'open', odd), statusEvent(DAN, T0 + 20, 'canceled', odd)]);
  await files.load(db);
});
afterAll(async () => {
  await db.drop();
});

const summary = (rows: HistoricalOrder[]) => rows.map((r) => [r.order.oid, r.status, r.statusTimestamp]);

const STOP_ORDER = {
  coin: 'ETH',
  side: 'A',
  limitPx: '2800.0',
  sz: '1.0',
  oid: STOP_OID,
  timestamp: T0,
  triggerCondition: 'Price below 2850',
  isTrigger: true,
  triggerPx: '2850.0',
  children: [],
  isPositionTpsl: false,
  reduceOnly: true,
  orderType: 'Stop Market',
  origSz: '1.0',
  tif: null,
  cloid: STOP_CLOID,
};

describe('historicalOrders: trigger orders', () => {
  it("shows a stop's open, triggered and filled rows as one order (limit 1)", async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, startTime: T0, endTime: NOW, limit: 1, now: NOW });
    expect(page.rows).toStrictEqual([
      {
        order: {
          ...STOP_ORDER,
          sz: '0.0',
          triggerPx: '0.0',
          timestamp: T0 + 300_000,
          triggerCondition: 'Triggered',
        },
        status: 'filled',
        statusTimestamp: T0 + 300_001,
      },
      { order: STOP_ORDER, status: 'triggered', statusTimestamp: T0 + 300_000 },
      { order: STOP_ORDER, status: 'open', statusTimestamp: T0 },
    ]);
    expect(page.hasMore).toBe(true);
    expect(page.nextCursor).toBe(String(STOP_OID));
  });

  it('keeps only the statuses inside the window', async () => {
    const late = await historicalOrders(db.pool, {
      user: ALICE,
      startTime: T0 + 300_000,
      endTime: T0 + 300_001,
      now: NOW,
    });
    expect(summary(late.rows)).toEqual([
      [STOP_OID, 'filled', T0 + 300_001],
      [STOP_OID, 'triggered', T0 + 300_000],
    ]);
    const early = await historicalOrders(db.pool, { user: ALICE, startTime: T0, endTime: T0 + 9_999, now: NOW });
    expect(summary(early.rows)).toEqual([[STOP_OID, 'open', T0]]);
  });
});

describe('historicalOrders: window mode', () => {
  it('gives each order once with its latest status inside the window, by oid descending', async () => {
    // Order 1001 ends at +15 s (the inclusive start); order 1005 opens at +50 s (the inclusive end) and is
    // canceled after it, so its open row is the latest inside.
    const page = await historicalOrders(db.pool, {
      user: ALICE,
      startTime: T0 + 15_000,
      endTime: T0 + 50_000,
      now: NOW,
    });
    expect(summary(page.rows)).toEqual([
      [1005, 'open', openAt(5)],
      [1004, 'filled', openAt(4) + 5_000],
      [1003, 'canceled', openAt(3) + 5_000],
      [1002, 'filled', openAt(2) + 5_000],
      [1001, 'canceled', openAt(1) + 5_000],
    ]);
    expect(page.hasMore).toBe(false);
    expect(page.nextCursor).toBeNull();
  });

  it('pages 25 orders by 10 with a cursor: 10, 10, 5, none lost or repeated, limit counting orders', async () => {
    const pages: number[][] = [];
    const rowCounts: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await historicalOrders(db.pool, {
        user: ALICE,
        startTime: T0,
        endTime: NOW,
        limit: 10,
        cursor,
        now: NOW,
      });
      pages.push([...new Set(page.rows.map((r) => r.order.oid))]);
      rowCounts.push(page.rows.length);
      if (!page.hasMore) {
        expect(page.nextCursor).toBeNull();
        break;
      }
      expect(page.nextCursor).toBe(String(pages.at(-1)?.at(-1)));
      cursor = page.nextCursor ?? undefined;
    }
    const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, k) => from - k);
    expect(pages).toEqual([[STOP_OID, ...range(1024, 1016)], range(1015, 1006), range(1005, 1001)]);
    // The stop order spans three rows of the first page.
    expect(rowCounts).toEqual([12, 10, 5]);
  });

  it('enters window mode with a cursor alone, whatever the age', async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, cursor: '1003', now: NOW });
    expect(summary(page.rows)).toEqual([
      [1002, 'filled', openAt(2) + 5_000],
      [1001, 'canceled', openAt(1) + 5_000],
      [OLD_OID, 'canceled', T0 - 100 * DAY + 1],
    ]);
    expect(page.hasMore).toBe(false);
  });

  it('bounds a window by lookbackDays as well', async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, cursor: '1003', lookbackDays: 30, now: NOW });
    expect(summary(page.rows).map(([oid]) => oid)).toEqual([1002, 1001]);
    const window = await historicalOrders(db.pool, {
      user: ALICE,
      startTime: T0 - 200 * DAY,
      endTime: NOW,
      lookbackDays: 30,
      now: NOW,
    });
    expect(window.rows.some((r) => r.order.oid === OLD_OID)).toBe(false);
    expect(new Set(window.rows.map((r) => r.order.oid)).size).toBe(25);
  });

  it('passes TP/SL children through', async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, cursor: '1025', limit: 1, now: NOW });
    expect(page.rows[0]?.order.oid).toBe(1024);
    expect(page.rows[0]?.order.children).toStrictEqual([child]);
  });
});

describe('historicalOrdersJson', () => {
  it("writes the bytes of historicalOrders' rows serialized, with the same paging, whole or in chunks", async () => {
    const queries = [
      { user: ALICE, now: NOW },
      { user: ALICE, limit: 3, now: NOW },
      { user: ALICE, startTime: T0, limit: 10, now: NOW },
      { user: ALICE, cursor: '1025', limit: 1, now: NOW },
      { user: CAROL, now: NOW },
      { user: DAN, startTime: 0, now: NOW },
      { user: addr(0xee), now: NOW },
    ];
    for (const q of queries) {
      const page = await historicalOrders(db.pool, q);
      const json = await historicalOrdersJson(db.pool, q);
      expect([json.hasMore, json.nextCursor]).toStrictEqual([page.hasMore, page.nextCursor]);
      const whole = await json.write();
      expect(whole.toString()).toBe(JSON.stringify(page.rows));
      const chunks: Buffer[] = [];
      const last = await json.write((chunk) => chunks.push(chunk));
      expect(Buffer.concat([...chunks, last]).equals(whole)).toBe(true);
    }
    const dan = await historicalOrders(db.pool, { user: DAN, now: NOW });
    expect(dan.rows[0]?.order).toMatchObject({ oid: 6000, coin: 'we"ird\\coin', cloid: STOP_CLOID });
  });
});

describe('historicalOrders: most recent orders (no window)', () => {
  it('returns the `limit` most recent orders, every row newest first', async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, limit: 3, now: NOW });
    expect(summary(page.rows)).toEqual([
      [STOP_OID, 'filled', T0 + 300_001],
      [STOP_OID, 'triggered', T0 + 300_000],
      [1024, 'filled', openAt(24) + 5_000],
      [1023, 'canceled', openAt(23) + 5_000],
      [STOP_OID, 'open', T0],
    ]);
    expect(page.hasMore).toBe(true);
    expect(page.nextCursor).toBeNull();
  });

  it('reaches any age unless lookbackDays bounds it', async () => {
    const all = await historicalOrders(db.pool, { user: ALICE, now: NOW });
    expect(new Set(all.rows.map((r) => r.order.oid)).size).toBe(26);
    expect(all.rows.at(-1)).toMatchObject({ status: 'canceled', order: { oid: OLD_OID } });
    expect(all.hasMore).toBe(false);
    const recent = await historicalOrders(db.pool, { user: ALICE, lookbackDays: 30, now: NOW });
    expect(new Set(recent.rows.map((r) => r.order.oid)).size).toBe(25);
    expect(recent.rows.some((r) => r.order.oid === OLD_OID)).toBe(false);
  });

  it('finds the most recent orders behind one order with many status rows', async () => {
    const page = await historicalOrders(db.pool, { user: CAROL, limit: 2, now: NOW });
    expect(summary(page.rows)).toEqual([
      [4003, 'open', T0 + 309],
      [4002, 'open', T0 + 3],
    ]);
    expect(page.hasMore).toBe(true);
    const all = await historicalOrders(db.pool, { user: CAROL, limit: 3, now: NOW });
    expect(summary(all.rows).map((r) => r[0])).toEqual([4003, 4002, 4001]);
    expect(all.hasMore).toBe(false);
  });

  // Limits and lookbacks out of range are refused by the input definition (inputs.test.ts).
  it('refuses malformed cursors', async () => {
    const q = { user: ALICE, now: NOW };
    await expect(historicalOrders(db.pool, { ...q, cursor: '12ab' })).rejects.toThrow(/cursor/);
    await expect(historicalOrders(db.pool, { ...q, cursor: '9223372036854775808' })).rejects.toThrow(/cursor/);
  });
});

describe('orderStatus (indexed history)', () => {
  it('answers by oid with the latest status row', async () => {
    expect(await orderStatus(db.pool, { user: ALICE, oid: 1005 })).toStrictEqual({
      status: 'order',
      order: {
        order: {
          coin: 'ETH',
          side: 'B',
          limitPx: '2805.0',
          sz: '1.0',
          oid: 1005,
          timestamp: openAt(5),
          triggerCondition: 'N/A',
          isTrigger: false,
          triggerPx: '0.0',
          children: [],
          isPositionTpsl: false,
          reduceOnly: false,
          orderType: 'Limit',
          origSz: '1.0',
          tif: 'Gtc',
          cloid: null,
        },
        status: 'canceled',
        statusTimestamp: openAt(5) + 5_000,
      },
    });
  });

  it('answers by cloid (any case) with the latest status of that order', async () => {
    const answer = await orderStatus(db.pool, {
      user: addressValue(ALICE.toUpperCase().replace('0X', '0x'), 'user'),
      cloid: STOP_CLOID.toUpperCase().replace('0X', '0x'),
    });
    expect(answer).toStrictEqual({
      status: 'order',
      order: {
        order: { ...STOP_ORDER, sz: '0.0', triggerPx: '0.0', timestamp: T0 + 300_000, triggerCondition: 'Triggered' },
        status: 'filled',
        statusTimestamp: T0 + 300_001,
      },
    });
  });

  it("answers unknownOid for an unknown oid, another user's order or an unknown cloid", async () => {
    expect(await orderStatus(db.pool, { user: ALICE, oid: 9999 })).toStrictEqual({ status: 'unknownOid' });
    expect(await orderStatus(db.pool, { user: ALICE, oid: 3000 })).toStrictEqual({ status: 'unknownOid' });
    expect(await orderStatus(db.pool, { user: BOB, oid: 3000 })).toMatchObject({ status: 'order' });
    expect(await orderStatus(db.pool, { user: BOB, cloid: STOP_CLOID })).toStrictEqual({ status: 'unknownOid' });
  });
});

describe('User.orders: only the selected fields are read', () => {
  const typeFields = (name: string) => Object.keys((accountsSchema.getType(name) as GraphQLObjectType).getFields());
  const orderFields = typeFields('Order');
  const statusFields = typeFields('OrderStatus');
  /** An Order field as a selection (objects with a few of their fields). */
  const orderLeaf = (name: string) => ({ market: 'market { coin }', children: 'children { oid coin }' })[name] ?? name;
  const statusLeaf = (name: string) =>
    name === 'order'
      ? `order { ${orderFields.map(orderLeaf).join(' ')} }`
      : name === 'statusHistory'
        ? 'statusHistory { status statusTimestamp }'
        : name;
  const query = (selection: string, args: string) =>
    userConnection(
      accountsOver(db.pool, () => NOW),
      ALICE,
      'orders',
      args,
      selection,
    );

  it('maps every OrderStatus and Order field of the schema to the columns it is printed from', () => {
    expect(Object.keys(ORDER_FIELD_COLUMNS).sort()).toStrictEqual(
      [...new Set([...orderFields, ...statusFields])].sort(),
    );
  });

  it('answers all the fields as historicalOrders prints the same orders (read whole)', async () => {
    const page = await historicalOrders(db.pool, { user: ALICE, limit: 30, startTime: 0, now: NOW });
    const { edges } = await query(
      statusFields
        .filter((f) => f !== 'statusHistory')
        .map(statusLeaf)
        .join(' '),
      'first: 30',
    );
    expect(edges.map((e) => e.node)).toStrictEqual(
      page.rows.map((r) => ({
        order: {
          ...r.order,
          market: { coin: r.order.coin },
          oid: String(r.order.oid),
          children: r.order.children.map((c) => ({ oid: String(c.oid), coin: c.coin })),
        },
        status: r.status,
        statusTimestamp: r.statusTimestamp,
        cursor: null,
      })),
    );
  });

  it('answers each field alone (and through a fragment) as it does among all of them, pages included', async () => {
    const all = statusFields.map(statusLeaf).join(' ');
    for (const args of ['first: 30', 'first: 4', 'first: 3, after: "1020"']) {
      const whole = await query(all, args);
      expect(whole.edges.length).toBeGreaterThan(0);
      const alone = async (selection: string, pick: (node: Record<string, unknown>) => unknown) => {
        for (const s of [selection, `... on OrderStatus { ${selection} }`]) {
          const part = await query(s, args);
          expect(part.pageInfo).toStrictEqual(whole.pageInfo);
          expect(part.edges.map((e) => [e.cursor, pick(e.node)])).toStrictEqual(
            whole.edges.map((e) => [e.cursor, pick(e.node)]),
          );
        }
      };
      for (const name of statusFields.filter((f) => f !== 'order')) await alone(statusLeaf(name), (n) => n[name]);
      for (const name of orderFields) {
        await alone(`order { ${orderLeaf(name)} }`, (n) => (n.order as Record<string, unknown>)[name]);
      }
    }
  });
});
