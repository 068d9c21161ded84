// Resume and replay on /ws over the real stack: fills written as node files and loaded by the real ingest pipeline,
// a client killed mid-stream, rows written meanwhile, the client back with its position: exactly the missed fills
// (checked against the store with SQL of this test's own), then live ones. A window replayed fast, with the store's
// hole before its first row told as a gap. Bad input names the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../events/bus.ts';
import type { Stack } from '../../stack.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { addr, hash, nodeFill, T0, tempDataDir } from '../../test/node-files.ts';
import { startStackWithoutNode } from '../../test/stack.ts';
import { frameClient, ingestFillBlocks, subscribe } from '../../test/ws-frames.ts';
import type { FillEvent } from '../../wire/node-lines.ts';

const ALICE = addr(0xa11ce);
const BOB = addr(0xb0b);

let db: TestDatabase;
let stack: Stack;
let bus: InProcessBus;
let dataDir: string;

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
const ingestBlocks = (from: number, to: number) =>
  ingestFillBlocks({ dataDir, pool: db.pool, bus }, from, to, (n) => T0 + n * 1000, fillsOfBlock);

/** A /ws client that keeps every frame it got. */
const client = () => frameClient(stack.urls.ws);

type Fill = { tid: number; time: number };
const tidsOf = (frames: Record<string, unknown>[]) =>
  frames.flatMap((f) => ((f.data as { fills: Fill[] }).fills ?? []).map((x) => x.tid));

/** The next frames of `channel` until they hold `n` fills (a live frame holds a bus batch: one or more blocks). */
async function framesWithFills(
  c: Awaited<ReturnType<typeof client>>,
  channel: string,
  n: number,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  while (tidsOf(out).length < n) out.push(await c.next((f) => f.channel === channel));
  return out;
}

beforeAll(async () => {
  db = await createTestDatabase();
  bus = new InProcessBus();
  dataDir = await tempDataDir();
  stack = await startStackWithoutNode(db.pool, { bus });
  await ingestBlocks(1, 3);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

describe('/ws resume', () => {
  it('a client killed mid-stream comes back with its position: the missed fills from the store, then live ones', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'userFills', user: ALICE, positions: true });
    const ack = await a.next((f) => f.channel === 'subscriptionResponse');
    expect(ack.data).toEqual({
      method: 'subscribe',
      subscription: { type: 'userFills', user: ALICE, aggregateByTime: false, positions: true },
      resume: 'stored',
    });
    // From now: blocks 1-3 are history, not sent.
    await ingestBlocks(5, 6);
    const first = await framesWithFills(a, 'userFills', 4);
    expect(tidsOf(first)).toEqual([50, 51, 52, 60]);
    const f6 = first[first.length - 1] as Record<string, unknown>;
    expect(typeof f6.position).toBe('string');
    expect(Object.keys(f6)).toEqual(['channel', 'data', 'position']);
    a.socket.terminate();

    // Written while it was away.
    await ingestBlocks(7, 11);
    const b = await client();
    subscribe(b.socket, { type: 'userFills', user: ALICE, after: f6.position });
    const ackB = await b.next((f) => f.channel === 'subscriptionResponse');
    expect((ackB.data as { resume: string }).resume).toBe('stored');
    // The store's own answer of what came after block 6 for ALICE (blocks 7-11 hold 2+3+1+2+3 fills).
    const { rows } = await db.pool.query<{ tid: number }>(
      `SELECT tid FROM accounts.fills WHERE address = $1 AND block_number > 6 ORDER BY block_number, event_index`,
      [ALICE],
    );
    expect(rows.map((r) => r.tid)).toEqual([70, 71, 80, 81, 82, 90, 100, 101, 110, 111, 112]);
    const missed = await framesWithFills(b, 'userFills', rows.length);
    expect(tidsOf(missed)).toEqual(rows.map((r) => r.tid));
    // One frame per stored block.
    expect(missed.map((f) => tidsOf([f]))).toEqual([[70, 71], [80, 81, 82], [90], [100, 101], [110, 111, 112]]);
    // One frame per stored block, in the live shape: the user and the fills, no snapshot flag.
    expect(Object.keys(missed[0]?.data as object)).toEqual(['user', 'fills']);
    expect((missed[0]?.data as { user: string }).user).toBe(ALICE);
    // Then live, nothing twice.
    await ingestBlocks(12, 13);
    const live = await framesWithFills(b, 'userFills', 3);
    expect(tidsOf(live)).toEqual([120, 130, 131]);
    await new Promise((r) => setTimeout(r, 200));
    expect(tidsOf(b.frames.filter((f) => f.channel === 'userFills'))).toEqual([
      ...rows.map((r) => r.tid),
      120,
      130,
      131,
    ]);
    // Each position resumes after its frame: from the third missed frame's, the rest of them.
    const c = await client();
    subscribe(c.socket, { type: 'userFills', user: ALICE, after: missed[2]?.position });
    const rest = await framesWithFills(c, 'userFills', 8);
    expect(tidsOf(rest)).toEqual([100, 101, 110, 111, 112, 120, 130, 131]);
    b.socket.close();
    c.socket.close();
  }, 30_000);

  it('the same subscription without after or positions is unchanged: no position on its frames', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'trades', coin: 'BTC' });
    const ack = await a.next((f) => f.channel === 'subscriptionResponse');
    expect(ack.data).toEqual({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });
    await ingestBlocks(14, 14);
    const frame = await a.next((f) => f.channel === 'trades');
    expect(Object.keys(frame)).toEqual(['channel', 'data']);
    a.socket.close();
  }, 20_000);

  it('trades resume from a position: the coin trades after it', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'trades', coin: 'BTC', after: `12-${T0 + 12_000}` });
    const { rows } = await db.pool.query<{ tid: number }>(
      `SELECT tid FROM markets.trades WHERE coin = 'BTC' AND block_number > 12 ORDER BY block_number, seq`,
    );
    expect(rows.length).toBeGreaterThan(0);
    const got: number[] = [];
    while (got.length < rows.length) {
      const f = await a.next((x) => x.channel === 'trades');
      got.push(...(f.data as { tid: number }[]).map((t) => t.tid));
    }
    expect(got).toEqual(rows.map((r) => r.tid));
    a.socket.close();
  }, 20_000);

  it('userEvents: one position per part it merges (fills, funding, liquidations, cancels)', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'userEvents', user: ALICE, after: `6-${T0 + 6000}~0-0~0-0~0-0` });
    const first = await a.next((f) => f.channel === 'user');
    expect((first.data as { fills: Fill[] }).fills.map((x) => x.tid)).toEqual([70, 71]);
    expect(String(first.position).split('~')).toHaveLength(4);
    a.socket.close();
  }, 20_000);

  it('a bad after or positions is an error frame naming the field', async () => {
    const a = await client();
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'userFills', user: ALICE, after: 'yesterday' }, 'after: not a position of this subscription'],
      [{ type: 'userFills', user: ALICE, after: 12 }, 'after: must be the "position" string'],
      [{ type: 'userFills', user: ALICE, after: '' }, 'after: must be the "position" string'],
      [{ type: 'userFills', user: ALICE, after: 'x'.repeat(401) }, 'after: must be the "position" string'],
      [{ type: 'userEvents', user: ALICE, after: '6-0' }, 'after: not a position of this subscription'],
      [{ type: 'userFills', user: ALICE, positions: 'yes' }, 'positions: must be true or false'],
    ];
    for (const [subscription, message] of cases) {
      subscribe(a.socket, subscription);
      const err = await a.next((f) => f.channel === 'error');
      expect(err.data).toContain(message);
      expect(err.code).toBe('bad_input');
    }
    a.socket.close();
  }, 20_000);

  it('a state channel resumed gives a fresh snapshot and says so', async () => {
    const a = await client();
    subscribe(a.socket, { type: 'bbo', coin: 'BTC', after: '1-0' });
    const ack = await a.next((f) => f.channel === 'subscriptionResponse');
    expect((ack.data as { resume: string }).resume).toBe('snapshot');
    a.socket.close();
  }, 20_000);
});

describe('/ws replay', () => {
  it('replays a window in live shapes with positions, a gap where the store has none, then replayComplete', async () => {
    const a = await client();
    // 40 s before the first stored fill (T0 + 1 s) to T0 + 8 s, at 500×: ~100 ms.
    const start = T0 - 39_000;
    const end = T0 + 8_000;
    const began = Date.now();
    subscribe(a.socket, { type: 'replay', stream: { type: 'userFills', user: ALICE }, start, end, speed: 500 });
    const done = await a.next((f) => f.channel === 'replayComplete');
    const elapsed = Date.now() - began;
    const frames = a.frames.filter((f) => f.channel === 'userFills' || f.channel === 'gap');
    // The hole before the fills' coverage, then the fills of blocks 1-7 (block 4 has none of ALICE's).
    expect(frames[0]).toEqual({ channel: 'gap', data: { from: start, to: T0 + 1000 } });
    const { rows } = await db.pool.query<{ tid: number }>(
      `SELECT tid FROM accounts.fills WHERE address = $1 AND time >= $2 AND time < $3 ORDER BY block_number, event_index`,
      [ALICE, start, end],
    );
    expect(tidsOf(frames.slice(1))).toEqual(rows.map((r) => r.tid));
    expect(frames.slice(1).every((f) => typeof f.position === 'string')).toBe(true);
    expect(done.data).toEqual({ start, end, frames: 6 });
    // Paced: 47 s of data at 500× is 94 ms at least.
    expect(elapsed).toBeGreaterThanOrEqual(90);
    a.socket.close();
  }, 20_000);

  it('refuses a bad window or speed, naming the field', async () => {
    const a = await client();
    const stream = { type: 'userFills', user: ALICE };
    const cases: [Record<string, unknown>, string][] = [
      [{ stream, start: T0, end: T0 + 1000, speed: 0 }, 'speed: must be a number from 1 to 500'],
      [{ stream, start: T0, end: T0 + 1000, speed: 501 }, 'speed: must be a number from 1 to 500'],
      [{ stream, start: T0, end: T0, speed: 1 }, 'end: must be after start'],
      [{ stream, start: T0, end: T0 + 24 * 3_600_000 + 1, speed: 1 }, 'end: at most 24 h after start'],
      [{ stream: { type: 'bbo', coin: 'BTC' }, start: T0, end: T0 + 1000, speed: 1 }, 'stream: must be'],
      [{ stream: { type: 'userFills' }, start: T0, end: T0 + 1000, speed: 1 }, 'stream.user'],
      [{ stream, start: 'now', end: T0 + 1000, speed: 1 }, 'start: must be a time'],
    ];
    for (const [sub, message] of cases) {
      subscribe(a.socket, { type: 'replay', ...sub });
      const err = await a.next((f) => f.channel === 'error');
      expect(err.data).toContain(message);
    }
    // The edges that pass: speed 1 and 500, a window of exactly 24 h.
    subscribe(a.socket, { type: 'replay', stream, start: T0, end: T0 + 24 * 3_600_000, speed: 500 });
    const ack = await a.next((f) => f.channel === 'subscriptionResponse');
    expect((ack.data as { subscription: { speed: number } }).subscription.speed).toBe(500);
    a.socket.close();
  }, 20_000);
});
