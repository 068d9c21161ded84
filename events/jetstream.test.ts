// The JetStream bus against a real NATS server: the machine's (nats://127.0.0.1:4222) and, for the restart case, one
// this test starts from the nats-server binary. Each test has its own stream and subject prefix.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'nats';
import { afterAll, describe, expect, it } from 'vitest';
import type { TradeRow } from '../db/rows/markets.ts';
import { topicStream } from '../kit/live.ts';
import { CursorError } from './bus.ts';
import { type JetStreamBusOptions, openJetStreamBus } from './jetstream.ts';
import type { OpenBus } from './open.ts';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find(existsSync);

async function reachable(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

const natsUp = await reachable(NATS_URL);
if (!natsUp)
  console.warn(`SKIPPED: no NATS server at ${NATS_URL} (the JetStream bus tests need one; set TEST_NATS_URL)`);

let n = 0;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

/** A stream of this test's own; `open()` opens another bus (another instance) on it. */
function testStream(extra: Partial<JetStreamBusOptions> = {}, url = NATS_URL) {
  const id = `${process.pid}_${Date.now().toString(36)}_${n++}`;
  const opts = { url, stream: `HLTEST_${id}`, prefix: `hltest${id}`, ...extra };
  const buses: OpenBus[] = [];
  cleanups.push(async () => {
    for (const b of buses) await b.close().catch(() => {});
    const nc = await connect({ servers: url, reconnect: false }).catch(() => null);
    if (!nc) return;
    await (await nc.jetstreamManager()).streams.delete(opts.stream).catch(() => {});
    await nc.close();
  });
  return {
    opts,
    open: async () => {
      const bus = await openJetStreamBus(opts);
      buses.push(bus);
      return bus;
    },
  };
}

let tid = 1;
const trade = (coin: string, block: number, px = '100'): TradeRow => ({
  block_number: block,
  seq: 0,
  time: 1_700_000_000_000 + block,
  coin,
  side: 'B',
  px,
  sz: '1',
  hash: `0x${block.toString(16)}`,
  tid: tid++,
  buyer: '0xaa',
  seller: '0xbb',
  fees: '0',
});

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(20);
  }
}

describe.skipIf(!natsUp)('JetStream bus', () => {
  it('delivers every batch to every instance in the same order with the same seq, split by key', async () => {
    const s = testStream();
    const ingest = await s.open();
    const [a, b] = [await s.open(), await s.open()];
    const got: Record<string, [string[], number][]> = { a: [], b: [] };
    a.subscribe('trades', (rows, seq) => got.a?.push([rows.map((r) => r.coin), seq]));
    b.subscribe('trades', (rows, seq) => got.b?.push([rows.map((r) => r.coin), seq]));
    await ingest.publish('trades', [trade('BTC', 1), trade('ETH', 1), trade('BTC', 1)]);
    await ingest.publish('trades', [trade('xyz:TSLA', 2)]);
    await until(() => (got.a?.length ?? 0) >= 3 && (got.b?.length ?? 0) >= 3);
    expect(got.a).toEqual(got.b);
    expect(got.a?.map(([coins]) => coins)).toEqual([['BTC', 'BTC'], ['ETH'], ['xyz:TSLA']]);
    const seqs = got.a?.map(([, seq]) => seq) ?? [];
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    // One key's replay reads only its subject.
    const btc: string[] = [];
    await a.replay('trades', 0, (rows) => btc.push(...rows.map((r) => r.coin)), 'BTC');
    expect(btc).toEqual(['BTC', 'BTC']);
  });

  it('drops a batch published again (an ingest restart repeating a block): subscribers get it once', async () => {
    const s = testStream();
    const ingest = await s.open();
    const follower = await s.open();
    const seen: number[] = [];
    follower.subscribe('trades', (rows) => seen.push(...rows.map((r) => r.tid)));
    const block = [trade('BTC', 7), trade('BTC', 7)];
    await ingest.publish('trades', block);
    const restarted = await s.open();
    await restarted.publish('trades', block);
    await restarted.publish('trades', [trade('BTC', 8)]);
    await until(() => seen.length >= 3);
    await sleep(200);
    expect(seen).toEqual([...block.map((t) => t.tid), tid - 1]);
  });

  it('resumes a subscriber on another instance from its cursor: every event once, while events keep coming', async () => {
    const s = testStream();
    const ingest = await s.open();
    const [a, b] = [await s.open(), await s.open()];
    const streamOn = (bus: OpenBus) =>
      topicStream(bus, 'trades', (rows) => rows.filter((r) => r.coin === 'BTC').map((r) => r.tid), 'BTC');
    const onA: [number, string][] = [];
    const off = streamOn(a).subscribe((t, cursor) => onA.push([t, cursor as string]));
    for (let block = 1; block <= 5; block++) await ingest.publish('trades', [trade('BTC', block), trade('ETH', block)]);
    await until(() => onA.length >= 5);
    off();
    await a.close(); // instance A goes away
    const [, cursor] = onA[2] as [number, string];
    // Events keep being published while B reads the log.
    const publishing = (async () => {
      for (let block = 6; block <= 30; block++) await ingest.publish('trades', [trade('BTC', block)]);
    })();
    const onB: number[] = [];
    const stop = await streamOn(b).resume(cursor, (t) => onB.push(t));
    await publishing;
    const expected = [...onA.slice(3).map(([t]) => t)];
    await until(() => onB.length >= expected.length + 25);
    await sleep(200);
    stop();
    const published = onB.slice(expected.length);
    expect(onB.slice(0, expected.length)).toEqual(expected);
    expect(published).toHaveLength(25);
    expect(new Set(onB).size).toBe(onB.length);
    expect(published).toEqual([...published].sort((x, y) => x - y));
  });

  it('refuses a cursor older than what the stream keeps', async () => {
    const s = testStream({ retainMs: 1000 });
    const ingest = await s.open();
    const a = await s.open();
    const stream = topicStream(a, 'trades', (rows) => rows.map((r) => r.tid));
    const cursors: string[] = [];
    stream.subscribe((_t, cursor) => cursors.push(cursor as string));
    await ingest.publish('trades', [trade('BTC', 1)]);
    await ingest.publish('trades', [trade('BTC', 2)]);
    await until(() => cursors.length === 2);
    await sleep(1600);
    await ingest.publish('trades', [trade('BTC', 3)]);
    await expect(stream.resume(cursors[0] as string, () => {})).rejects.toThrow(CursorError);
  });
});

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe.skipIf(!NATS_SERVER)('JetStream bus across a NATS restart', () => {
  it('publisher and followers reconnect and go on from their last sequence: nothing lost, nothing twice', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nats-'));
    const port = await freePort();
    let server: ChildProcess | undefined;
    const url = `nats://127.0.0.1:${port}`;
    const startServer = async () => {
      server = spawn(NATS_SERVER as string, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], {
        stdio: 'ignore',
      });
      for (let i = 0; i < 100 && !(await reachable(url)); i++) await sleep(100);
    };
    cleanups.push(async () => {
      server?.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    await startServer();
    const s = testStream({}, url);
    const ingest = await s.open();
    const follower = await s.open();
    const seen: number[] = [];
    follower.subscribe('trades', (rows) => seen.push(...rows.map((r) => r.tid)));
    const sent: number[] = [];
    const publish = async (block: number) => {
      const t = trade('BTC', block);
      sent.push(t.tid);
      await ingest.publish('trades', [t]);
    };
    for (let block = 1; block <= 10; block++) await publish(block);
    await until(() => seen.length === 10);
    server?.kill('SIGKILL');
    await new Promise((r) => server?.once('exit', r));
    // Published while NATS is down: stored once it is back.
    const during = (async () => {
      for (let block = 11; block <= 20; block++) await publish(block);
    })();
    await sleep(500);
    await startServer();
    await during;
    for (let block = 21; block <= 30; block++) await publish(block);
    await until(() => seen.length >= 30, 20_000);
    await sleep(300);
    expect(seen).toEqual(sent);
  }, 60_000);
});
