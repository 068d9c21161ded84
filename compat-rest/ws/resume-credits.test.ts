// The /ws replay's price (access.md: 1 credit per 10 minutes of data started, charged when it starts), over the real
// stack with a key of few credits: each window charged its minutes, at the 10-minute edges, and a replay the key
// cannot pay refused with 402 insufficient credits, not charged. The credits are read from the keys' table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createKey } from '../../access/keys.ts';
import { InProcessBus } from '../../events/bus.ts';
import type { Stack } from '../../stack.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { addr, T0 } from '../../test/node-files.ts';
import { startStackWithoutNode } from '../../test/stack.ts';

const ALICE = addr(0xa11ce);
const MIN = 60_000;

let db: TestDatabase;
let stack: Stack;
let key: string;
let keyId: number;

beforeAll(async () => {
  db = await createTestDatabase();
  stack = await startStackWithoutNode(db.pool, { bus: new InProcessBus() });
  const created = await createKey(db.pool, { scope: 'data', rateLimitPerMin: 100_000, credits: 24 });
  key = created.key;
  keyId = created.record.id;
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

const credits = async () =>
  Number(
    (await db.pool.query<{ credits: string }>('SELECT credits FROM platform.api_keys WHERE id = $1', [keyId])).rows[0]
      ?.credits,
  );

describe('/ws replay credits', () => {
  it('charges the minutes of data replayed, and refuses with 402 a replay the key cannot pay', async () => {
    const socket = new WebSocket(stack.urls.ws, { headers: { authorization: `Bearer ${key}` } });
    const frames: Record<string, unknown>[] = [];
    socket.on('message', (raw) => frames.push(JSON.parse(raw.toString()) as Record<string, unknown>));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    /** Subscribes a replay of `windowMs` (at 500×, over an empty store) and returns its answer frame. */
    const replay = async (windowMs: number, i: number) => {
      const seen = frames.length;
      const start = T0 + i * 86_400_000;
      socket.send(
        JSON.stringify({
          method: 'subscribe',
          subscription: {
            type: 'replay',
            stream: { type: 'userFills', user: ALICE },
            start,
            end: start + windowMs,
            speed: 500,
          },
        }),
      );
      for (;;) {
        const frame = frames.slice(seen).find((f) => f.channel === 'subscriptionResponse' || f.channel === 'error');
        if (frame) return frame;
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      const before = await credits();
      expect(before).toBe(24);
      // 3 h: 18 credits.
      expect((await replay(180 * MIN, 0)).channel).toBe('subscriptionResponse');
      expect(await credits()).toBe(6);
      // Exactly 10 minutes: 1; a millisecond more: 2.
      expect((await replay(10 * MIN, 1)).channel).toBe('subscriptionResponse');
      expect(await credits()).toBe(5);
      expect((await replay(10 * MIN + 1, 2)).channel).toBe('subscriptionResponse');
      expect(await credits()).toBe(3);
      // 25 minutes (3 credits) leaves none; 1 ms more costs 1, which the key no longer has.
      expect((await replay(25 * MIN, 3)).channel).toBe('subscriptionResponse');
      expect(await credits()).toBe(0);
      const refused = await replay(1, 4);
      expect(refused.channel).toBe('error');
      expect(String(refused.data)).toContain('402 insufficient credits');
      expect(refused.code).toBe('insufficient_credits');
      expect(await credits()).toBe(0);
    } finally {
      socket.close();
    }
  }, 30_000);
});
