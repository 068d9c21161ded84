// Fills of one timestamp in execution order on every interface: one block holds a user's fills of several coins at
// the same `time`, in a line order that neither their tids nor their start positions give. REST userFills and
// userFillsByTime (with and without aggregateByTime), the compact rows of /fills and /info fills, and GraphQL
// User.fills, the MCP fill tools and the /ws userFills snapshot must all list them as the node executed them (the exchange's own answers do),
// newest time first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domainTools } from '../mcp/tools.ts';
import { NodeFiles, userConnection } from '../test/accounts-files.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { addr, hash, nodeFill, T0 } from '../test/node-files.ts';
import { openSocket } from '../test/ws-client.ts';
import type { FillEvent } from '../wire/node-lines.ts';

const USER = addr(0x0e1);
const MAKER = addr(0x0e2);
const T = T0 + 5_000;
const EARLIER = T0 + 1_000;

/** The user's fill and its maker's, one trade: two events of the line. */
function trade(fill: Parameters<typeof nodeFill>[0]): FillEvent[] {
  const taker = nodeFill({ time: T, fee: '0.1', ...fill });
  const maker = nodeFill({
    ...taker,
    side: taker.side === 'B' ? 'A' : 'B',
    startPosition: '0.0',
    dir: taker.side === 'B' ? 'Open Short' : 'Open Long',
    crossed: false,
    oid: taker.oid + 1000,
    fee: '0.0',
  });
  return [
    [USER, taker],
    [MAKER, maker],
  ];
}

let c: TestCompatApp;

beforeAll(async () => {
  c = await startCompatApp({ data: 'empty', node: 'down', listen: true });
  const files = new NodeFiles();
  files.add('node_fills_by_block', EARLIER, trade({ coin: 'ETH', time: EARLIER, oid: 1, tid: 50, px: '3000.0' }));
  // Block 2, in this line order: a SOL sell, a BTC buy sweeping two asks (tids rising, start position rising), an
  // ETH sell. By tid the order would be 900, 700, 500, 300; by start-position walk, ETH (2.0 short side) first.
  files.add('node_fills_by_block', T, [
    ...trade({ coin: 'SOL', side: 'A', dir: 'Open Short', startPosition: '-1.0', px: '150.0', oid: 12, tid: 700 }),
    ...trade({ px: '100.0', sz: '0.1', startPosition: '0.0', oid: 11, tid: 300, hash: hash(0xb7c) }),
    ...trade({ px: '102.0', sz: '0.3', startPosition: '0.1', oid: 11, tid: 500, hash: hash(0xb7c) }),
    ...trade({ coin: 'ETH', side: 'A', dir: 'Close Long', startPosition: '2.0', px: '3001.0', oid: 10, tid: 900 }),
  ]);
  // Block 3, the same time: after every fill of block 2.
  files.add('node_fills_by_block', T, trade({ coin: 'XRP', oid: 13, tid: 100, px: '2.5' }));
  await files.load(c.db);
}, 120_000);
afterAll(async () => {
  await c?.close();
});

const NEWEST_FIRST = [700, 300, 500, 900, 100, 50];
const tids = (fills: { tid: number | string }[]) => fills.map((f) => Number(f.tid));

describe('fills of one time, in execution order', () => {
  it('REST userFills and userFillsByTime list them in the line order, newest time first', async () => {
    const all = await c.info({ type: 'userFills', user: USER });
    expect(all.status).toBe(200);
    expect(tids(all.body)).toEqual(NEWEST_FIRST);
    const byTime = await c.info({ type: 'userFillsByTime', user: USER, startTime: T0 });
    expect(tids(byTime.body)).toEqual(NEWEST_FIRST);
  });

  it('aggregateByTime merges from the first executed part, on REST and GraphQL alike', async () => {
    // The BTC order's two parts: 0.1 @ 100 then 0.3 @ 102 → 0.4 @ 101.5, tid and start position of the first.
    const merged = { coin: 'BTC', tid: 300, sz: '0.4', px: '101.5', startPosition: '0.0' };
    for (const body of [
      { type: 'userFills', user: USER, aggregateByTime: true },
      { type: 'userFillsByTime', user: USER, startTime: T0, aggregateByTime: true },
    ]) {
      const r = await c.info(body);
      expect(tids(r.body)).toEqual([700, 300, 900, 100, 50]);
      expect(r.body[1]).toMatchObject(merged);
    }
    const page = await userConnection(
      c.accounts,
      USER,
      'fills',
      'first: 10, aggregateByTime: true',
      'coin tid sz px startPosition',
    );
    expect(page.edges.map((e) => e.node)).toEqual([
      { coin: 'SOL', tid: '700', sz: '0.1', px: '150.0', startPosition: '-1.0' },
      { ...merged, tid: '300' },
      { coin: 'ETH', tid: '900', sz: '0.1', px: '3001.0', startPosition: '2.0' },
      { coin: 'XRP', tid: '100', sz: '0.1', px: '2.5', startPosition: '0.0' },
      { coin: 'ETH', tid: '50', sz: '0.1', px: '3000.0', startPosition: '0.0' },
    ]);
  });

  it('GraphQL User.fills lists them in the line order, and pages through them one by one', async () => {
    const all = await userConnection(c.accounts, USER, 'fills', 'first: 10', 'tid');
    expect(all.edges.map((e) => Number(e.node.tid))).toEqual(NEWEST_FIRST);
    const paged: number[] = [];
    let after = '';
    for (let i = 0; i < 10; i++) {
      const page = await userConnection(c.accounts, USER, 'fills', `first: 1${after}`, 'tid');
      paged.push(...page.edges.map((e) => Number(e.node.tid)));
      const info = page.pageInfo as { hasNextPage: boolean; endCursor: string };
      if (!info.hasNextPage) break;
      after = `, after: "${info.endCursor}"`;
    }
    expect(paged).toEqual(NEWEST_FIRST);
  });

  it('compact rows keep execution order within a time in both directions, paged by cursor', async () => {
    const oldestFirst = [50, 700, 300, 500, 900, 100];
    for (const [order, expected] of [
      ['desc', NEWEST_FIRST],
      ['asc', oldestFirst],
    ] as const) {
      const whole = await c.get(`/fills/user/${USER}?order=${order}`);
      expect(whole.status).toBe(200);
      expect(tids(whole.body.data)).toEqual(expected);
      const paged: number[] = [];
      let cursor = '';
      for (let i = 0; i < 10; i++) {
        const r = await c.get(`/fills/user/${USER}?order=${order}&limit=2${cursor}`);
        paged.push(...tids(r.body.data));
        if (!r.body.has_more) break;
        cursor = `&cursor=${encodeURIComponent(r.body.next_cursor)}`;
      }
      expect(paged).toEqual(expected);
      const info = await c.info({ type: 'fills', user: USER, order });
      expect(tids(info.body.result)).toEqual(expected);
    }
  });

  it('the MCP fill tools list them in the line order', async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const tool = domainTools().find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      // As a caller reads it: its JSON (a list the service wrote as JSON is copied as it is, mcp/direct.ts).
      const input = tool.read ? tool.read(args) : args;
      const answer = await tool.call(input, { services: c.services, signal: new AbortController().signal });
      return JSON.parse(JSON.stringify(answer)) as Record<string, { tid: number }[]>;
    };
    expect(tids((await call('accounts_user_fills', { user: USER })).fills ?? [])).toEqual(NEWEST_FIRST);
    const merged = await call('accounts_user_fills', { user: USER, startTime: T0, aggregateByTime: true });
    expect(tids(merged.fills ?? [])).toEqual([700, 300, 900, 100, 50]);
    expect(tids((await call('accounts_fills', { user: USER, order: 'desc' })).rows ?? [])).toEqual(NEWEST_FIRST);
  });

  it('the /ws userFills snapshot lists them in the line order, aggregated or not', async () => {
    for (const [aggregateByTime, expected] of [
      [false, NEWEST_FIRST],
      [true, [700, 300, 900, 100, 50]],
    ] as const) {
      const ws = await openSocket(c.urls.ws);
      try {
        ws.send({ method: 'subscribe', subscription: { type: 'userFills', user: USER, aggregateByTime } });
        expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
        const snapshot = (await ws.next()) as { data: { isSnapshot: boolean; fills: { tid: number }[] } };
        expect(snapshot.data.isSnapshot).toBe(true);
        expect(tids(snapshot.data.fills)).toEqual(expected);
      } finally {
        ws.close();
      }
    }
  });
});
