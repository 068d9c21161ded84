// Books every block through the router over graphql-ws (issue 41): l2BookDiff and l4Book reach the client from the
// markets subgraph, and a follower that reads Market.book (Market.l4Book) and applies the events above its height holds
// the book a fresh read gives. The simulated node runs in real time under the stack: its blocks are the test's.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlWsClient, postGraphql } from '../test/graphql.ts';
import { openRouterHere } from '../test/router-here.ts';
import { startTestStack, type TestStack } from '../test/stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ historyMs: 20 * 60_000, openRouter: openRouterHere });
}, 180_000);
afterAll(async () => {
  await stack?.close();
});

type Level = { px: string; sz: string; n: number };
type L2Diff = { coin: string; height: number; prevHeight: number; bids: Level[]; asks: Level[] };
type L4Order = { oid: string; sz: string };
type L4Updates = {
  coin: string;
  height: number;
  orderStatuses: { status: string; user: { address: string }; order: { oid: string; coin: string } }[];
  bookDiffs: { kind: string; oid: string; coin: string; sz: string | null; user: { address: string } }[];
};

/** A subscription's events as they come, read one at a time. */
function follow<T>(client: Client, query: string) {
  const inbox: T[] = [];
  const waiting: ((e: T) => void)[] = [];
  let failure: unknown = null;
  const stop = client.subscribe<Record<string, T>>(
    { query },
    {
      next: (r) => {
        if (r.errors) failure = new Error(JSON.stringify(r.errors));
        const event = Object.values(r.data ?? {})[0] as T;
        const next = waiting.shift();
        if (next) next(event);
        else inbox.push(event);
      },
      error: (err) => {
        failure = err;
      },
      complete: () => {},
    },
  );
  return {
    next: (timeoutMs = 20_000): Promise<T> => {
      if (failure) return Promise.reject(failure);
      const ready = inbox.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((e) => {
          clearTimeout(timer);
          resolve(e);
        });
      });
    },
    stop,
  };
}

const LEVELS = 'px sz n';

/** Applies one side's changed levels (sz "0" removes), keeping the side sorted as the exchange does. */
function applySide(side: Level[], changes: Level[], bids: boolean): Level[] {
  const byPx = new Map(side.map((l) => [l.px, l]));
  for (const c of changes) {
    if (Number(c.sz) === 0) byPx.delete(c.px);
    else byPx.set(c.px, c);
  }
  return [...byPx.values()].sort((a, b) => (bids ? Number(b.px) - Number(a.px) : Number(a.px) - Number(b.px)));
}

describe('books through the router over graphql-ws', () => {
  it('l2BookDiff: Market.book plus the diffs above its height is the book a later read gives', async () => {
    const client = graphqlWsClient(stack.urls.router);
    try {
      const diffs = follow<L2Diff>(
        client,
        `subscription { l2BookDiff(coin: "BTC", nLevels: 10) { coin height prevHeight bids { ${LEVELS} } asks { ${LEVELS} } } }`,
      );
      const read = async () => {
        const { body } = await postGraphql(
          stack.urls.router,
          `{ market(coin: "BTC") { book(nLevels: 10) { height bids { ${LEVELS} } asks { ${LEVELS} } } } }`,
        );
        expect(body.errors).toBeUndefined();
        return body.data.market.book as { height: number; bids: Level[]; asks: Level[] };
      };
      const first = await diffs.next();
      expect(first.coin).toBe('BTC');
      expect(first.prevHeight).toBeLessThan(first.height);
      const start = await read();
      let bids = start.bids;
      let asks = start.asks;
      let compared = 0;
      let check = await read();
      for (let i = 0; i < 400 && compared < 3; i++) {
        const diff = await diffs.next();
        if (diff.height <= start.height) continue;
        // Every diff up to the read's height has come once one above it does: the book must then be the read's.
        const above = diff.height > check.height;
        if (above) {
          expect({ bids, asks }).toEqual({ bids: check.bids, asks: check.asks });
          compared++;
        }
        bids = applySide(bids, diff.bids, true);
        asks = applySide(asks, diff.asks, false);
        if (above) check = await read();
      }
      expect(compared).toBe(3);
      diffs.stop();
    } finally {
      await client.dispose();
    }
  });

  it('l4Book: Market.l4Book plus the updates above its height is the book a later read gives', async () => {
    const client = graphqlWsClient(stack.urls.router);
    try {
      const updates = follow<L4Updates>(
        client,
        'subscription { l4Book(coin: "BTC") { coin height orderStatuses { status user { address } order { oid coin } } bookDiffs { kind oid coin sz user { address } } } }',
      );
      const read = async () => {
        const { body } = await postGraphql(
          stack.urls.router,
          '{ market(coin: "BTC") { l4Book { height bids { oid sz } asks { oid sz } } } }',
        );
        expect(body.errors).toBeUndefined();
        const book = body.data.market.l4Book as { height: number; bids: L4Order[]; asks: L4Order[] };
        return { height: book.height, orders: new Map([...book.bids, ...book.asks].map((o) => [o.oid, o.sz])) };
      };
      const first = await updates.next();
      expect(first.coin).toBe('BTC');
      expect(first.bookDiffs.length + first.orderStatuses.length).toBeGreaterThan(0);
      for (const d of first.bookDiffs) expect([d.coin, d.user.address]).toEqual(['BTC', expect.stringMatching(/^0x/)]);
      const start = await read();
      const orders = start.orders;
      let check = await read();
      let compared = 0;
      for (let i = 0; i < 400 && compared < 3; i++) {
        const u = await updates.next();
        if (u.height <= start.height) continue;
        if (u.height > check.height) {
          // Sizes as the book prints them: compared as numbers (a diff's "1.0" is the order's "1").
          const norm = (m: Map<string, string>) => [...m].map(([oid, sz]) => [oid, Number(sz)]).sort();
          expect(norm(orders)).toEqual(norm(check.orders));
          compared++;
        }
        for (const d of u.bookDiffs) {
          if (d.kind === 'remove') orders.delete(d.oid);
          else orders.set(d.oid, d.sz as string);
        }
        if (u.height > check.height) check = await read();
      }
      expect(compared).toBe(3);
      updates.stop();
    } finally {
      await client.dispose();
    }
  });
});
