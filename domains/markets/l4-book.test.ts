// The L4 book on every interface (issue 41): /ws l4Book as order_book_server sends it (a Snapshot frame, then an
// Updates frame per block with the node's own records), GET /market/l4book/{coin}, GraphQL Market.l4Book with each
// order's User and the l4Book subscription, and the MCP tool. A test order is put on BTC's book through the bus as
// ingest publishes it (its open status and its raw diffs), so every expected frame and record is written by hand.
import { graphql, parse, subscribe } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderStatusRow } from '../../db/rows/accounts.ts';
import type { BookDiffRow } from '../../db/rows/markets.ts';
import { toolCatalog } from '../../mcp/tools.ts';
import { startCompatApp, type TestCompatApp } from '../../test/compat-app.ts';
import { openSocket } from '../../test/ws-client.ts';
import { marketsSchema } from './schema/index.ts';

const ALICE = '0xa11ce00000000000000000000000000000000041';
const OID = 4_100_000_001;
const CLOID = '0x00000000000000000000000000000041';
/** Order_book_server's L4Order keys, in its order. */
const L4_ORDER_KEYS = [
  'user',
  'coin',
  'side',
  'limitPx',
  'sz',
  'oid',
  'timestamp',
  'triggerCondition',
  'isTrigger',
  'triggerPx',
  'isPositionTpsl',
  'reduceOnly',
  'orderType',
  'tif',
  'cloid',
];

let compat: TestCompatApp;
/** The block the test's first record goes in: after every block the books hold. */
let h: number;
const T = Date.UTC(2026, 2, 3, 15, 0, 0);

function status(block: number, time: number, status: string, sz: string): OrderStatusRow {
  return {
    block_number: block,
    time,
    address: ALICE,
    status,
    hash: null,
    builder: null,
    builder_fee: null,
    oid: OID,
    cloid: CLOID,
    coin: 'BTC',
    side: 'B',
    limit_px: '1000.5',
    sz,
    orig_sz: '2',
    order_time: T,
    trigger_condition: 'N/A',
    is_trigger: false,
    trigger_px: '0.0',
    is_position_tpsl: false,
    reduce_only: false,
    order_type: 'Limit',
    tif: 'Alo',
    children: [],
  };
}

function diff(block: number, time: number, kind: BookDiffRow['kind'], sz: string | null, origSz: string | null) {
  const row: BookDiffRow = {
    block_number: block,
    time,
    address: ALICE,
    oid: OID,
    coin: 'BTC',
    side: 'B',
    px: '1000.5',
    kind,
    sz,
    orig_sz: origSz,
  };
  return row;
}

/** The order as the book holds it at size `sz`, in order_book_server's L4Order shape. */
const bookOrder = (sz: string) => ({
  user: ALICE,
  coin: 'BTC',
  side: 'B',
  limitPx: '1000.5',
  sz,
  oid: OID,
  timestamp: T,
  triggerCondition: 'N/A',
  isTrigger: false,
  triggerPx: '0.0',
  isPositionTpsl: false,
  reduceOnly: false,
  orderType: 'Limit',
  tif: 'Alo',
  cloid: CLOID,
});

beforeAll(async () => {
  compat = await startCompatApp({ listen: true });
  h = compat.markets.books.height + 1;
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

describe('l4Book', () => {
  it('/ws: the Snapshot frame, then each block’s Updates with the node’s records; REST, GraphQL and MCP agree', async () => {
    const ws = await openSocket(compat.urls.ws);
    ws.send({ method: 'subscribe', subscription: { type: 'l4Book', coin: 'BTC' } });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'l4Book', coin: 'BTC' } },
    });
    const first = (await ws.next()) as { channel: string; data: { Snapshot: Record<string, unknown> } };
    expect(first.channel).toBe('l4Book');
    const snap = first.data.Snapshot as { coin: string; height: number; levels: Record<string, unknown>[][] };
    expect(Object.keys(first.data)).toEqual(['Snapshot']);
    expect(Object.keys(snap)).toEqual(['coin', 'time', 'height', 'levels']);
    expect(snap.coin).toBe('BTC');
    expect(snap.height).toBe(h - 1);
    const [bids, asks] = snap.levels as { limitPx: string; user: string }[][];
    expect(bids!.length).toBeGreaterThan(0);
    expect(asks!.length).toBeGreaterThan(0);
    for (const o of [...bids!, ...asks!]) expect(Object.keys(o)).toEqual(L4_ORDER_KEYS);
    // Best first: bids down, asks up, and the book does not cross.
    const px = (o: { limitPx: string }) => Number(o.limitPx);
    for (let i = 1; i < bids!.length; i++) expect(px(bids![i]!)).toBeLessThanOrEqual(px(bids![i - 1]!));
    for (let i = 1; i < asks!.length; i++) expect(px(asks![i]!)).toBeGreaterThanOrEqual(px(asks![i - 1]!));
    expect(px(bids![0]!)).toBeLessThan(px(asks![0]!));

    // The GraphQL subscription, subscribed before the blocks come (a follower subscribes, then reads the book).
    const source = (await subscribe({
      schema: marketsSchema,
      document: parse(
        'subscription { l4Book(coin: "BTC") { coin height orderStatuses { status user { address } order { oid cloid tif user { address } } } bookDiffs { kind sz origSz oid side user { address } } } }',
      ),
      contextValue: { markets: compat.markets },
    })) as AsyncIterableIterator<{ data?: { l4Book: unknown } }>;

    // Block h: the order's open status and its `new` diff; h+1: a partial fill's update; h+2: its cancel.
    compat.bus.publish('orderStatuses', [status(h, T, 'open', '2')]);
    compat.bus.publish('bookDiffs', [diff(h, T, 'new', '2', null)]);
    expect(await ws.next()).toEqual({
      channel: 'l4Book',
      data: {
        Updates: {
          time: T,
          height: h,
          order_statuses: [
            {
              time: '2026-03-03T15:00:00.000',
              user: ALICE,
              status: 'open',
              order: { ...bookOrder('2'), user: null },
            },
          ],
          book_diffs: [
            { user: ALICE, oid: OID, px: '1000.5', coin: 'BTC', side: 'B', raw_book_diff: { new: { sz: '2' } } },
          ],
        },
      },
    });

    // The order is on every interface, at the back of the bids (the lowest price), with what its status said.
    const rest = await compat.get('/market/l4book/BTC');
    expect(rest.status).toBe(200);
    expect(rest.body.data.height).toBe(h);
    expect(rest.body.data.levels[0].at(-1)).toEqual(bookOrder('2'));
    const tool = toolCatalog().get('markets_l4_book')!;
    const viaMcp = (
      await tool.tool.call({ coin: 'BTC' }, { services: compat.services, signal: new AbortController().signal })
    ).book as { levels: unknown[][] };
    expect(viaMcp.levels[0]!.at(-1)).toEqual(bookOrder('2'));
    const gql = await graphql({
      schema: marketsSchema,
      source:
        '{ market(coin: "BTC") { l4Book { coin height bids { oid cloid side limitPx sz tif orderType reduceOnly timestamp user { address } } } } }',
      contextValue: { markets: compat.markets },
    });
    expect(gql.errors).toBeUndefined();
    const book = (gql.data as { market: { l4Book: { height: number; bids: unknown[] } } }).market.l4Book;
    expect(book.height).toBe(h);
    expect(book.bids.at(-1)).toEqual({
      oid: String(OID),
      cloid: CLOID,
      side: 'B',
      limitPx: '1000.5',
      sz: '2',
      tif: 'Alo',
      orderType: 'Limit',
      reduceOnly: false,
      timestamp: T,
      user: { address: ALICE },
    });

    compat.bus.publish('bookDiffs', [diff(h + 1, T + 100, 'update', '0.5', '2')]);
    compat.bus.publish('orderStatuses', [status(h + 1, T + 100, 'marginCanceled', '0.5')]);
    compat.bus.publish('bookDiffs', [diff(h + 2, T + 200, 'remove', null, null)]);
    // Block h+1 went out once both streams reached it; h+2 (no status) after its hold.
    const update = (await ws.next()) as { data: { Updates: { height: number; book_diffs: unknown[] } } };
    expect(update.data.Updates.height).toBe(h + 1);
    expect(update.data.Updates.book_diffs).toEqual([
      {
        user: ALICE,
        oid: OID,
        px: '1000.5',
        coin: 'BTC',
        side: 'B',
        raw_book_diff: { update: { origSz: '2', newSz: '0.5' } },
      },
    ]);
    expect(((await ws.next()) as typeof update).data.Updates).toEqual({
      time: T + 200,
      height: h + 2,
      order_statuses: [],
      book_diffs: [{ user: ALICE, oid: OID, px: '1000.5', coin: 'BTC', side: 'B', raw_book_diff: 'remove' }],
    });
    expect(
      (await compat.get('/market/l4book/BTC')).body.data.levels[0].some((o: { oid: number }) => o.oid === OID),
    ).toBe(false);

    const events = [];
    for (let i = 0; i < 3; i++) events.push((await source.next()).value?.data?.l4Book);
    await source.return?.();
    expect(events).toEqual([
      {
        coin: 'BTC',
        height: h,
        orderStatuses: [
          {
            status: 'open',
            user: { address: ALICE },
            order: { oid: String(OID), cloid: CLOID, tif: 'Alo', user: null },
          },
        ],
        bookDiffs: [{ kind: 'new', sz: '2', origSz: null, oid: String(OID), side: 'B', user: { address: ALICE } }],
      },
      {
        coin: 'BTC',
        height: h + 1,
        orderStatuses: [
          {
            status: 'marginCanceled',
            user: { address: ALICE },
            order: { oid: String(OID), cloid: CLOID, tif: 'Alo', user: null },
          },
        ],
        bookDiffs: [{ kind: 'update', sz: '0.5', origSz: '2', oid: String(OID), side: 'B', user: { address: ALICE } }],
      },
      {
        coin: 'BTC',
        height: h + 2,
        orderStatuses: [],
        bookDiffs: [{ kind: 'remove', sz: null, origSz: null, oid: String(OID), side: 'B', user: { address: ALICE } }],
      },
    ]);
    ws.close();
  });

  it('refuses a subscription or a route without a coin as every capability does', async () => {
    const ws = await openSocket(compat.urls.ws);
    ws.send({ method: 'subscribe', subscription: { type: 'l4Book' } });
    const refusal = (await ws.next()) as { channel: string; data: string };
    expect(refusal.channel).toBe('error');
    expect(refusal.data).toMatch(/^Invalid subscription .*coin/);
    ws.close();
    // The tool's arguments are read by its definition before the call, as the server reads them.
    expect(toolCatalog().get('markets_l4_book')?.read({}).fault?.message).toMatch(/coin/);
    const unknown = await compat.get('/market/l4book/NOPE');
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toBeNull();
  });
});

describe('l2Book and l2BookDiff every block', () => {
  it('l2BookDiff: the snapshot, then the changed levels with prevHeight; l2Book: the whole book in the same block', async () => {
    // BTC with five levels on each side whatever the simulated book holds (its depth varies with its clock: CI once
    // found three asks): five bids below and five asks above any of its prices.
    const level = (side: 'A' | 'B', px: string, i: number): BookDiffRow => ({
      block_number: compat.markets.books.height + 1,
      time: T + 500,
      address: ALICE,
      oid: OID + 50 + i,
      coin: 'BTC',
      side,
      px,
      kind: 'new',
      sz: '1',
      orig_sz: null,
    });
    await compat.bus.publish('bookDiffs', [
      ...Array.from({ length: 5 }, (_, i) => level('B', `${900 + i}.0`, i)),
      ...Array.from({ length: 5 }, (_, i) => level('A', `${9_000_000 + i}.0`, 5 + i)),
    ]);
    const ws = await openSocket(compat.urls.ws);
    ws.send({ method: 'subscribe', subscription: { type: 'l2BookDiff', coin: 'BTC', nLevels: 5 } });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: {
        method: 'subscribe',
        subscription: { type: 'l2BookDiff', coin: 'BTC', nSigFigs: null, mantissa: null, nLevels: 5 },
      },
    });
    const snap = (await ws.next()) as {
      channel: string;
      data: { height: number; prevHeight: null; snapshot: true; levels: { px: string; sz: string; n: number }[][] };
    };
    expect(snap.channel).toBe('l2BookDiff');
    expect(Object.keys(snap.data)).toEqual(['coin', 'time', 'height', 'prevHeight', 'snapshot', 'levels']);
    expect(snap.data.prevHeight).toBeNull();
    const [bids, asks] = snap.data.levels;
    expect(bids).toHaveLength(5);
    expect(asks).toHaveLength(5);
    ws.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'BTC', nLevels: 5 } });
    await ws.next(); // its ack
    expect(((await ws.next()) as { data: { levels: unknown[][] } }).data.levels).toEqual([bids, asks]);

    // A bid between the best bid and the best ask: a new best level, and the fifth pushed out of the five.
    const best = Number(bids![0]!.px);
    const px = (best + (Number(asks![0]!.px) - best) / 2).toFixed(1); // as the book prints a BTC price
    const height = compat.markets.books.height + 1;
    await compat.bus.publish('bookDiffs', [
      {
        block_number: height,
        time: T + 1000,
        address: ALICE,
        oid: OID + 1,
        coin: 'BTC',
        side: 'B',
        px,
        kind: 'new',
        sz: '3',
        orig_sz: null,
      },
    ]);
    const frames = [await ws.next(), await ws.next()] as { channel: string; data: Record<string, unknown> }[];
    const diff = frames.find((f) => f.channel === 'l2BookDiff')!;
    expect(diff.data).toEqual({
      coin: 'BTC',
      time: T + 1000,
      height,
      prevHeight: snap.data.height,
      bids: [
        { px, sz: '3.0', n: 1 },
        { px: bids![4]!.px, sz: '0', n: 0 },
      ],
      asks: [],
    });
    const book = frames.find((f) => f.channel === 'l2Book')!;
    expect(book.data.levels).toEqual([[{ px, sz: '3.0', n: 1 }, ...bids!.slice(0, 4)], asks]);
    ws.close();
  });

  it('nLevels: 1 to 100, anything else refused naming it', async () => {
    const ws = await openSocket(compat.urls.ws);
    for (const nLevels of [0, 101, 2.5]) {
      ws.send({ method: 'subscribe', subscription: { type: 'l2BookDiff', coin: 'BTC', nLevels } });
      const refusal = (await ws.next()) as { channel: string; data: string };
      expect(refusal.channel).toBe('error');
      expect(refusal.data).toMatch(/nLevels/);
    }
    // Bids at 25 prices below any other (the simulated book's depth varies with its clock): more than 20 levels.
    await compat.bus.publish(
      'bookDiffs',
      Array.from({ length: 25 }, (_, i) => ({
        block_number: compat.markets.books.height + 1,
        time: T + 2000,
        address: ALICE,
        oid: OID + 100 + i,
        coin: 'BTC',
        side: 'B' as const,
        px: `${1000 + i}.0`,
        kind: 'new' as const,
        sz: '1',
        orig_sz: null,
      })),
    );
    ws.send({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'BTC', nLevels: 100 } });
    expect(((await ws.next()) as { channel: string }).channel).toBe('subscriptionResponse');
    const full = (await ws.next()) as { data: { levels: unknown[][] } };
    expect(full.data.levels[0]!.length).toBeGreaterThanOrEqual(25);
    ws.send({ method: 'subscribe', subscription: { type: 'l2BookDiff', coin: 'BTC', nLevels: 1 } });
    await ws.next();
    const one = (await ws.next()) as { data: { levels: unknown[][] } };
    expect(one.data.levels.map((side) => side.length)).toEqual([1, 1]);
    ws.close();
  });
});
