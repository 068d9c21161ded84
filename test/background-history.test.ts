// `npm start`'s simulated history is written while the service serves (ingest/simulator/background.ts) in two
// lanes: its last hour into the node data dir, which ingest follows as the present, and the older blocks into the
// backfill lane, loaded apart with checkpoints of its own and never published as live events. The servers answer
// before the older blocks exist; every row arrives once (a restart loading nothing again), and dataCoverage says how
// far it has come. The history's older part is lean: fills, funding and ledger, without order statuses.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { writeHistoryInBackground } from '../ingest/simulator/background.ts';
import { startNodeInfoServer } from '../ingest/simulator/node-info.ts';
import { backfillDir, openTimeline } from '../ingest/simulator/timeline.ts';
import { listHourlyFiles, scanResumePoints } from '../ingest/simulator/writer.ts';
import type { Stack } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { tempDataDir } from './node-files.ts';
import { startServersOverNode } from './stack.ts';

const MINUTE = 60_000;
const HISTORY_MS = 80 * MINUTE;
const CHUNK_MS = 20 * MINUTE;
const DETAILED_MS = 20 * MINUTE;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

interface Coverage {
  start: number | null;
  latest: number | null;
}

async function coverage(stack: Stack): Promise<Record<string, Coverage>> {
  const res = await fetch(`${stack.urls.compat}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'dataCoverage' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { result: { datasets: Record<string, Coverage> } };
  return body.result.datasets;
}

async function fillCounts(): Promise<{ fills: number; first: number | null }> {
  const { rows } = await db.pool.query<{ fills: number; first: number | null }>(
    'SELECT count(*)::int AS fills, min(time) AS first FROM accounts.fills',
  );
  return rows[0] as { fills: number; first: number | null };
}

/** Fill events in a data dir's files. */
function fillEvents(dir: string): number {
  let n = 0;
  for (const file of listHourlyFiles(path.join(dir, 'node_fills_by_block'))) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (line) n += (JSON.parse(line) as { events: unknown[] }).events.length;
    }
  }
  return n;
}

describe('the simulated history loaded in the background', () => {
  it('answers /info while older history is still being written, then loads every older row exactly once', async () => {
    const dataDir = await tempDataDir();
    const now = Date.now();
    const params = { seed: 5, users: 60, blocksPerSecond: 5, fillsPerSecond: 10, historyFillsPerSecond: 4 };
    const timeline = openTimeline(dataDir, { ...params, leanFillsPerSecond: 2 }, HISTORY_MS, now, DETAILED_MS);
    const { sim, startMs } = timeline;
    expect(timeline.fillRates.map((r) => r.fillsPerSecond)).toEqual([2, 4, 10]);
    const nodeInfo = await startNodeInfoServer(sim, { port: 0 });
    const bus = new InProcessBus();
    const stack = await startServersOverNode(db.pool, bus, `${nodeInfo.url}/info`);
    // The writer is held after its first chunk, so the service is looked at with most history unwritten.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let chunks = 0;
    const history = writeHistoryInBackground(sim, startMs, {
      toMs: now,
      chunkMs: CHUNK_MS,
      realtime: false,
      beforeChunk: () => (++chunks === 2 ? held : undefined),
    });
    expect(timeline.backfillNow).not.toBeNull();
    let published = 0;
    const gaps: string[] = [];
    bus.subscribe('fills', (rows) => {
      published += rows.length;
    });
    bus.subscribe('gaps', (told) => gaps.push(...told.map((g) => g.stream)));
    const ingest = new Ingest({ dataDir, pool: db.pool, bus, follow: true, pollMs: 25, log: () => {} });
    const lane = new Ingest({
      dataDir: backfillDir(dataDir),
      lane: 'backfill',
      pool: db.pool,
      bus,
      follow: true,
      pollMs: 25,
      log: () => {},
    });
    const running = Promise.all([ingest.run(), lane.run()]);
    try {
      // Mid-history: /info answers, and dataCoverage holds nothing newer than what is written.
      while (chunks < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const early = await coverage(stack);
      expect(history.progress().done).toBe(false);
      expect(history.progress().writtenUntilMs).toBeLessThanOrEqual(startMs + CHUNK_MS);
      expect(early.fills?.latest ?? startMs).toBeLessThanOrEqual(startMs + CHUNK_MS);
      expect(history.describe()).toMatch(/^history: 0\.0 of 0\.1 days written \(2\d%\)/);

      release();
      await history.done;
      expect(history.progress().done).toBe(true);
      const written = sim.stats.fills;
      expect(written).toBeGreaterThan(0);
      // Ingest has read every line written (its checkpoint committed with the rows).
      await ingest.caughtUp();
      await lane.caughtUp();
      for (const [reader, dir] of [
        [ingest, dataDir],
        [lane, backfillDir(dataDir)],
      ] as const) {
        // Every stream it reads up to its last block written (orders' coverage is checked below, not only fills').
        for (const [stream, last] of Object.entries(scanResumePoints(dir))) {
          if (!reader.stats.some((s) => s.stream === stream)) continue;
          while (reader.stats.find((s) => s.stream === stream)?.lastBlock !== last) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      }
      await ingest.stop();
      await lane.stop();
      const loaded = await fillCounts();
      // Every fill written is loaded once, the oldest ones among them; only the present's were published, and the
      // backfill's were told as a gap.
      expect(loaded.fills).toBe(written);
      expect(loaded.first).toBeLessThan(startMs + MINUTE);
      const inBackfill = fillEvents(backfillDir(dataDir));
      expect(inBackfill).toBeGreaterThan(0);
      expect(published).toBe(written - inBackfill);
      expect(gaps).toContain('backfill/node_fills_by_block');

      const late = await coverage(stack);
      expect(late.fills?.start).toBe(loaded.first);
      expect(late.fills?.latest).toBeGreaterThan(now - MINUTE);
      // The lean part has no order statuses: their coverage starts with the detailed last 20 minutes.
      expect(late.orders?.start).toBeGreaterThanOrEqual(now - DETAILED_MS - 1000);
      expect(late.orders?.start).toBeLessThan(now - DETAILED_MS + MINUTE);
    } finally {
      await sim.stop();
      await ingest.stop();
      await running;
      await stack.close();
      await nodeInfo.close();
    }

    // A restart over the same files loads no fill again (the other streams may finish what the stop cut short).
    const again = new Ingest({ dataDir, pool: db.pool, log: () => {} });
    await again.run();
    expect(again.stats.find((s) => s.stream === 'node_fills_by_block')?.rows).toBe(0);
    const laneAgain = new Ingest({ dataDir: backfillDir(dataDir), lane: 'backfill', pool: db.pool, log: () => {} });
    await laneAgain.run();
    expect(laneAgain.stats.find((s) => s.stream === 'node_fills_by_block')?.rows).toBe(0);
    expect((await fillCounts()).fills).toBe(sim.stats.fills);
  });
});
