// Serving while a backfill loads (issue 28): the writer thread loads days of older node files with checkpoints of
// their own while the service answers the present. Live trades still stream, none of the backfill's reaches a live
// subscriber, a key is charged exactly (its own pool: no request fails for a connection), and a writer stopped in the
// middle of the load and started again loads every row exactly once.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { DOMAIN_WRITERS } from '../domains.ts';
import { Simulator } from '../ingest/simulator/index.ts';
import { listHourlyFiles } from '../ingest/simulator/writer.ts';
import { startWriterThread, type WriterThread } from '../ingest/writer-thread.ts';
import { tempDataDir } from './node-files.ts';
import { startTestStack, type TestStack } from './stack.ts';
import { openSocket } from './ws-client.ts';

const HOUR = 3_600_000;
/** The backfill: half a day, ending hours before the stack's own history begins. */
const BACKFILL_MS = 12 * HOUR;

let stack: TestStack;
let backfillDir: string;
let backfillEnd: number;
/** Fill events in the backfill's files: what must be loaded, once each. */
let backfillFills = 0;

beforeAll(async () => {
  // Its own history need not be long: the service live while the backfill loads (older than it, and another seed's).
  stack = await startTestStack({ historyMs: 20 * 60_000 });
  backfillDir = await tempDataDir();
  backfillEnd = Date.now() - 3 * HOUR;
  // Another node's older days (another seed): rows the stack's own history does not hold.
  const sim = new Simulator({ dataDir: backfillDir, seed: 99, fillsPerSecond: 1, blocksPerSecond: 1 });
  await sim.writeHistory(backfillEnd - BACKFILL_MS, backfillEnd);
  await sim.stop();
  for (const file of listHourlyFiles(path.join(backfillDir, 'node_fills_by_block'))) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line) backfillFills += (JSON.parse(line) as { events: unknown[] }).events.length;
    }
  }
});

afterAll(async () => {
  await stack?.close();
});

function startWriter(): WriterThread {
  const writer = startWriterThread(
    { databaseUrl: stack.db.url, writers: DOMAIN_WRITERS, backfillDir },
    stack.bus,
    (err) => {
      throw err;
    },
  );
  writer.written(Date.now());
  writer.load();
  return writer;
}

async function until(done: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const backfillRows = (writer: WriterThread) => writer.backfillStats().reduce((n, s) => n + s.rows, 0);

async function storedBackfillFills(): Promise<number> {
  const { rows } = await stack.db.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM accounts.fills WHERE time >= $1 AND time < $2',
    [backfillEnd - BACKFILL_MS - HOUR, backfillEnd + 1],
  );
  return rows[0]!.n;
}

describe('the service while a backfill loads', { timeout: 300_000 }, () => {
  it('streams live trades only, charges a key exactly, and loads every backfill row once across a stop', async () => {
    expect(backfillFills).toBeGreaterThan(20_000);
    const trades = await openSocket(stack.urls.ws);
    trades.send({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } });

    // A writer stopped in the middle of the load...
    const first = startWriter();
    await until(() => backfillRows(first) > 10_000, 'the first rows of the backfill');
    await first.stop();
    const loadedBefore = await storedBackfillFills();
    expect(loadedBefore).toBeGreaterThan(0);
    expect(loadedBefore).toBeLessThan(backfillFills);

    // ...and another taking over from its checkpoints.
    const writer = startWriter();
    await until(() => backfillRows(writer) > 0, 'the backfill to load again');
    // What follows runs while it loads.
    expect(writer.backfilled()).toBe(false);

    const { key } = await createKey(stack.db.pool, { scope: 'data', credits: 50 });
    const answers = await Promise.all(
      Array.from({ length: 80 }, () =>
        fetch(`${stack.urls.compat}/info`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify({ type: 'allMids' }),
        }).then(async (res) => ({ status: res.status, body: await res.json() })),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    expect(answers.find((a) => a.status === 200)?.body).toHaveProperty('BTC');

    // Live BTC trades while it loads, and nothing older than a minute on the live channel.
    const seen: { time: number }[] = [];
    let snapshotSkipped = false;
    const deadline = Date.now() + 20_000;
    while (seen.length < 3 && Date.now() < deadline) {
      const frame = (await Promise.race([trades.next(), new Promise((r) => setTimeout(r, 1000))])) as
        | { channel?: string; data?: { time: number }[] }
        | undefined;
      if (frame?.channel !== 'trades') continue;
      // The first frame may be the channel's snapshot of recent trades; the ones after are live.
      if (snapshotSkipped) seen.push(...(frame.data ?? []));
      snapshotSkipped = true;
    }
    trades.close();
    expect(seen.length).toBeGreaterThan(0);
    for (const t of seen) expect(t.time).toBeGreaterThan(Date.now() - 60_000);

    await until(() => writer.backfilled(), 'the backfill to complete', 200_000);
    expect(await storedBackfillFills()).toBe(backfillFills);
    await writer.stop();
  });
});
