// Many coins on one /ws subscription (issue 41): `coins: [...]` (1 to 100) or `dex` in place of `coin` on l2Book,
// l2BookDiff, l4Book, trades and bbo. Each frame (in l4Book's Updates, each record) names its coin; the subscription
// counts one per coin in the connection's cap, the key's rate limit and its credits. Book changes, orders and trades
// go through the bus as ingest publishes them, so every expected frame is written by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../access/keys.ts';
import type { OrderStatusRow } from '../../db/rows/accounts.ts';
import type { BookDiffRow, TradeRow } from '../../db/rows/markets.ts';
import { startCompatApp, type TestCompatApp } from '../../test/compat-app.ts';
import { openSocket } from '../../test/ws-client.ts';

const ALICE = '0xa11ce00000000000000000000000000000000041';
const T = Date.UTC(2026, 2, 3, 15, 0, 0);

type Frame = { channel: string; data: unknown; code?: string };
type Level = { px: string; sz: string; n: number };

let compat: TestCompatApp;
/** A key without limits: once a key exists, every connection needs one. */
let key: string;

beforeAll(async () => {
  compat = await startCompatApp({ listen: true });
  key = (await createKey(compat.db.pool, { scope: 'data', rateLimitPerMin: 1_000_000 })).key;
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

const connect = async (withKey = key) => {
  const ws = await openSocket(`${compat.urls.ws}?api_key=${withKey}`);
  return { ...ws, next: () => ws.next() as Promise<Frame> };
};
type Socket = Awaited<ReturnType<typeof connect>>;

/** Waits for the pong of a ping sent now: every frame before it is returned (none: nothing was pending). */
async function drain(ws: Socket): Promise<Frame[]> {
  ws.send({ method: 'ping' });
  const frames: Frame[] = [];
  for (let f = await ws.next(); f.channel !== 'pong'; f = await ws.next()) frames.push(f);
  return frames;
}

/** The next block after every block the books hold. */
const nextHeight = () => compat.markets.books.height + 1;

function newOrder(block: number, coin: string, oid: number, px: string, sz: string): BookDiffRow {
  return {
    block_number: block,
    time: T + block,
    address: ALICE,
    oid,
    coin,
    side: 'B',
    px,
    kind: 'new',
    sz,
    orig_sz: null,
  };
}

function openStatus(block: number, coin: string, oid: number, px: string, sz: string): OrderStatusRow {
  return {
    block_number: block,
    time: T + block,
    address: ALICE,
    status: 'open',
    hash: null,
    builder: null,
    builder_fee: null,
    oid,
    cloid: null,
    coin,
    side: 'B',
    limit_px: px,
    sz,
    orig_sz: sz,
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

function trade(coin: string, tid: number): TradeRow {
  return {
    block_number: nextHeight(),
    seq: tid,
    time: T + tid,
    coin,
    side: 'B',
    px: '10',
    sz: '1',
    hash: `0x${String(tid).padStart(64, '0')}`,
    tid,
    buyer: ALICE,
    seller: ALICE,
    fees: '0',
  };
}

const decimals = (px: string) => (px.includes('.') ? px.length - px.indexOf('.') - 1 : 0);

/**
 * A price strictly inside a book's spread, a new best bid: half a tick above the best bid, the tick being the finer
 * of the best bid's and ask's last digits. Its last digit is a 5, so it is written as the book writes it.
 */
const insideSpread = (levels: Level[][]) => {
  const bid = levels[0]![0]!.px;
  const scale = Math.max(decimals(bid), decimals(levels[1]![0]!.px)) + 1;
  const units = BigInt(bid.replace('.', '') + '0'.repeat(scale - decimals(bid))) + 5n;
  const digits = units.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
};

describe('coins on one subscription', () => {
  it('l2BookDiff: a snapshot per coin, then each coin’s diffs named; unsubscribed with the same object', async () => {
    const ws = await connect();
    // Two levels a side: the simulated node's books always hold that many (five not always, after a sweep).
    const sub = { type: 'l2BookDiff', coins: ['BTC', 'ETH'], nLevels: 2 };
    ws.send({ method: 'subscribe', subscription: sub });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { ...sub, nSigFigs: null, mantissa: null } },
    });
    const snaps = [await ws.next(), await ws.next()] as {
      channel: string;
      data: { coin: string; levels: Level[][] };
    }[];
    expect(snaps.map((s) => [s.channel, s.data.coin])).toEqual([
      ['l2BookDiff', 'BTC'],
      ['l2BookDiff', 'ETH'],
    ]);
    const eth = snaps[1]!.data.levels;
    const px = insideSpread(eth);
    const height = nextHeight();
    await compat.bus.publish('bookDiffs', [newOrder(height, 'ETH', 4_100_000_101, px, '3')]);
    // A new best bid of ETH, the second pushed out: ETH's frame only.
    expect(await ws.next()).toEqual({
      channel: 'l2BookDiff',
      data: {
        coin: 'ETH',
        time: T + height,
        height,
        prevHeight: (snaps[1]!.data as unknown as { height: number }).height,
        bids: [
          { px, sz: '3.0', n: 1 },
          { px: eth[0]![1]!.px, sz: '0', n: 0 },
        ],
        asks: [],
      },
    });
    ws.send({ method: 'unsubscribe', subscription: sub });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'unsubscribe', subscription: { ...sub, nSigFigs: null, mantissa: null } },
    });
    const btcPx = insideSpread(snaps[0]!.data.levels);
    await compat.bus.publish('bookDiffs', [newOrder(nextHeight(), 'BTC', 4_100_000_102, btcPx, '1')]);
    expect(await drain(ws)).toEqual([]);
    ws.close();
  });

  it('l2Book and bbo: every coin’s frame names it', async () => {
    const ws = await connect();
    ws.send({ method: 'subscribe', subscription: { type: 'l2Book', coins: ['ETH', 'BTC'], nLevels: 2 } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    const books = [await ws.next(), await ws.next()] as { channel: string; data: { coin: string; levels: [] } }[];
    expect(books.map((b) => [b.channel, b.data.coin, b.data.levels.map((side: unknown[]) => side.length)])).toEqual([
      ['l2Book', 'ETH', [2, 2]],
      ['l2Book', 'BTC', [2, 2]],
    ]);
    ws.send({ method: 'subscribe', subscription: { type: 'bbo', coins: ['BTC', 'ETH', 'BTC'] } });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'bbo', coins: ['BTC', 'ETH', 'BTC'] } },
    });
    // A coin named twice is followed once.
    const bbos = (await drain(ws)) as { channel: string; data: { coin: string } }[];
    expect(bbos.map((b) => [b.channel, b.data.coin])).toEqual([
      ['bbo', 'BTC'],
      ['bbo', 'ETH'],
    ]);
    ws.close();
  });

  it('l4Book: a Snapshot per coin, then one Updates per block with every coin’s records, each naming its coin', async () => {
    const ws = await connect();
    ws.send({ method: 'subscribe', subscription: { type: 'l4Book', coins: ['BTC', 'ETH'] } });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'l4Book', coins: ['BTC', 'ETH'] } },
    });
    const snaps = [await ws.next(), await ws.next()] as { data: { Snapshot: { coin: string } } }[];
    expect(snaps.map((s) => s.data.Snapshot.coin)).toEqual(['BTC', 'ETH']);
    const h = nextHeight();
    await compat.bus.publish('orderStatuses', [
      openStatus(h, 'ETH', 4_100_000_201, '1000.5', '2'),
      openStatus(h, 'BTC', 4_100_000_202, '1000.5', '1'),
    ]);
    await compat.bus.publish('bookDiffs', [
      newOrder(h, 'ETH', 4_100_000_201, '1000.5', '2'),
      newOrder(h, 'BTC', 4_100_000_202, '1000.5', '1'),
    ]);
    const updates = (await ws.next()) as {
      channel: string;
      data: {
        Updates: {
          time: number;
          height: number;
          order_statuses: { order: { coin: string; oid: number } }[];
          book_diffs: { coin: string; oid: number; raw_book_diff: unknown }[];
        };
      };
    };
    expect(updates.channel).toBe('l4Book');
    const u = updates.data.Updates;
    expect([u.height, u.time]).toEqual([h, T + h]);
    // The subscription's coins in the order it named them.
    expect(u.order_statuses.map((s) => [s.order.coin, s.order.oid])).toEqual([
      ['BTC', 4_100_000_202],
      ['ETH', 4_100_000_201],
    ]);
    expect(u.book_diffs.map((d) => [d.coin, d.oid, d.raw_book_diff])).toEqual([
      ['BTC', 4_100_000_202, { new: { sz: '1' } }],
      ['ETH', 4_100_000_201, { new: { sz: '2' } }],
    ]);
    ws.close();
  });

  it('trades: one frame per block with the trades of its coins, or of a dex’s markets', async () => {
    const ws = await connect();
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coins: ['BTC', 'ETH'] } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: { type: 'trades', dex: '' } });
    expect(await ws.next()).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'trades', dex: '' } },
    });
    await compat.bus.publish('trades', [
      trade('BTC', 9_000_001),
      trade('SOL', 9_000_002),
      trade('xyz:XYZ100', 9_000_003),
      trade('ETH', 9_000_004),
      trade('@1', 9_000_005),
    ]);
    const frames = (await drain(ws)) as { channel: string; data: { coin: string; tid: number }[] }[];
    expect(frames.map((f) => [f.channel, f.data.map((t) => `${t.coin} ${t.tid}`)])).toEqual([
      ['trades', ['BTC 9000001', 'ETH 9000004']],
      // The main dex: its perps and the spot pairs, not a HIP-3 dex's.
      ['trades', ['BTC 9000001', 'SOL 9000002', 'ETH 9000004', '@1 9000005']],
    ]);
    ws.close();
  });
});

describe('refusals, the cap, credits and the rate limit', () => {
  const coins = (n: number, prefix = 'C') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

  it('exactly one of coin, coins and dex; coins 1 to 100; a dex the node knows', async () => {
    const ws = await connect();
    const refusals: [Record<string, unknown>, string][] = [
      [{ type: 'l2BookDiff', coins: coins(101) }, 'coins: must hold 1 to 100 coins, got 101'],
      [{ type: 'trades', coins: [] }, 'coins: must hold 1 to 100 coins, got 0'],
      [{ type: 'bbo' }, 'coin: is required (or coins, a list of 1 to 100 coins, or dex, every market of a perp dex)'],
      [{ type: 'l4Book', coin: 'BTC', coins: ['ETH'] }, 'coins: only one of coin, coins and dex, got coin and coins'],
      [{ type: 'l2Book', coins: ['BTC'], dex: '' }, 'dex: only one of coin, coins and dex, got coins and dex'],
      [{ type: 'trades', dex: 'nope' }, 'dex: no perp dex named "nope"'],
    ];
    for (const [sub, reason] of refusals) {
      ws.send({ method: 'subscribe', subscription: sub });
      expect(await ws.next()).toEqual({
        channel: 'error',
        data: `Invalid subscription ${JSON.stringify(sub)}: ${reason}`,
        code: 'bad_input',
      });
    }
    ws.send({ method: 'subscribe', subscription: { type: 'l2BookDiff', coins: coins(100) } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    ws.close();
  });

  it('the per-connection cap (1 000) counts coins', async () => {
    const ws = await connect();
    // Ten subscriptions of 100 coins: 1 000 held.
    const held = Array.from({ length: 10 }, (_, i) => ({ type: 'l2BookDiff', coins: coins(100), nLevels: i + 1 }));
    for (const sub of held) ws.send({ method: 'subscribe', subscription: sub });
    for (const _ of held) expect((await ws.next()).channel).toBe('subscriptionResponse');
    const one = { type: 'bbo', coin: 'BTC' };
    ws.send({ method: 'subscribe', subscription: one });
    expect(await ws.next()).toEqual({
      channel: 'error',
      data: `Too many subscriptions (at most 1000 per connection): ${JSON.stringify({ method: 'subscribe', subscription: one })}`,
      code: 'too_many_subscriptions',
    });
    // One of 100 out: 900 held, so 100 coins fit and 101 would not.
    ws.send({ method: 'unsubscribe', subscription: held[9] });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coins: coins(99, 'T').concat('BTC', 'ETH') } });
    expect((await ws.next()).data).toMatch(/^Invalid subscription .*coins: must hold 1 to 100 coins, got 101$/);
    ws.send({ method: 'subscribe', subscription: { type: 'bbo', coins: coins(100, 'B') } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    ws.send({ method: 'subscribe', subscription: one });
    expect((await ws.next()).code).toBe('too_many_subscriptions');
    ws.close();
  });

  it('credits: one subscribe’s worth per coin, a dex by the markets the node lists on it', async () => {
    const { key: paid, record } = await createKey(compat.db.pool, {
      scope: 'data',
      rateLimitPerMin: 1_000_000,
      credits: 5_000,
    });
    const credits = async () =>
      Number(
        (await compat.db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [record.id])).rows[0]
          .credits,
      );
    const ws = await connect(paid);
    ws.send({ method: 'subscribe', subscription: { type: 'l2Book', coins: ['BTC', 'ETH', 'SOL'] } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    await drain(ws);
    expect(await credits()).toBe(5_000 - 3);
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    expect(await credits()).toBe(5_000 - 4);
    // The main dex: the perps the node lists (delisted ones aside) and its spot pairs, counted from its answers.
    const meta = (await compat.info({ type: 'meta' }, { 'x-api-key': key })).body as {
      universe: { isDelisted?: boolean }[];
    };
    const spot = (await compat.info({ type: 'spotMeta' }, { 'x-api-key': key })).body as { universe: unknown[] };
    const markets = meta.universe.filter((u) => u.isDelisted !== true).length + spot.universe.length;
    expect(markets).toBeGreaterThan(10);
    ws.send({ method: 'subscribe', subscription: { type: 'trades', dex: '' } });
    expect((await ws.next()).channel).toBe('subscriptionResponse');
    expect(await credits()).toBe(5_000 - 4 - markets);
    // A refused dex costs nothing.
    ws.send({ method: 'subscribe', subscription: { type: 'bbo', dex: 'nope' } });
    expect((await ws.next()).channel).toBe('error');
    expect(await credits()).toBe(5_000 - 4 - markets);
    ws.close();
  });

  it('the rate limit counts each coin: with 5 a minute, the upgrade and 4 coins fit, 5 coins do not', async () => {
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      const { key: slow } = await createKey(compat.db.pool, { scope: 'data', rateLimitPerMin: 5 });
      const ws = await connect(slow);
      const five = { type: 'bbo', coins: ['BTC', 'ETH', 'SOL', 'C1', 'C2'] };
      ws.send({ method: 'subscribe', subscription: five });
      const refused = await ws.next();
      ws.send({ method: 'subscribe', subscription: { type: 'bbo', coins: ['BTC', 'ETH', 'SOL', 'C1'] } });
      const admitted = await ws.next();
      ws.close();
      if (Math.floor(Date.now() / 60_000) !== minute) continue;
      expect(refused).toEqual({
        channel: 'error',
        data: `Subscription refused (429 rate limit exceeded: 5 requests per minute): ${JSON.stringify({ method: 'subscribe', subscription: five })}`,
        code: 'rate_limited',
      });
      expect(admitted.channel).toBe('subscriptionResponse');
      return;
    }
  });
});
