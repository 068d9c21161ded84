// A user's first minute after `npm start` on an empty data dir (issue 28), with the exchange's own SDK as the client:
// from the first answer on, the market is the present (book, mids, candles of the last hour, live trades), while the
// older history loads behind it, listed in dataCoverage until it is complete; then every fill of the node files is
// stored exactly once.
import fs from 'node:fs/promises';
import path from 'node:path';
import { HttpTransport, InfoClient, SubscriptionClient, WebSocketTransport } from '@nktkas/hyperliquid';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listHourlyFiles } from '../../ingest/simulator/writer.ts';
import { ROOT, type Running, spawnRunning, stopRunning, untilReady } from '../cli.ts';
import { freePort } from '../ports.ts';

const dir = path.join(ROOT, '.data', `test-first-minute-${process.pid}`);
const MINUTE = 60_000;
let service: Running | undefined;
let compat: string;
let pgPort: string;

beforeAll(async () => {
  // Free ports are picked before the service binds them, so a test running beside it may take one first: then the
  // service stops on EADDRINUSE, and is started again on other ports over an empty data dir.
  for (let attempt = 1; ; attempt++) {
    try {
      await startService();
      return;
    } catch (err) {
      await stopRunning(service);
      await fs.rm(dir, { recursive: true, force: true });
      if (attempt >= 3 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}, 300_000);

async function startService(): Promise<void> {
  const env = { ...process.env } as Record<string, string>;
  for (const name of ['DATABASE_URL', 'HL_DATA_DIR', 'UPSTREAM_INFO_URL', 'HOST', 'ALLOW_ANONYMOUS', 'NATS_URL'])
    delete env[name];
  for (const name of ['PG_PORT', 'SIM_PORT', 'COMPAT_PORT', 'ROUTER_PORT', 'MCP_PORT'])
    env[name] = String(await freePort());
  for (const name of ['MARKETS_PORT', 'ACCOUNTS_PORT', 'HIP4_PORT', 'EVM_PORT', 'ANALYTICS_PORT'])
    env[name] = String(await freePort());
  compat = `http://127.0.0.1:${env.COMPAT_PORT}`;
  pgPort = env.PG_PORT as string;
  // Three hours: the last in the node data dir (the present), two in the backfill lane.
  Object.assign(env, {
    PG_DATA_DIR: path.join(dir, 'pg'),
    SIM_DATA_DIR: path.join(dir, 'hl'),
    SIM_HISTORY: '3h',
    SIM_DETAILED_HISTORY: '90m',
  });
  service = spawnRunning(process.execPath, ['--import', 'tsx', path.join(ROOT, 'start.ts')], {
    cwd: ROOT,
    env,
    detached: true,
  });
  await untilReady(service, 'npm start', 120_000);
}

afterAll(async () => {
  await stopRunning(service);
  await fs.rm(dir, { recursive: true, force: true });
});

async function post<T>(body: unknown): Promise<T> {
  const res = await fetch(`${compat}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

describe('the first minute after npm start', { timeout: 180_000 }, () => {
  it('answers the present from the first answer on, through the SDK: book, mids, last hour of candles, live trades', async () => {
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: compat, timeout: 10_000 }) });
    const now = Date.now();
    const book = await info.l2Book({ coin: 'BTC' });
    expect(book?.levels[0].length).toBeGreaterThan(0);
    expect(book?.levels[1].length).toBeGreaterThan(0);
    expect(book?.time).toBeGreaterThan(now - 30_000);
    const mids = await info.allMids();
    const [bid, ask] = [Number(book?.levels[0][0]?.px), Number(book?.levels[1][0]?.px)];
    expect(Number(mids.BTC)).toBeGreaterThanOrEqual(bid);
    expect(Number(mids.BTC)).toBeLessThanOrEqual(ask);
    const candles = await info.candleSnapshot({
      coin: 'BTC',
      interval: '1m',
      startTime: now - 60 * MINUTE,
      endTime: now,
    });
    expect(candles.length).toBeGreaterThanOrEqual(50);
    expect(candles.at(-1)?.t).toBeGreaterThan(now - 3 * MINUTE);
    const depth = await post<{ result: unknown }>({ type: 'currentDepth', coin: 'BTC' });
    expect(depth.result).not.toBeNull();

    // Live trades: each newer than the subscription's start (the history is never sent as live).
    const ws = new WebSocketTransport({ url: `${compat.replace('http', 'ws')}/ws`, timeout: 10_000 });
    const subs = new SubscriptionClient({ transport: ws });
    const since = Date.now();
    const seen: number[] = [];
    let snapshot = true;
    const sub = await subs.trades({ coin: 'BTC' }, (trades) => {
      // The first frame is the channel's snapshot of recent trades.
      if (!snapshot) seen.push(...trades.map((t) => t.time));
      snapshot = false;
    });
    const deadline = Date.now() + 20_000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await sub.unsubscribe();
    await ws.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const t of seen) expect(t).toBeGreaterThan(since - 5_000);
  });

  it('loads the older history behind, listed in dataCoverage until complete, every fill once', async () => {
    type Coverage = {
      result: { backfills: { lane: string; until: number }[]; datasets: { fills: { start: number } } };
    };
    // While it loads, complete coverage starts where the backfill ends (or it is complete already: a fast machine).
    const early = await post<Coverage>({ type: 'dataCoverage' });
    for (const b of early.result.backfills) {
      expect(b.lane).toBe('backfill');
      expect(early.result.datasets.fills.start).toBeGreaterThanOrEqual(b.until);
    }
    const deadline = Date.now() + 150_000;
    while (!/^history {11}loaded/m.test(service?.output() ?? '')) {
      expect(Date.now(), service?.output()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 500));
    }
    const done = await post<Coverage>({ type: 'dataCoverage' });
    expect(done.result.backfills).toEqual([]);
    expect(done.result.datasets.fills.start).toBeLessThan(Date.now() - 2.5 * 60 * MINUTE);

    // Every fill of both lanes' files stored once: compared up to a time the newest blocks have passed.
    const times: number[] = [];
    for (const lane of [path.join(dir, 'hl'), path.join(dir, 'hl', 'backfill')]) {
      for (const file of listHourlyFiles(path.join(lane, 'node_fills_by_block'))) {
        for (const line of (await fs.readFile(file, 'utf8')).split('\n')) {
          if (!line) continue;
          const block = JSON.parse(line) as { block_time: string; events: unknown[] };
          for (const _ of block.events) times.push(Date.parse(`${block.block_time.slice(0, 23)}Z`));
        }
      }
    }
    const cut = Math.max(...times) - 10_000;
    const db = new pg.Client(`postgres://postgres:postgres@127.0.0.1:${pgPort}/hyperliquid`);
    await db.connect();
    try {
      const { rows } = await db.query<{ n: number; twice: number }>(
        `SELECT count(*)::int AS n,
           (SELECT count(*)::int FROM (SELECT 1 FROM accounts.fills GROUP BY address, tid HAVING count(*) > 1) d) AS twice
         FROM accounts.fills WHERE time < $1`,
        [cut],
      );
      expect(rows[0]).toEqual({ n: times.filter((t) => t < cut).length, twice: 0 });
    } finally {
      await db.end();
    }
  });
});
