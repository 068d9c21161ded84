// The exchange's own client, @nktkas/hyperliquid, against compat-rest over a simulated node: every market /info
// type and every market channel answers in the shape the SDK publishes (checked field by field).
import { HttpTransport, InfoClient, SubscriptionClient, WebSocketTransport } from '@nktkas/hyperliquid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { errorBody } from '../../platform/error-codes.ts';
import { openRouterHere } from '../router-here.ts';
import { startTestStack, type TestStack } from '../stack.ts';
import { firstEvent } from './events.ts';
import { expectEventShape, expectInfoShape } from './schemas.ts';

let stack: TestStack;
let info: InfoClient;
let subs: SubscriptionClient;
let ws: WebSocketTransport;

beforeAll(async () => {
  stack = await startTestStack({ openRouter: openRouterHere });
  info = new InfoClient({ transport: new HttpTransport({ apiUrl: stack.urls.compat, timeout: 10_000 }) });
  ws = new WebSocketTransport({ url: stack.urls.ws, timeout: 10_000 });
  subs = new SubscriptionClient({ transport: ws });
}, 120_000);

afterAll(async () => {
  await ws?.close();
  await stack?.close();
});

describe('POST /info market types through the SDK', () => {
  it('answers meta, spotMeta and their asset contexts', async () => {
    const meta = await info.meta();
    expectInfoShape('meta', meta);
    expect(meta.universe.map((u) => u.name)).toContain('BTC');
    expectInfoShape('spotMeta', await info.spotMeta());
    const [m, ctxs] = await info.metaAndAssetCtxs();
    expectInfoShape('metaAndAssetCtxs', [m, ctxs]);
    expect(ctxs).toHaveLength(m.universe.length);
    expectInfoShape('spotMetaAndAssetCtxs', await info.spotMetaAndAssetCtxs());
  });

  it('refuses a dex the node does not know with 400 naming it', async () => {
    for (const type of ['metaAndAssetCtxs', 'allMids']) {
      const res = await fetch(`${stack.urls.compat}/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type, dex: 'nope' }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(errorBody('bad_input', 'dex: no perp dex named "nope"'));
    }
  });

  it('answers allMids with perps and spot coins, and a HIP-3 dex with its dex only', async () => {
    const mids = await info.allMids();
    expectInfoShape('allMids', mids);
    expect(Number(mids.BTC)).toBeGreaterThan(0);
    expect(Object.keys(mids).some((coin) => coin.includes('/') || coin.startsWith('@'))).toBe(true);
    // The first dex's coins and spot: a HIP-3 dex's coins come with their dex (as the exchange answers).
    expect(Object.keys(mids).filter((coin) => coin.includes(':'))).toEqual([]);
    const xyz = await info.allMids({ dex: 'xyz' });
    expect(Object.keys(xyz).length).toBeGreaterThan(0);
    expect(Object.keys(xyz).every((coin) => coin.startsWith('xyz:'))).toBe(true);
  });

  it('answers l2Book, aggregated and not, and null for an unknown coin', async () => {
    const book = await info.l2Book({ coin: 'ETH' });
    expectInfoShape('l2Book', book);
    expect(book?.levels[0].length).toBeGreaterThan(0);
    const coarse = await info.l2Book({ coin: 'BTC', nSigFigs: 2 });
    expectInfoShape('l2Book', coarse);
    expect(await info.l2Book({ coin: 'NOPE' })).toBeNull();
    // Explicit nulls (nullish in the SDK's request schema) mean no aggregation: the same answer as none, compared
    // on a pair of answers read from the same state of the live book (it changes several times a second).
    for (let attempt = 0; ; attempt++) {
      const [withNulls, without] = [
        await info.l2Book({ coin: 'ETH', nSigFigs: null, mantissa: null }),
        await info.l2Book({ coin: 'ETH' }),
      ];
      if (withNulls?.time !== without?.time && attempt < 20) continue;
      expect(withNulls).toEqual(without);
      break;
    }
    expectInfoShape('l2Book', await info.l2Book({ coin: 'BTC', nSigFigs: 5, mantissa: 2 }));
  });

  it('answers candleSnapshot for the exchange intervals and 5s/30s', async () => {
    const now = Date.now();
    for (const interval of ['1m', '15m', '1h'] as const) {
      const candles = await info.candleSnapshot({ coin: 'BTC', interval, startTime: now - 2 * 3_600_000 });
      expectInfoShape('candleSnapshot', candles);
      expect(candles.length).toBeGreaterThan(0);
      expect(candles.every((c, i) => i === 0 || (candles[i - 1]?.t ?? 0) < c.t)).toBe(true);
    }
    const res = await fetch(`${stack.urls.compat}/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '5s', startTime: now - 600_000 } }),
    });
    expect(res.status).toBe(200);
    const fine: { i: string }[] = await res.json();
    expect(fine.length).toBeGreaterThan(0);
    expect(fine.every((c) => c.i === '5s')).toBe(true);
    // 5s is the service's own interval: the SDK's type knows the exchange's 14 only.
    expectInfoShape(
      'candleSnapshot',
      fine.map((c) => ({ ...c, i: '1m' })),
    );
  });

  it('answers recentTrades and fundingHistory', async () => {
    const trades = await info.recentTrades({ coin: 'BTC' });
    expectInfoShape('recentTrades', trades);
    expect(trades.length).toBeGreaterThan(0);
    const funding = await info.fundingHistory({ coin: 'BTC', startTime: Date.now() - 3 * 3_600_000 });
    expectInfoShape('fundingHistory', funding);
    expect(funding.length).toBeGreaterThan(0);
  });

  it('answers the borrow/lend reserves', async () => {
    const states = await info.allBorrowLendReserveStates();
    expectInfoShape('allBorrowLendReserveStates', states);
    expect(states.map(([token]) => token)).toEqual([0, 150, 197, 268, 360]);
  });

  it('relays the proxied types from the node', async () => {
    const { universe } = await info.meta();
    expectInfoShape('marginTable', await info.marginTable({ id: universe[0]?.marginTableId ?? 0 }));
    expectInfoShape('maxMarketOrderNtls', await info.maxMarketOrderNtls());
    expectInfoShape('leadingVaults', await info.leadingVaults({ user: '0x0000000000000000000000000000000000000001' }));
    expectInfoShape('perpDexs', await info.perpDexs());
  });
});

describe('/ws market channels through the SDK', () => {
  it('delivers allMids, l2Book, bbo and trades', async () => {
    expectEventShape('allMids', await firstEvent((l) => subs.allMids(l)));
    expectEventShape('l2Book', await firstEvent((l) => subs.l2Book({ coin: 'BTC' }, l)));
    // `fast`: the shallow book, 5 levels a side.
    const fast = await firstEvent<{ levels: unknown[][] }>((l) => subs.l2Book({ coin: 'ETH', fast: true }, l));
    expectEventShape('l2Book', fast);
    expect(Math.max(...fast.levels.map((side) => side.length))).toBeLessThanOrEqual(5);
    expectEventShape('bbo', await firstEvent((l) => subs.bbo({ coin: 'BTC' }, l)));
    const trades = await firstEvent<{ coin: string }[]>((l) => subs.trades({ coin: 'BTC' }, l));
    expectEventShape('trades', trades);
    expect(trades[0]?.coin).toBe('BTC');
  });

  it('delivers candle frames with closed and reconciled', async () => {
    const frame = (await firstEvent((l) => subs.candle({ coin: 'BTC', interval: '1m' }, l))) as unknown as Record<
      string,
      unknown
    >;
    const { closed, reconciled, ...candle } = frame;
    expectEventShape('candle', candle);
    expect(typeof closed).toBe('boolean');
    expect(typeof reconciled).toBe('boolean');
  });

  it('delivers activeAssetCtx for a perp and activeSpotAssetCtx for a spot coin', async () => {
    expectEventShape('activeAssetCtx', await firstEvent((l) => subs.activeAssetCtx({ coin: 'ETH' }, l)));
    const spot = await firstEvent((l) => subs.activeSpotAssetCtx({ coin: 'PURR/USDC' }, l));
    expectEventShape('activeSpotAssetCtx', spot);
  });

  it('delivers allCandles frames and a closed 5s frame reconciled false (a raw socket: not an SDK method)', async () => {
    const socket = new WebSocket(stack.urls.ws);
    await new Promise((r) => socket.once('open', r));
    const frames: { channel: string; data: Record<string, unknown> }[] = [];
    socket.on('message', (m) => frames.push(JSON.parse(String(m))));
    socket.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'allCandles', interval: '5s' } }));
    const deadline = Date.now() + 15_000;
    // Until a closed frame and frames of more than one coin have come (under load the first close can come first).
    const coinsSeen = () => new Set(frames.filter((f) => f.channel === 'allCandles').map((f) => f.data.s)).size;
    while (
      !(frames.some((f) => f.channel === 'allCandles' && f.data.closed === true) && coinsSeen() > 1) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    socket.close();
    expect(frames[0]).toEqual({
      channel: 'subscriptionResponse',
      data: { method: 'subscribe', subscription: { type: 'allCandles', interval: '5s' } },
    });
    const closed = frames.find((f) => f.channel === 'allCandles' && f.data.closed === true);
    expect(closed?.data).toMatchObject({ i: '5s', closed: true, reconciled: false });
    const coins = new Set(frames.filter((f) => f.channel === 'allCandles').map((f) => f.data.s));
    expect(coins.size).toBeGreaterThan(1);
  });

  it('refuses bad subscription parameters on channel error, before any acknowledgement', async () => {
    const socket = new WebSocket(stack.urls.ws);
    await new Promise((r) => socket.once('open', r));
    const frames: { channel: string; data: unknown }[] = [];
    socket.on('message', (m) => frames.push(JSON.parse(String(m))));
    const until = async (n: number) => {
      const deadline = Date.now() + 5000;
      while (frames.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    // mantissa needs nSigFigs 5: refused as invalid, never acknowledged.
    socket.send(
      JSON.stringify({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'BTC', nSigFigs: 4, mantissa: 2 } }),
    );
    await until(1);
    expect(frames[0]?.channel).toBe('error');
    expect(String(frames[0]?.data)).toMatch(/^Invalid subscription .*mantissa: only with nSigFigs 5$/);
    // An unknown dex is known only once the node is asked: acknowledged, then removed with the reason.
    socket.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'allMids', dex: 'nope' } }));
    await until(3);
    socket.close();
    expect(frames[1]).toMatchObject({ channel: 'subscriptionResponse' });
    expect(frames[2]?.channel).toBe('error');
    expect(String(frames[2]?.data)).toMatch(/^Subscription failed and was removed: .*dex: no perp dex named "nope"$/);
  });

  it('answers info requests posted over the socket', async () => {
    const overWs = new InfoClient({ transport: ws });
    const mids = await overWs.allMids();
    expect(Number(mids.ETH)).toBeGreaterThan(0);
  });
});
