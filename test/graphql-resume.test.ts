// graphql-ws resume from the store, across api instances: two stacks (api instances) over one database and one event
// bus that keeps batches 200 ms only. A userFills subscriber of instance A takes fills live, then A goes away; fills
// are loaded meanwhile by the real ingest pipeline and the bus drops them; the subscriber comes back on instance B with
// its last cursor and gets exactly the fills it missed (read from the store), then live ones. Expected tids are worked
// out by hand from the blocks written.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CursorError, InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import type { Stack } from '../stack.ts';
import type { FillEvent } from '../wire/node-lines.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { graphqlWsClient } from './graphql.ts';
import { addr, appendBlocks, block, hash, nodeFill, T0, tempDataDir } from './node-files.ts';
import { startStackWithoutNode } from './stack.ts';

const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);
const RETAIN_MS = 200;

let db: TestDatabase;
let bus: InProcessBus;
let dataDir: string;
let a: Stack;
let b: Stack;

/** Block n: at T0 + n s, ALICE buys `n % 3 + 1` fills (tids n*10 + i) from BOB; block 4 has none of hers. */
function fillsOfBlock(n: number): FillEvent[] {
  if (n === 4) return [[BOB, nodeFill({ time: T0 + n * 1000, tid: n * 10, oid: n, side: 'A', hash: hash(n) })]];
  const out: FillEvent[] = [];
  for (let i = 0; i < (n % 3) + 1; i++) {
    const fill = { time: T0 + n * 1000, tid: n * 10 + i, oid: n, hash: hash(n), px: `${90000 + n}.0` };
    out.push([ALICE, nodeFill(fill)], [BOB, nodeFill({ ...fill, side: 'A', dir: 'Open Short' })]);
  }
  return out;
}

/** Writes blocks `from..to` of node_fills_by_block and loads them with the real pipeline, publishing on the bus. */
async function ingestBlocks(from: number, to: number): Promise<void> {
  const blocks = [];
  for (let n = from; n <= to; n++) blocks.push(block(n, T0 + n * 1000, fillsOfBlock(n)));
  await appendBlocks(dataDir, 'node_fills_by_block', blocks);
  await new Ingest({ dataDir, pool: db.pool, bus, streams: ['node_fills_by_block'], log: () => {} }).run();
}

type Fill = { tid: string; cursor: string };

/** A graphql-ws userFills subscription of ALICE (after `after` when given): every fill and error it sends. */
function followFills(client: Client, after?: string) {
  const fills: Fill[] = [];
  const errors: unknown[] = [];
  const stop = client.subscribe<{ userFills: Fill[] }>(
    {
      query: 'subscription ($user: String!, $after: String) { userFills(user: $user, after: $after) { tid cursor } }',
      variables: { user: ALICE, after: after ?? null },
    },
    {
      next: (frame) => {
        if (frame.errors) errors.push(frame.errors);
        else fills.push(...(frame.data?.userFills ?? []));
      },
      error: (err) => errors.push(err),
      complete: () => {},
    },
  );
  return { fills, errors, stop };
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** ALICE's tids of blocks from..to, by hand: n*10 + i for i < n % 3 + 1, none in block 4. */
const aliceTids = (from: number, to: number) => {
  const out: string[] = [];
  for (let n = from; n <= to; n++) if (n !== 4) for (let i = 0; i < (n % 3) + 1; i++) out.push(String(n * 10 + i));
  return out;
};

beforeAll(async () => {
  db = await createTestDatabase();
  bus = new InProcessBus({ retainMs: RETAIN_MS });
  dataDir = await tempDataDir();
  a = await startStackWithoutNode(db.pool, { bus });
  b = await startStackWithoutNode(db.pool, { bus });
  await ingestBlocks(1, 3);
}, 60_000);
afterAll(async () => {
  await a?.close().catch(() => {});
  await b?.close();
  await db?.drop();
});

describe('graphql-ws resume from the store', () => {
  it('gives a subscriber back on another instance, after the bus dropped them, exactly the fills it missed, then live ones', async () => {
    const clientA = graphqlWsClient(a.urls.router);
    const listening = bus.listeners('fills');
    const onA = followFills(clientA);
    // The subscription reaches the subgraph through the router: live once it follows the bus.
    await until(() => bus.listeners('fills') > listening, 'the subscription to follow the bus');
    await ingestBlocks(4, 6);
    await until(() => onA.fills.length >= aliceTids(5, 6).length, `live fills on A: ${JSON.stringify(onA)}`);
    expect(onA.errors).toEqual([]);
    expect(onA.fills.map((f) => f.tid)).toEqual(aliceTids(5, 6));
    const last = onA.fills.at(-1) as Fill;
    const seqAtLast = bus.position();
    await clientA.dispose();
    await a.close(); // instance A goes away

    // Missed: blocks 7-9, then (past the bus's retention) block 10, whose batch makes the bus drop theirs.
    await ingestBlocks(7, 9);
    await sleep(RETAIN_MS + 100);
    await ingestBlocks(10, 10);
    // The bus's log can no longer give them: a resume from it would fail.
    await expect(bus.replay('fills', seqAtLast, () => {})).rejects.toThrow(CursorError);

    const clientB = graphqlWsClient(b.urls.router);
    try {
      const resumed = followFills(clientB, last.cursor);
      await until(() => resumed.fills.length >= aliceTids(7, 10).length, 'the missed fills on B');
      await sleep(200);
      expect(resumed.errors).toEqual([]);
      expect(resumed.fills.map((f) => f.tid)).toEqual(aliceTids(7, 10));
      // Then live: block 11, once only.
      await ingestBlocks(11, 11);
      await until(() => resumed.fills.length >= aliceTids(7, 11).length, 'live fills after the missed ones');
      await sleep(200);
      expect(resumed.fills.map((f) => f.tid)).toEqual(aliceTids(7, 11));
      // The cursor is the store's position: the block and its time (`block-time`), as /ws sends it.
      expect((resumed.fills.at(-1) as Fill).cursor).toBe(`11-${T0 + 11_000}`);
      resumed.stop();
    } finally {
      await clientB.dispose();
    }
  }, 60_000);
});

describe('graphql-ws replay', () => {
  it('replays a window as userFills sends it, a gap where the store has none, then complete', async () => {
    const client = graphqlWsClient(b.urls.router);
    try {
      // 40 s before the first stored fill (T0 + 1 s) to T0 + 8 s, at 500×: ~100 ms.
      const start = T0 - 39_000;
      const end = T0 + 8_000;
      type Frame = {
        position: string | null;
        data: Fill[] | null;
        gap: { from: number; to: number } | null;
        complete: { start: number; end: number; frames: number } | null;
      };
      const began = Date.now();
      const frames = await new Promise<Frame[]>((resolve, reject) => {
        const got: Frame[] = [];
        client.subscribe<{ userFillsReplay: Frame }>(
          {
            query: `subscription ($user: String!, $start: Timestamp!, $end: Timestamp!) {
              userFillsReplay(user: $user, start: $start, end: $end, speed: 500) {
                position data { tid cursor } gap { from to } complete { start end frames } } }`,
            variables: { user: ALICE, start, end },
          },
          {
            next: (frame) => {
              if (frame.errors) reject(new Error(JSON.stringify(frame.errors)));
              else if (frame.data) got.push(frame.data.userFillsReplay);
            },
            error: reject,
            complete: () => resolve(got),
          },
        );
      });
      const elapsed = Date.now() - began;
      expect(frames[0]).toEqual({ position: null, data: null, gap: { from: start, to: T0 + 1000 }, complete: null });
      const events = frames.slice(1, -1);
      // Blocks 1-7 of ALICE's (none in block 4), each frame one block with its position, its fills' cursor.
      expect(events.flatMap((f) => (f.data ?? []).map((x) => x.tid))).toEqual(aliceTids(1, 7));
      expect(events.map((f) => f.position)).toEqual([1, 2, 3, 5, 6, 7].map((n) => `${n}-${T0 + n * 1000}`));
      for (const f of events) for (const x of f.data ?? []) expect(x.cursor).toBe(f.position);
      expect(frames.at(-1)).toEqual({ position: null, data: null, gap: null, complete: { start, end, frames: 6 } });
      // Paced: 47 s of data at 500× is 94 ms at least.
      expect(elapsed).toBeGreaterThanOrEqual(90);
    } finally {
      await client.dispose();
    }
  }, 30_000);

  it('refuses a bad window or speed, naming the field', async () => {
    const client = graphqlWsClient(b.urls.router);
    try {
      const cases: [Record<string, unknown>, string][] = [
        [{ start: T0, end: T0 + 1000, speed: 0 }, 'speed: must be a number from 1 to 500'],
        [{ start: T0, end: T0 + 1000, speed: 501 }, 'speed: must be a number from 1 to 500'],
        [{ start: T0, end: T0, speed: 1 }, 'end: must be after start'],
        [{ start: T0, end: T0 + 24 * 3_600_000 + 1, speed: 1 }, 'end: at most 24 h after start'],
      ];
      for (const [variables, message] of cases) {
        const error = await new Promise<string>((resolve) => {
          client.subscribe(
            {
              query: `subscription ($start: Timestamp!, $end: Timestamp!, $speed: Float!) {
                tradesReplay(coin: "BTC", start: $start, end: $end, speed: $speed) { position } }`,
              variables,
            },
            {
              next: (frame) => resolve(JSON.stringify(frame.errors ?? frame.data)),
              error: (err) => resolve(JSON.stringify(err)),
              complete: () => resolve('complete'),
            },
          );
        });
        expect(error).toContain(message);
      }
    } finally {
      await client.dispose();
    }
  }, 30_000);
});
