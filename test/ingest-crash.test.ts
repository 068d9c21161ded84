// A crash at any point followed by a restart loads every row exactly once: the real CLI, killed with -9 while
// it loads, then run again to the end. With a JetStream bus, it also publishes every event exactly once.
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openJetStreamBus } from '../events/jetstream.ts';
import { runCli, startCli, waitCli } from './cli.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { legacyLines, relayLines, streamingLines } from './layouts.ts';
import { T0, tempDataDir, writeSyntheticFills } from './node-files.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

async function loadedFills(): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts.fills');
  return rows[0]?.n ?? 0;
}

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const natsUp = await connect({ servers: NATS_URL, timeout: 1000, reconnect: false }).then(
  (nc) => nc.close().then(() => true),
  () => false,
);

describe('ingest after kill -9', () => {
  it('loads every fill exactly once across two crashes and a restart', async () => {
    await crashTwiceThenFinish({ DATABASE_URL: db.url });
  });

  it('loads every fill once from streaming files (a block over many lines), whatever line the crashes fall on', async () => {
    await db.pool.query('TRUNCATE accounts.fills, markets.trades, platform.ingest_checkpoints');
    // One event a line, as the node's streaming files hold them: 20 lines a block.
    await crashTwiceThenFinish({ DATABASE_URL: db.url }, (dir) =>
      relayLines(dir, 'node_fills_by_block', streamingLines),
    );
  });

  it('loads every fill once from the legacy node_fills lines (a block is the lines of one time)', async () => {
    await db.pool.query('TRUNCATE accounts.fills, markets.trades, platform.ingest_checkpoints');
    await crashTwiceThenFinish({ DATABASE_URL: db.url }, (dir) =>
      relayLines(dir, 'node_fills_by_block', legacyLines, 'node_fills'),
    );
  });

  it.skipIf(!natsUp)('publishes every fill exactly once on a JetStream bus across the same crashes', async () => {
    // Skipped without a NATS server at TEST_NATS_URL (default nats://127.0.0.1:4222).
    const stream = `HLTEST_CRASH_${process.pid}_${Date.now().toString(36)}`;
    const follower = await openJetStreamBus({ url: NATS_URL, stream, prefix: stream.toLowerCase() });
    const seen = new Map<string, number>();
    follower.subscribe('fills', (rows) => {
      for (const r of rows) seen.set(`${r.tid} ${r.address}`, (seen.get(`${r.tid} ${r.address}`) ?? 0) + 1);
    });
    try {
      await db.pool.query('TRUNCATE accounts.fills, markets.trades, platform.ingest_checkpoints');
      // The bus publishes only what its retention keeps, by the clock: the fills are dated from it (the 3 hours before this one),
      // and a retention of 30 days keeps them all.
      const total = await crashTwiceThenFinish(
        { DATABASE_URL: db.url, NATS_URL, NATS_STREAM: stream, BUS_RETENTION: '30d' },
        undefined,
        (Math.floor(Date.now() / 3_600_000) - 3) * 3_600_000,
      );
      const deadline = Date.now() + 30_000;
      while (seen.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(seen.size).toBe(total);
      expect([...seen.values()].filter((n) => n !== 1)).toEqual([]);
    } finally {
      await follower.close();
      const nc = await connect({ servers: NATS_URL, reconnect: false });
      await (await nc.jetstreamManager()).streams.delete(stream).catch(() => {});
      await nc.close();
    }
  });
});

/** Ingests synthetic fills (from `start`, T0 by default) with the CLI, killed twice part-way, then run to the end; checks the tables; the total. */
async function crashTwiceThenFinish(
  env: Record<string, string>,
  relay?: (dataDir: string) => Promise<string>,
  start?: number,
): Promise<number> {
  const dataDir = await tempDataDir();
  const total = await writeSyntheticFills(dataDir, {
    hours: 3,
    blocksPerHour: 200,
    fillsPerBlock: 20,
    ...(start === undefined ? {} : { start }),
  });
  // The layout the lines are re-laid in: its directory, in the checkpoint's file name (none: by-block).
  const dir = relay ? `${await relay(dataDir)}/` : '';
  const args = ['--data-dir', dataDir, '--streams', 'node_fills_by_block', '--batch-rows', '400'];

  const killPoints = [total * 0.2, total * 0.6];
  for (const point of killPoints) {
    const child = startCli('ingest/cli.ts', args, env);
    const done = waitCli(child);
    const deadline = Date.now() + 60_000;
    while ((await loadedFills()) < point && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGKILL');
    const result = await done;
    expect(result.signal).toBe('SIGKILL');
    // The checkpoint sits at a block boundary: after a whole number of blocks of 20 lines each (1 line by-block).
    const at = await db.pool.query<{ line_no: number }>('SELECT line_no FROM platform.ingest_checkpoints');
    expect((at.rows[0]?.line_no ?? 0) % (relay ? 20 : 1)).toBe(0);
  }
  const partial = await loadedFills();
  expect(partial).toBeGreaterThan(0);
  expect(partial).toBeLessThan(total);

  const finish = await runCli('ingest/cli.ts', args, env);
  expect(finish.code).toBe(0);
  expect(await loadedFills()).toBe(total);
  const { rows } = await db.pool.query(
    'SELECT count(*)::int AS n FROM (SELECT DISTINCT block_number, tid, address FROM accounts.fills) d',
  );
  expect(rows[0].n).toBe(total);
  // Every block whole: its fills numbered 0..n-1 in one load (20 a block; a legacy block is all fills of one time).
  const split = await db.pool.query(
    `SELECT time FROM accounts.fills GROUP BY block_number, time
     HAVING count(*) <> 20 OR max(event_index) <> 19 OR count(DISTINCT event_index) <> 20`,
  );
  expect(split.rows).toEqual([]);
  const trades = await db.pool.query('SELECT count(*)::int AS n, count(DISTINCT tid)::int AS d FROM markets.trades');
  expect(trades.rows[0]).toEqual({ n: total / 2, d: total / 2 });
  const cp = await db.pool.query('SELECT rows_loaded, malformed, file FROM platform.ingest_checkpoints');
  // The last of the three hourly files.
  const last = new Date((start ?? T0) + 2 * 3_600_000);
  const file = `hourly/${last.toISOString().slice(0, 10).replaceAll('-', '')}/${last.getUTCHours()}`;
  expect(cp.rows).toEqual([{ rows_loaded: total + total / 2, malformed: 0, file: `${dir}${file}` }]);
  return total;
}
