// Fills in the exchange's shapes, loaded from hand-made node files: userFills (+ aggregateByTime),
// userFillsByTime, compact rows paged by cursor with and without orderType, TWAP slice fills.

import { type GraphQLObjectType, getNamedType, isLeafType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressValue } from '../../../platform/fields.ts';
import { accountsOver, NodeFiles, statusEvent, userConnection } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash, nodeFill, nodeOrder, T0 } from '../../../test/node-files.ts';
import type { FillEvent } from '../../../wire/node-lines.ts';
import { ZERO_HASH } from '../../../wire/node-lines.ts';
import { FILL_FIELD_COLUMNS } from '../schema/fill.ts';
import { accountsSchema } from '../schema/index.ts';
import type { CompactFillRow, WireFill } from './fill-fields.ts';
import { fillRows, MAX_COUNTED_FILLS } from './fill-pages.ts';
import { userFills, userFillsJson } from './fills.ts';
import { twapSliceFills } from './twaps.ts';
import { aggregateFillsByTime } from './wire-fill.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const CAROL = addr(0xc3);
const BUILDER = addr(0xb111d);
const CLOID = '0x000000000000000000000000000000c1';
const T1 = T0 + 1_123; // a crossing buy of Alice's sweeps three of Bob's asks
const T2 = T0 + 2_000; // TWAP slices
const T3 = T0 + 62_000;
const T4 = T0 + 122_000;
const T5 = T0 + 180_456; // Alice is liquidated on ETH

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  const sweep = [
    { px: '90000.0', sz: '0.1', start: '0.0', fee: '0.81', tid: 11 },
    { px: '90001.0', sz: '0.1', start: '0.1', fee: '0.81', tid: 12 },
    { px: '90003.0', sz: '0.2', start: '0.2', fee: '1.62', tid: 13 },
  ];
  files.add(
    'node_fills_by_block',
    T1,
    sweep.flatMap((s, i): FillEvent[] => [
      [
        ALICE,
        nodeFill({
          px: s.px,
          sz: s.sz,
          startPosition: s.start,
          time: T1,
          hash: hash(0x1111),
          oid: 100,
          tid: s.tid,
          fee: s.fee,
          cloid: CLOID,
        }),
      ],
      [
        BOB,
        nodeFill({
          px: s.px,
          sz: s.sz,
          side: 'A',
          startPosition: '0.0',
          dir: 'Open Short',
          time: T1,
          hash: hash(0x1111),
          oid: 201 + i,
          crossed: false,
          tid: s.tid,
          fee: '-0.01',
        }),
      ],
    ]),
  );
  const slice = (time: number, twapId: number, tid: number, start: string): FillEvent[] => [
    [
      ALICE,
      nodeFill({ px: '90100.0', sz: '0.05', startPosition: start, time, hash: ZERO_HASH, oid: 300 + tid, tid, twapId }),
    ],
    [
      BOB,
      nodeFill({
        px: '90100.0',
        sz: '0.05',
        side: 'A',
        startPosition: '-0.4',
        dir: 'Open Short',
        time,
        hash: ZERO_HASH,
        oid: 400 + tid,
        crossed: false,
        tid,
      }),
    ],
  ];
  files.add('node_fills_by_block', T2, slice(T2, 5555, 21, '0.4'));
  files.add('node_fills_by_block', T3, slice(T3, 5555, 22, '0.45'));
  files.add('node_fills_by_block', T4, slice(T4, 5556, 23, '0.5'));
  const liquidation = { liquidatedUser: ALICE, markPx: '2990.5', method: 'market' as const };
  files.add('node_fills_by_block', T5, [
    [
      ALICE,
      nodeFill({
        coin: 'ETH',
        px: '2990.0',
        sz: '0.5',
        side: 'A',
        startPosition: '0.5',
        dir: 'Close Long',
        closedPnl: '-5.0',
        time: T5,
        hash: hash(0x5555),
        oid: 500,
        tid: 31,
        fee: '0.672',
        builder: BUILDER,
        builderFee: '0.01',
        liquidation,
      }),
    ],
    [
      CAROL,
      nodeFill({
        coin: 'ETH',
        px: '2990.0',
        sz: '0.5',
        startPosition: '0.0',
        time: T5,
        hash: hash(0x5555),
        oid: 501,
        crossed: false,
        tid: 31,
        liquidation,
      }),
    ],
  ] satisfies FillEvent[]);
  // Alice's sweeping order has status rows (order type Limit); the others have none.
  const limit = nodeOrder({ oid: 100, cloid: CLOID, sz: '0.4', origSz: '0.4', limitPx: '90003.0', tif: 'Ioc' });
  files.add('node_order_statuses_by_block', T1, [
    statusEvent(ALICE, T1, 'open', limit),
    statusEvent(ALICE, T1, 'filled', { ...limit, sz: '0.0' }),
  ]);
  await files.load(db);
});
afterAll(async () => {
  await db.drop();
});

const keys = (fills: WireFill[]) => fills.map((f) => [f.time, f.tid]);

describe('userFills', () => {
  it('returns every fill of the user newest first, a sweep in execution order, in the wire shape', async () => {
    const fills = await userFills(db.pool, { user: addressValue(ALICE.toUpperCase().replace('0X', '0x'), 'user') });
    expect(keys(fills)).toEqual([
      [T5, 31],
      [T4, 23],
      [T3, 22],
      [T2, 21],
      [T1, 11],
      [T1, 12],
      [T1, 13],
    ]);
    // Liquidation and builder fee present, no cloid key.
    expect(fills[0]).toStrictEqual({
      coin: 'ETH',
      px: '2990.0',
      sz: '0.5',
      side: 'A',
      time: T5,
      startPosition: '0.5',
      dir: 'Close Long',
      closedPnl: '-5.0',
      hash: hash(0x5555),
      oid: 500,
      crossed: true,
      fee: '0.672',
      tid: 31,
      feeToken: 'USDC',
      builderFee: '0.01',
      twapId: null,
      liquidation: { liquidatedUser: ALICE, markPx: '2990.5', method: 'market' },
    });
    // cloid present, no builderFee nor liquidation key.
    expect(fills[4]).toStrictEqual({
      coin: 'BTC',
      px: '90000.0',
      sz: '0.1',
      side: 'B',
      time: T1,
      startPosition: '0.0',
      dir: 'Open Long',
      closedPnl: '0.0',
      hash: hash(0x1111),
      oid: 100,
      crossed: true,
      fee: '0.81',
      tid: 11,
      feeToken: 'USDC',
      twapId: null,
      cloid: CLOID,
    });
    expect(fills[1]?.twapId).toBe(5556);
  });

  it('merges the partial fills of a crossing order with aggregateByTime, exactly', async () => {
    const fills = await userFills(db.pool, { user: ALICE, aggregateByTime: true });
    expect(keys(fills)).toEqual([
      [T5, 31],
      [T4, 23],
      [T3, 22],
      [T2, 21],
      [T1, 11],
    ]);
    expect(fills[4]).toStrictEqual({
      coin: 'BTC',
      // (9000.0 + 9000.1 + 18000.6) / 0.4
      px: '90001.75',
      sz: '0.4',
      side: 'B',
      time: T1,
      startPosition: '0.0',
      dir: 'Open Long',
      closedPnl: '0.0',
      hash: hash(0x1111),
      oid: 100,
      crossed: true,
      fee: '3.24',
      tid: 11,
      feeToken: 'USDC',
      twapId: null,
      cloid: CLOID,
    });
  });

  it('never merges resting fills (several orders of Bob hit by one taker stay apart)', async () => {
    const fills = await userFills(db.pool, { user: BOB, aggregateByTime: true });
    expect(fills.filter((f) => f.time === T1).map((f) => f.oid)).toEqual([201, 202, 203]);
  });

  it('rounds a size-weighted price that does not terminate', () => {
    const base = { crossed: true, coin: 'BTC', oid: 1, time: 1, hash: '0x1', fee: '0.1', closedPnl: '0.0' };
    const f = (px: string, sz: string, tid: number) =>
      ({
        ...base,
        px,
        sz,
        tid,
        side: 'B',
        startPosition: '0.0',
        dir: 'Open Long',
        feeToken: 'USDC',
        twapId: null,
      }) as const;
    const [merged] = aggregateFillsByTime([f('100.0', '1.0', 1), f('101.0', '2.0', 2)]);
    // 302 / 3 = 100.666…, rounded ten digits past the inputs' scale.
    expect(merged).toMatchObject({ px: '100.66666666667', sz: '3.0', fee: '0.2' });
  });
});

describe('userFills as JSON bytes (compat)', () => {
  it('is byte for byte the JSON of the objects, plain and aggregated, by time or not', async () => {
    for (const user of [ALICE, BOB, addr(0xdead)]) {
      for (const aggregateByTime of [false, true]) {
        const q = { user, aggregateByTime };
        expect((await userFillsJson(db.pool, q)).toString()).toBe(JSON.stringify(await userFills(db.pool, q)));
        const t = { ...q, startTime: T1, endTime: T4, limit: 3 };
        expect((await userFillsJson(db.pool, t)).toString()).toBe(JSON.stringify(await userFills(db.pool, t)));
      }
    }
  });
});

describe('userFillsByTime', () => {
  it('keeps fills inside inclusive bounds, newest first', async () => {
    const fills = await userFills(db.pool, { user: ALICE, startTime: T2, endTime: T3 });
    expect(keys(fills)).toEqual([
      [T3, 22],
      [T2, 21],
    ]);
  });

  it('runs to the latest fill without endTime and honours the limit', async () => {
    expect(keys(await userFills(db.pool, { user: ALICE, startTime: T4 }))).toEqual([
      [T5, 31],
      [T4, 23],
    ]);
    expect(keys(await userFills(db.pool, { user: ALICE, startTime: T0, limit: 2 }))).toEqual([
      [T5, 31],
      [T4, 23],
    ]);
  });

  it('aggregates too', async () => {
    const fills = await userFills(db.pool, { user: ALICE, startTime: T1, endTime: T1, aggregateByTime: true });
    expect(fills.map((f) => [f.tid, f.sz, f.px])).toEqual([[11, '0.4', '90001.75']]);
  });
});

describe('fillRows (compact, keyset-paged)', () => {
  async function allPages(q: Omit<Parameters<typeof fillRows>[1], 'cursor'>) {
    const pages: CompactFillRow[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await fillRows(db.pool, { ...q, cursor });
      pages.push(page.rows);
      if (!page.hasMore) {
        expect(page.nextCursor).toBeNull();
        return pages;
      }
      const last = page.rows.at(-1) as CompactFillRow;
      expect(page.nextCursor).toMatch(new RegExp(`^${Date.parse(`${last.time}Z`)}:\\d+:\\d+:${last.tid}$`));
      cursor = page.nextCursor ?? undefined;
    }
  }

  it('pages a user by cursor; includeOrderType false drops the key and nothing else', async () => {
    const withType = await allPages({ user: ALICE, limit: 3, order: 'desc', includeOrderType: true });
    // Newest time first; Alice's sweep at T1 in execution order (11, 12, 13).
    expect(withType.map((p) => p.map((r) => r.tid))).toEqual([[31, 23, 22], [21, 11, 12], [13]]);
    const rows = withType.flat();
    expect(rows.find((r) => r.tid === 11)).toStrictEqual({
      user: ALICE,
      coin: 'BTC',
      px: '90000.0',
      sz: '0.1',
      side: 'B',
      time: '2026-11-22T07:00:01.123',
      dir: 'Open Long',
      closedPnl: '0.0',
      hash: hash(0x1111),
      oid: 100,
      tid: 11,
      fee: '0.81',
      feeToken: 'USDC',
      crossed: 1,
      cloid: CLOID,
      twapId: null,
      builder: null,
      builderFee: null,
      orderType: 'Limit',
    });
    expect(rows.find((r) => r.tid === 31)).toMatchObject({
      time: '2026-11-22T07:03:00.456',
      builder: BUILDER,
      builderFee: '0.01',
      cloid: null,
      orderType: null,
    });
    expect(rows.find((r) => r.tid === 22)).toMatchObject({ twapId: 5555, orderType: null });

    const without = await allPages({ user: ALICE, limit: 3, order: 'desc', includeOrderType: false });
    for (const r of without.flat()) expect(Object.hasOwn(r, 'orderType')).toBe(false);
    expect(without).toEqual(withType.map((p) => p.map(({ orderType: _o, ...r }) => r)));
  });

  it('reports the total count for a user and honours the filters', async () => {
    const page = await fillRows(db.pool, {
      user: ALICE,
      coin: 'BTC',
      side: 'B',
      startTime: T1,
      endTime: T3,
      limit: 2,
      order: 'asc',
      includeOrderType: false,
    });
    expect(page.rows.map((r) => r.tid)).toEqual([11, 12]);
    expect(page.totalCount).toBe(5);
    expect(page.hasMore).toBe(true);
    // Alice's second sweep fill: the third event of block 1.
    expect(page.nextCursor).toBe(`${T1}:1:2:12`);
  });

  it('counts a total up to MAX_COUNTED_FILLS, and past it says none is available', async () => {
    const heavy = addr(0xc0);
    const add = (n: number) =>
      db.pool.query(
        `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
           hash, oid, crossed, fee, tid, fee_token)
         SELECT g, $1, 'ETH', 3000, 1, 'B', $2::bigint + g, 0, 'Open Long', 0, $3, g, true, 0, g, 'USDC'
         FROM generate_series(1, $4::int) g`,
        [heavy, T0, ZERO_HASH, n],
      );
    const query = { user: heavy, limit: 1, order: 'desc' as const, includeOrderType: false };
    await add(MAX_COUNTED_FILLS);
    expect((await fillRows(db.pool, query)).totalCount).toBe(MAX_COUNTED_FILLS);
    await add(1);
    const past = await fillRows(db.pool, query);
    expect(past.totalCount).toBeUndefined();
    expect(past.hasMore).toBe(true);
    await db.pool.query('DELETE FROM accounts.fills WHERE address = $1', [heavy]);
  });

  it("pages every user's fills in either direction, one time's fills in execution order both ways", async () => {
    const all = await fillRows(db.pool, { coin: 'BTC', limit: 1000, order: 'asc', includeOrderType: false });
    expect(all.totalCount).toBeUndefined();
    // Block 1 in line order (Alice's sweep, each of her fills followed by Bob's), then the TWAP slices.
    const sweep = ['11/a', '11/b', '12/a', '12/b', '13/a', '13/b'];
    const slices = ['21/a', '21/b', '22/a', '22/b', '23/a', '23/b'];
    const key = (r: CompactFillRow) => `${r.tid}/${r.user === ALICE ? 'a' : 'b'}`;
    expect(all.rows.map(key)).toEqual([...sweep, ...slices]);
    for (const order of ['asc', 'desc'] as const) {
      const expected =
        order === 'asc' ? [...sweep, ...slices] : ['23/a', '23/b', '22/a', '22/b', '21/a', '21/b', ...sweep];
      for (const limit of [1, 2, 3, 5]) {
        const pages = await allPages({ coin: 'BTC', limit, order, includeOrderType: false });
        expect(pages.flat().map(key)).toEqual(expected);
        for (const p of pages) expect(p.length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it("never splits fills that share a key (a trade's two fills stored before event_index) across pages", async () => {
    // Stored before migration 0020: both fills of each trade at event index 0 of their block.
    await db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
         hash, oid, crossed, fee, tid, fee_token)
       SELECT 900 + t, a, 'OLD', 1, 1, s, $1::bigint + t, 0, 'Open Long', 0, '0x', t, true, 0, t, 'USDC'
       FROM generate_series(1, 3) t, (VALUES ($2, 'B'), ($3, 'A')) u(a, s)`,
      [T0, ALICE, BOB],
    );
    try {
      for (const order of ['asc', 'desc'] as const) {
        const trades = order === 'asc' ? [1, 2, 3] : [3, 2, 1];
        for (const limit of [1, 2, 3]) {
          const pages = await allPages({ coin: 'OLD', limit, order, includeOrderType: false });
          expect(pages.flat().map((r) => `${r.tid}/${r.user === ALICE ? 'a' : 'b'}`)).toEqual(
            trades.flatMap((t) => [`${t}/a`, `${t}/b`]),
          );
          for (const p of pages) {
            expect(p.length).toBeLessThanOrEqual(Math.max(limit, 2));
            expect(new Set(p.map((r) => r.tid)).size * 2).toBe(p.length);
          }
        }
      }
    } finally {
      await db.pool.query(`DELETE FROM accounts.fills WHERE coin = 'OLD'`);
    }
  });

  it("cuts a user's newest fills as a page is cut, in the objects and in the JSON written from the rows", async () => {
    // One user on both sides of three trades, stored before migration 0020: each trade's two fills share a key.
    const self = addr(0x5e1f);
    await db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
         hash, oid, crossed, fee, tid, fee_token)
       SELECT 900 + t, $2, 'OLD', 1, 1, s, $1::bigint + t, 0, 'Open Long', 0, '0x', t, true, 0, t, 'USDC'
       FROM generate_series(1, 3) t, (VALUES ('B'), ('A')) u(s)`,
      [T0, self],
    );
    try {
      // Newest first: 3B 3A 2B 2A 1B 1A (sides in either order). A page never ends inside a trade; one trade alone
      // is taken whole.
      const expected: Record<number, number[]> = {
        1: [3, 3],
        2: [3, 3],
        3: [3, 3],
        4: [3, 3, 2, 2],
        6: [3, 3, 2, 2, 1, 1],
      };
      for (const [limit, tids] of Object.entries(expected)) {
        const q = { user: self, limit: Number(limit) };
        const objects = await userFills(db.pool, q);
        const json = JSON.parse((await userFillsJson(db.pool, q)).toString()) as WireFill[];
        expect(objects.map((f) => f.tid)).toEqual(tids);
        const sorted = (fills: WireFill[]) => fills.map((f) => `${f.tid}${f.side}`).sort();
        expect(sorted(json)).toEqual(sorted(objects));
      }
    } finally {
      await db.pool.query(`DELETE FROM accounts.fills WHERE coin = 'OLD'`);
    }
  });

  it('refuses a malformed cursor and a limit over 1000', async () => {
    const q = { order: 'asc', includeOrderType: false } as const;
    await expect(fillRows(db.pool, { ...q, limit: 10, cursor: 'abc' })).rejects.toThrow(/cursor: must be/);
    await expect(fillRows(db.pool, { ...q, limit: 1001 })).rejects.toThrow(/limit/);
  });
});

describe('twapSliceFills', () => {
  it('lists the slices of one TWAP, newest first, without cloid', async () => {
    const slices = await twapSliceFills(db.pool, { user: ALICE, twapId: 5555 });
    expect(slices.map((s) => [s.twapId, s.fill.tid])).toEqual([
      [5555, 22],
      [5555, 21],
    ]);
    expect(slices[0]).toStrictEqual({
      fill: {
        coin: 'BTC',
        px: '90100.0',
        sz: '0.05',
        side: 'B',
        time: T3,
        startPosition: '0.45',
        dir: 'Open Long',
        closedPnl: '0.0',
        hash: ZERO_HASH,
        oid: 322,
        crossed: true,
        fee: '0.0',
        tid: 22,
        feeToken: 'USDC',
        twapId: 5555,
      },
      twapId: 5555,
    });
  });

  it('applies inclusive time bounds across TWAPs and alone', async () => {
    const tids = async (q: Parameters<typeof twapSliceFills>[1]) =>
      (await twapSliceFills(db.pool, q)).map((s) => s.fill.tid);
    expect(await tids({ user: ALICE })).toEqual([23, 22, 21]);
    expect(await tids({ user: ALICE, startTime: T3 })).toEqual([23, 22]);
    expect(await tids({ user: ALICE, startTime: T2, endTime: T3 })).toEqual([22, 21]);
    expect(await tids({ user: ALICE, twapId: 5555, endTime: T2 })).toEqual([21]);
    expect(await tids({ user: BOB })).toEqual([]);
  });
});

describe('User.fills: only the selected fields are read', () => {
  const fillType = accountsSchema.getType('Fill') as GraphQLObjectType;
  const fields = Object.keys(fillType.getFields());
  const leaf = (name: string) => {
    const type = getNamedType(fillType.getFields()[name]?.type);
    if (isLeafType(type)) return name;
    // An object's scalar fields without arguments (the User a fill links to: its address).
    const inner = Object.values((type as GraphQLObjectType).getFields()).filter(
      (f) => isLeafType(getNamedType(f.type)) && f.args.length === 0,
    );
    return `${name} { ${inner.map((f) => f.name).join(' ')} }`;
  };
  const query = (selection: string, args = 'first: 4') =>
    userConnection(accountsOver(db.pool), ALICE, 'fills', args, selection);

  it('maps every Fill field of the schema to the columns it is printed from', () => {
    expect(Object.keys(FILL_FIELD_COLUMNS).sort()).toStrictEqual([...fields].sort());
  });

  it('answers all the fields as userFills prints the same fills (read whole, by its own statement)', async () => {
    const wire = new Map((await userFills(db.pool, { user: ALICE })).map((f) => [String(f.tid), f]));
    const { edges } = await query(
      fields
        .filter((f) => f !== 'orderType')
        .map(leaf)
        .join(' '),
      'first: 20',
    );
    expect(edges).toHaveLength(wire.size);
    for (const { node } of edges) {
      const f = wire.get(node.tid as string) as WireFill;
      expect(node).toStrictEqual({
        ...f,
        market: { coin: f.coin },
        oid: String(f.oid),
        tid: String(f.tid),
        builderFee: f.builderFee ?? null,
        twapId: f.twapId === null ? null : String(f.twapId),
        cloid: f.cloid ?? null,
        liquidation: f.liquidation ?? null,
        user: { address: ALICE },
        // Of Alice's fills, only her liquidation (tid 31) was routed through a builder.
        builder: f.tid === 31 ? { address: BUILDER } : null,
        cursor: null,
      });
    }
  });

  it('answers each field alone (and through a fragment) as it does among all of them, pages included', async () => {
    const second = (await query('tid', 'first: 2')).edges[1]?.cursor;
    for (const args of ['first: 4', `first: 3, after: "${second}"`, 'first: 9, aggregateByTime: true']) {
      const all = await query(fields.map(leaf).join(' '), args);
      expect(all.edges.length).toBeGreaterThan(0);
      for (const name of fields) {
        const alone = await query(leaf(name), args);
        expect(alone.edges.map((e) => [e.cursor, e.node[name]])).toStrictEqual(
          all.edges.map((e) => [e.cursor, e.node[name]]),
        );
        expect((await query(`... on Fill { ${leaf(name)} }`, args)).edges).toStrictEqual(alone.edges);
      }
      const { edges: _, ...page } = all;
      const { edges: __, ...pageOfOne } = await query('oid', args);
      expect(pageOfOne).toStrictEqual(page);
    }
  });
});
