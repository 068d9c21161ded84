// Every layout a node writes a stream in (FORMATS.md §3), against real Postgres: a streaming block split over lines is
// one block, loaded whole and once, also when a run stops between its lines; the legacy per-event node_fills lines;
// LZ4 files of each layout; rewinds and layout changes load nothing twice.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '../events/bus.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { appendLines, compressHourlyFiles, legacyLines, streamingLines } from '../test/layouts.ts';
import { addr, block, hash, nodeFill, nodeOrder, T0, tempDataDir } from '../test/node-files.ts';
import type { FillEvent, NodeFill, StreamName } from '../wire/node-lines.ts';
import { isoNs } from './files.ts';
import { Ingest } from './pipeline.ts';

let db: TestDatabase;
let dataDir: string;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});
beforeEach(async () => {
  dataDir = await tempDataDir();
  await db.pool.query(`TRUNCATE accounts.fills, accounts.order_statuses, markets.trades,
    platform.ingest_checkpoints, platform.ingest_errors`);
});

const STREAMS: StreamName[] = ['node_fills_by_block', 'node_order_statuses_by_block'];

async function ingestOnce(opts: { follow?: boolean; batchRows?: number } = {}) {
  const ingest = new Ingest({ dataDir, pool: db.pool, streams: STREAMS, log: () => {}, ...opts });
  await ingest.run();
  return ingest;
}

/** Runs a following ingest until it has read all there is, then stops it (a run ended between two reads). */
async function followThenStop(batchRows = 1) {
  const ingest = new Ingest({ dataDir, pool: db.pool, streams: STREAMS, log: () => {}, follow: true, batchRows });
  const running = ingest.run();
  await ingest.caughtUp();
  // One more poll: whatever could be committed is.
  await new Promise((r) => setTimeout(r, 300));
  await ingest.stop();
  await running;
}

const A = addr(0xa1);
const B = addr(0xb2);
const C = addr(0xc3);

/** One matched pair of fills (taker buys from maker) at `time`, trade id `tid`. */
function match(time: number, tid: number, taker = A, maker = B): FillEvent[] {
  const common: Partial<NodeFill> = { coin: 'ETH', px: '3000.5', sz: '0.2', time, hash: hash(tid), tid };
  return [
    [taker, nodeFill({ ...common, side: 'B', oid: tid * 10, crossed: true, fee: '0.3' })],
    [maker, nodeFill({ ...common, side: 'A', oid: tid * 10 + 1, crossed: false, fee: '-0.01', dir: 'Open Short' })],
  ];
}

async function fills() {
  const { rows } = await db.pool.query<{ block_number: number; tid: number; address: string; event_index: number }>(
    'SELECT block_number, tid, address, event_index, time FROM accounts.fills ORDER BY time, event_index',
  );
  return rows;
}

/** `block:tid:event_index` of every fill loaded, in time order. */
async function keys() {
  return (await fills()).map((f) => `${f.block_number}:${f.tid}:${f.event_index}`);
}

/** The keys of block `b` holding one matched pair per trade id, in order: two fills each, numbered from 0. */
function matched(b: number, ...tids: number[]): string[] {
  return tids.flatMap((tid, i) => [`${b}:${tid}:${2 * i}`, `${b}:${tid}:${2 * i + 1}`]);
}

async function trades() {
  const { rows } = await db.pool.query(
    'SELECT block_number, seq, tid, buyer, seller, fees::text AS fees FROM markets.trades ORDER BY time, seq',
  );
  return rows;
}

async function checkpoint() {
  const { rows } = await db.pool.query(
    `SELECT file, line_no, last_block FROM platform.ingest_checkpoints WHERE stream = 'node_fills_by_block'`,
  );
  return rows[0];
}

describe('the streaming layout (--stream-with-block-info)', () => {
  it('loads a block split over consecutive lines as one block: fills in order, the pair across lines one trade', async () => {
    const b100 = block(100, T0 + 100, [...match(T0 + 100, 7), ...match(T0 + 100, 8, C, A)]);
    const b101 = block(101, T0 + 200, match(T0 + 200, 9));
    await appendLines(dataDir, 'node_fills_streaming', T0, [...streamingLines(b100), ...streamingLines(b101, 2)]);
    await ingestOnce();
    expect(await fills()).toEqual([
      { block_number: 100, tid: 7, address: A, event_index: 0, time: T0 + 100 },
      { block_number: 100, tid: 7, address: B, event_index: 1, time: T0 + 100 },
      { block_number: 100, tid: 8, address: C, event_index: 2, time: T0 + 100 },
      { block_number: 100, tid: 8, address: A, event_index: 3, time: T0 + 100 },
      { block_number: 101, tid: 9, address: A, event_index: 0, time: T0 + 200 },
      { block_number: 101, tid: 9, address: B, event_index: 1, time: T0 + 200 },
    ]);
    // 0.3 + -0.01 for each trade.
    expect(await trades()).toEqual([
      { block_number: 100, seq: 0, tid: 7, buyer: A, seller: B, fees: '0.29' },
      { block_number: 100, seq: 1, tid: 8, buyer: C, seller: A, fees: '0.29' },
      { block_number: 101, seq: 0, tid: 9, buyer: A, seller: B, fees: '0.29' },
    ]);
    // 7 lines, the last block complete once the files are read to their end (not following).
    expect(await checkpoint()).toEqual({ file: 'node_fills_streaming/hourly/20261122/7', line_no: 5, last_block: 101 });
  });

  it('keeps the checkpoint before a block whose lines are still coming; the next run loads it whole, once', async () => {
    const b100 = block(100, T0 + 100, match(T0 + 100, 7));
    const b101 = block(101, T0 + 200, [...match(T0 + 200, 8), ...match(T0 + 200, 9)]);
    const lines101 = streamingLines(b101);
    await appendLines(dataDir, 'node_fills_streaming', T0, [...streamingLines(b100), ...lines101.slice(0, 3)]);
    // Following, with a commit after every block: block 100 is committed, 101 (3 of 4 lines) waits for the next block.
    await followThenStop();
    expect((await fills()).map((f) => f.tid)).toEqual([7, 7]);
    expect(await checkpoint()).toEqual({ file: 'node_fills_streaming/hourly/20261122/7', line_no: 2, last_block: 100 });

    // The node writes the last line of 101 and block 102, in the next hour's file.
    await appendLines(dataDir, 'node_fills_streaming', T0, lines101.slice(3));
    const b102 = block(102, T0 + 3_600_000, match(T0 + 3_600_000, 10));
    await appendLines(dataDir, 'node_fills_streaming', T0 + 3_600_000, streamingLines(b102));
    await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7), ...matched(101, 8, 9), ...matched(102, 10)]);
    expect((await trades()).map((t) => t.tid)).toEqual([7, 8, 9, 10]);
  });

  it('loads a block whose lines straddle two hourly files whole, also when a run stops between the files', async () => {
    const H = T0 + 3_600_000;
    const b100 = block(100, H - 1, [...match(H - 1, 7), ...match(H - 1, 8)]);
    const lines = streamingLines(b100);
    // The node's clock passes the hour within the block: its last two lines go to the next hour's file.
    await appendLines(dataDir, 'node_fills_streaming', T0, lines.slice(0, 2));
    await appendLines(dataDir, 'node_fills_streaming', H, lines.slice(2, 3));
    await followThenStop();
    expect(await fills()).toEqual([]);
    await appendLines(dataDir, 'node_fills_streaming', H, [
      ...lines.slice(3),
      ...streamingLines(block(101, H + 100, match(H + 100, 9))),
    ]);
    await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7, 8), ...matched(101, 9)]);
    expect((await trades()).map((t) => t.tid)).toEqual([7, 8, 9]);
  });

  it('records a malformed line read inside or after an open block once, with the block, across a stop', async () => {
    const l100 = streamingLines(block(100, T0 + 100, match(T0 + 100, 7)));
    const l101 = streamingLines(block(101, T0 + 200, match(T0 + 200, 8)));
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      l100[0] as string,
      '{"not json',
      l100[1] as string,
      '{"block_number":"x"}',
      l101[0] as string,
    ]);
    await followThenStop();
    const cp = async () =>
      (await db.pool.query('SELECT line_no, last_block, malformed FROM platform.ingest_checkpoints')).rows[0];
    // Block 100 and both malformed lines committed; the checkpoint before 101's first line.
    expect(await cp()).toEqual({ line_no: 4, last_block: 100, malformed: 2 });
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      l101[1] as string,
      ...streamingLines(block(102, T0 + 300, match(T0 + 300, 9))),
    ]);
    await ingestOnce();
    expect(await cp()).toEqual({ line_no: 8, last_block: 102, malformed: 2 });
    const errors = await db.pool.query('SELECT line_no FROM platform.ingest_errors ORDER BY line_no');
    expect(errors.rows).toEqual([{ line_no: 2 }, { line_no: 4 }]);
    expect((await fills()).map((f) => f.tid)).toEqual([7, 7, 8, 8, 9, 9]);
  });

  it('drops a block cut off by a node restart and loads it once when re-emitted, with the blocks before it', async () => {
    const b100 = block(100, T0 + 100, match(T0 + 100, 7));
    const b101 = block(101, T0 + 200, match(T0 + 200, 8));
    const b102 = block(102, T0 + 300, match(T0 + 300, 9));
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      ...streamingLines(b100),
      ...streamingLines(b101),
      // The node dies after the first line of 102; it restarts from an older state and re-emits 100 to 102.
      streamingLines(b102)[0] as string,
      ...streamingLines(b100),
      ...streamingLines(b101),
      ...streamingLines(b102),
    ]);
    const ingest = await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7), ...matched(101, 8), ...matched(102, 9)]);
    expect(ingest.stats.find((s) => s.stream === 'node_fills_by_block')?.rewound).toBe(4);
  });

  it('takes lines without events inside a block as nothing more of it', async () => {
    const b100 = block(100, T0 + 100, [...match(T0 + 100, 7), ...match(T0 + 100, 8)]);
    const empty = JSON.stringify({ ...b100, events: [] });
    const lines = streamingLines(b100, 2);
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      empty,
      lines[0] as string,
      empty,
      lines[1] as string,
      empty,
      ...streamingLines(block(101, T0 + 200, match(T0 + 200, 9))),
    ]);
    await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7, 8), ...matched(101, 9)]);
  });

  it('starts a block again when the node re-emits it from its first line (no older block before it)', async () => {
    const b100 = block(100, T0 + 100, [...match(T0 + 100, 7), ...match(T0 + 100, 8)]);
    const b101 = block(101, T0 + 200, match(T0 + 200, 9));
    const lines = streamingLines(b100);
    await appendLines(dataDir, 'node_fills_streaming', T0, [...lines.slice(0, 2), ...lines, ...streamingLines(b101)]);
    await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7, 8), ...matched(101, 9)]);
  });

  it('moves from by-block to streaming files without loading the blocks a restart re-emits', async () => {
    await appendLines(dataDir, 'node_fills_by_block', T0, [
      JSON.stringify(block(100, T0 + 100, match(T0 + 100, 7))),
      JSON.stringify(block(101, T0 + 200, match(T0 + 200, 8))),
    ]);
    // Restarted with --stream-with-block-info: it re-emits 101, then goes on.
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      ...streamingLines(block(101, T0 + 200, match(T0 + 200, 8))),
      ...streamingLines(block(102, T0 + 300, match(T0 + 300, 9))),
    ]);
    await ingestOnce();
    expect((await fills()).map((f) => `${f.block_number}:${f.tid}`)).toEqual([
      '100:7',
      '100:7',
      '101:8',
      '101:8',
      '102:9',
      '102:9',
    ]);
  });

  it('takes a block cut off in a streaming file whole from the by-block file a restarted node writes it in', async () => {
    const b101 = block(101, T0 + 200, [...match(T0 + 200, 8), ...match(T0 + 200, 9)]);
    await appendLines(dataDir, 'node_fills_streaming', T0, [
      ...streamingLines(block(100, T0 + 100, match(T0 + 100, 7))),
      ...streamingLines(b101).slice(0, 2),
    ]);
    // Restarted with --batch-by-block in the next hour: 101 again, whole, then 102.
    await appendLines(dataDir, 'node_fills_by_block', T0 + 3_600_000, [
      JSON.stringify(b101),
      JSON.stringify(block(102, T0 + 3_600_000, match(T0 + 3_600_000, 10))),
    ]);
    await ingestOnce();
    expect(await keys()).toEqual([...matched(100, 7), ...matched(101, 8, 9), ...matched(102, 10)]);
  });

  it('loads order statuses from the streaming layout and LZ4 streaming files', async () => {
    const statuses = [100, 101, 102].map((oid) => ({
      time: isoNs(T0 + 100),
      user: A,
      hash: hash(oid),
      builder: null,
      status: 'open',
      order: nodeOrder({ oid }),
    }));
    await appendLines(dataDir, 'node_order_statuses_streaming', T0, streamingLines(block(100, T0 + 100, statuses)));
    await appendLines(
      dataDir,
      'node_order_statuses_streaming',
      T0 + 3_600_000,
      streamingLines(
        block(
          200,
          T0 + 3_600_000,
          statuses.map((s) => ({ ...s, status: 'canceled' })),
        ),
      ),
    );
    await compressHourlyFiles(dataDir, 'node_order_statuses_streaming');
    await ingestOnce();
    const { rows } = await db.pool.query(
      'SELECT block_number, oid, status FROM accounts.order_statuses ORDER BY block_number, oid',
    );
    expect(rows.map((r) => `${r.block_number}:${r.oid}:${r.status}`)).toEqual([
      '100:100:open',
      '100:101:open',
      '100:102:open',
      '200:100:canceled',
      '200:101:canceled',
      '200:102:canceled',
    ]);
  });
  it('publishes live-only book diffs from the tail of a streaming file, each block whole once the next one starts', async () => {
    const diff = (oid: number) => ({
      user: A,
      oid,
      coin: 'ETH',
      side: 'B',
      px: '3000.0',
      raw_book_diff: { new: { sz: '1.0' } },
    });
    const lines = (n: number) => streamingLines(block(n, T0 + n, [diff(n * 10), diff(n * 10 + 1)]));
    const write = (l: string[]) => appendLines(dataDir, 'node_raw_book_diffs_streaming', T0, l);
    // Block 100 was written whole before ingest starts, 101 half: ingest starts after 101's first line.
    await write([...lines(100), ...lines(101).slice(0, 1)]);
    const bus = new InProcessBus();
    const seen: number[] = [];
    bus.subscribe('bookDiffs', (rows) => {
      for (const r of rows) seen.push(r.oid);
    });
    const streams: StreamName[] = ['node_raw_book_diffs_by_block'];
    const ingest = new Ingest({ dataDir, pool: db.pool, bus, streams, log: () => {}, follow: true, pollMs: 20 });
    const running = ingest.run();
    try {
      await ingest.caughtUp();
      // The rest of 101 (its start was not read: not published), 102 whole, the first line of 103.
      await write([...lines(101).slice(1), ...lines(102), ...lines(103).slice(0, 1)]);
      const deadline = Date.now() + 10_000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      expect(seen).toEqual([1020, 1021]);
      // 103 is published whole once 104 starts.
      await write([...lines(103).slice(1), ...lines(104).slice(0, 1)]);
      while (seen.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toEqual([1020, 1021, 1030, 1031]);
    } finally {
      await ingest.stop();
      await running;
    }
  });
});

describe('the legacy node_fills lines (one [user, fill] a line)', () => {
  it('takes consecutive lines with the same time as one block: trades paired, block number 0', async () => {
    await appendLines(dataDir, 'node_fills', T0, [
      ...legacyLines(block(1, T0 + 100, [...match(T0 + 100, 7), ...match(T0 + 100, 8, C, A)])),
      ...legacyLines(block(2, T0 + 200, match(T0 + 200, 9))),
    ]);
    await compressHourlyFiles(dataDir, 'node_fills');
    await ingestOnce();
    expect((await fills()).map((f) => `${f.block_number}:${f.tid}:${f.address}:${f.event_index}`)).toEqual([
      `0:7:${A}:0`,
      `0:7:${B}:1`,
      `0:8:${C}:2`,
      `0:8:${A}:3`,
      `0:9:${A}:0`,
      `0:9:${B}:1`,
    ]);
    expect(await trades()).toEqual([
      { block_number: 0, seq: 0, tid: 7, buyer: A, seller: B, fees: '0.29' },
      { block_number: 0, seq: 1, tid: 8, buyer: C, seller: A, fees: '0.29' },
      { block_number: 0, seq: 0, tid: 9, buyer: A, seller: B, fees: '0.29' },
    ]);
    // The position of a legacy line: its fills' time, negated (the lines have no block number).
    expect(await checkpoint()).toEqual({
      file: 'node_fills/hourly/20261122/7.lz4',
      line_no: 6,
      last_block: -(T0 + 200),
    });
  });

  it('resumes inside a file at a block boundary, and hands over to node_fills_by_block in the hour both hold', async () => {
    const groups = [100, 200, 300].map((dt, i) => legacyLines(block(0, T0 + dt, match(T0 + dt, 7 + i))));
    await appendLines(dataDir, 'node_fills', T0, [...(groups[0] ?? []), ...(groups[1] ?? []).slice(0, 1)]);
    await followThenStop();
    expect(await checkpoint()).toEqual({ file: 'node_fills/hourly/20261122/7', line_no: 2, last_block: -(T0 + 100) });

    await appendLines(dataDir, 'node_fills', T0, [...(groups[1] ?? []).slice(1), ...(groups[2] ?? [])]);
    // The by-block files start inside the hour: their first block is the legacy file's last one (time T0 + 300).
    await appendLines(dataDir, 'node_fills_by_block', T0, [
      JSON.stringify(block(5000, T0 + 300, match(T0 + 300, 9))),
      JSON.stringify(block(5001, T0 + 400, match(T0 + 400, 10))),
    ]);
    await ingestOnce();
    expect((await fills()).map((f) => `${f.block_number}:${f.tid}`)).toEqual([
      '0:7',
      '0:7',
      '0:8',
      '0:8',
      '0:9',
      '0:9',
      '5001:10',
      '5001:10',
    ]);
    expect(await checkpoint()).toEqual({ file: 'hourly/20261122/7', line_no: 2, last_block: 5001 });
  });
});
