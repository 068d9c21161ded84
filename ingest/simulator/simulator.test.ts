// The simulator's output as a node consumer sees it: byte-for-byte determinism, well-formed lines of every
// stream, paired fills and consistent positions and books, trigger/TWAP/funding/liquidation/HIP-4 lifecycles,
// resuming after a stop, and the node /info server.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BlockLine,
  type BookDiffEvent,
  type FillEvent,
  type Hip4Event,
  type MiscEvent,
  type OrderStatusEvent,
  STREAMS,
  type StreamEvents,
  type StreamName,
  type TwapStatusEvent,
  ZERO_HASH,
} from '../../wire/node-lines.ts';
import { isoNs } from '../files.ts';
import { BACKSTOP_ADDRESS, HIP3_DEX } from './catalog.ts';
import { IsoFormatter } from './clock.ts';
import { Simulator } from './index.ts';
import { startNodeInfoServer } from './node-info.ts';
import { saveGraph } from './snapshot.ts';
import { listHourlyFiles, scanResumePoints } from './writer.ts';

const T0 = Date.UTC(2026, 10, 20, 22, 30, 0);
const HOUR = 3600_000;
const ISO_NS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const HASH = /^0x[0-9a-f]{64}$/;
const DECIMAL = /^-?\d+\.\d+$/;

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-sim-test-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

async function simulate(
  name: string,
  seed: number,
  fromMs: number,
  toMs: number,
  extra: { fillsPerSecond?: number } = {},
) {
  const dataDir = path.join(tmpRoot, name);
  const sim = new Simulator({ dataDir, seed, fillsPerSecond: extra.fillsPerSecond ?? 3 });
  const stats = await sim.writeHistory(fromMs, toMs);
  await sim.stop();
  return { dataDir, stats };
}

/** Every file of the tree, relative path → content. */
function readTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const stream of STREAMS) {
    for (const file of listHourlyFiles(path.join(dir, stream)))
      out.set(path.relative(dir, file), fs.readFileSync(file, 'latin1'));
  }
  return out;
}

function readLines(dir: string, stream: StreamName): string[] {
  return listHourlyFiles(path.join(dir, stream)).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  );
}

function readBlocks<K extends StreamName>(dir: string, stream: K): BlockLine<StreamEvents[K]>[] {
  return readLines(dir, stream).map((l) => JSON.parse(l) as BlockLine<StreamEvents[K]>);
}

describe('determinism', () => {
  it('same seed and span give byte-identical files; another seed differs', async () => {
    const a = await simulate('det-a', 7, T0, T0 + 1.5 * HOUR);
    const b = await simulate('det-b', 7, T0, T0 + 1.5 * HOUR);
    const c = await simulate('det-c', 8, T0, T0 + 1.5 * HOUR);
    const treeA = readTree(a.dataDir);
    const treeB = readTree(b.dataDir);
    expect([...treeA.keys()].sort()).toEqual([...treeB.keys()].sort());
    for (const [file, content] of treeA) expect(treeB.get(file) === content, file).toBe(true);
    expect(treeA.size).toBeGreaterThan(STREAMS.length);
    const treeC = readTree(c.dataDir);
    expect(treeC.get('node_fills_by_block/hourly/20261120/22')).not.toEqual(
      treeA.get('node_fills_by_block/hourly/20261120/22'),
    );
  });

  it('the fast timestamp formatter matches isoNs', () => {
    const f = new IsoFormatter();
    for (const [ms, ns] of [
      [T0, 0],
      [T0 + 7, 999_999],
      [T0 + 59_999, 123_456],
      [T0 + 86_400_000 + 120, 5],
    ] as const) {
      expect(f.format(ms, ns)).toBe(isoNs(ms, ns));
    }
  });

  it('a stopped simulation resumes exactly where its files end', async () => {
    const first = await simulate('resume', 11, T0, T0 + HOUR);
    const sim = new Simulator({
      dataDir: first.dataDir,
      seed: 11,
      fillsPerSecond: 3,
      resumeAfter: scanResumePoints(first.dataDir),
    });
    const resumed = await sim.writeHistory(T0, T0 + 2 * HOUR);
    await sim.stop();
    expect(resumed.fills).toBeLessThan(resumed.blocks);
    const fresh = await simulate('resume-fresh', 11, T0, T0 + 2 * HOUR);
    const treeResumed = readTree(first.dataDir);
    const treeFresh = readTree(fresh.dataDir);
    expect([...treeResumed.keys()].sort()).toEqual([...treeFresh.keys()].sort());
    for (const [file, content] of treeFresh) expect(treeResumed.get(file) === content, file).toBe(true);
  });
});

describe('saved state', () => {
  it('a simulator resumed from a saved state writes what the saved one goes on to write', async () => {
    const dataDir = path.join(tmpRoot, 'saved');
    const sim = new Simulator({ dataDir, seed: 11, fillsPerSecond: 3 });
    await sim.writeHistory(T0, T0 + 20 * 60_000);
    const saved = sim.saveState();
    const copy = path.join(tmpRoot, 'saved-copy');
    fs.cpSync(dataDir, copy, { recursive: true });
    // On past 23:00: hourly funding and a new hour's files after the save.
    const after = await sim.catchUp(T0 + 45 * 60_000);
    await sim.stop();
    const resumed = Simulator.resume(saved, copy);
    const resumedAfter = await resumed.catchUp(T0 + 45 * 60_000);
    await resumed.stop();
    expect(resumedAfter.fills).toBeGreaterThan(0);
    expect(resumedAfter).toMatchObject({
      fills: after.fills,
      firstBlock: after.firstBlock,
      lastBlock: after.lastBlock,
    });
    expect(resumed.info({ type: 'vaultSummaries' })).toEqual(sim.info({ type: 'vaultSummaries' }));
    const treeSaved = readTree(dataDir);
    const treeResumed = readTree(copy);
    expect([...treeResumed.keys()].sort()).toEqual([...treeSaved.keys()].sort());
    for (const [file, content] of treeSaved) expect(treeResumed.get(file) === content, file).toBe(true);
  });

  it('catches up only from a block it wrote or resumed from', async () => {
    const sim = new Simulator({ dataDir: path.join(tmpRoot, 'fresh'), seed: 11 });
    expect(() => sim.catchUp(T0)).toThrow('catchUp: nothing written yet');
    await sim.stop();
  });

  it('refuses state holding an object of a class it does not know', () => {
    expect(() => saveGraph({ nested: [new Map([['k', new URL('http://node')]])] })).toThrow(/URL/);
    expect(() => saveGraph({ f: () => 1 })).toThrow(/function/);
  });
});

describe('hours of output', () => {
  // 22:00 → 03:30 crosses midnight (a new day directory) and five funding hours.
  const from = Date.UTC(2026, 10, 20, 22, 0, 0);
  const to = from + 5.5 * HOUR;
  let dir = '';
  let fills: BlockLine<FillEvent>[] = [];
  let statuses: BlockLine<OrderStatusEvent>[] = [];
  let diffs: BlockLine<BookDiffEvent>[] = [];
  let twaps: BlockLine<TwapStatusEvent>[] = [];
  let misc: BlockLine<MiscEvent>[] = [];

  beforeAll(async () => {
    const run = await simulate('hours', 42, from, to, { fillsPerSecond: 3 });
    dir = run.dataDir;
    fills = readBlocks(dir, 'node_fills_by_block');
    statuses = readBlocks(dir, 'node_order_statuses_by_block');
    diffs = readBlocks(dir, 'node_raw_book_diffs_by_block');
    twaps = readBlocks(dir, 'node_twap_statuses_by_block');
    misc = readBlocks(dir, 'misc_events_by_block');
  });

  it('writes every stream as canonical JSON lines with the block envelope', () => {
    const wrong: string[] = [];
    for (const stream of STREAMS) {
      const lines = readLines(dir, stream);
      expect(lines.length, stream).toBeGreaterThan(0);
      let previous = 0;
      for (const line of lines) {
        const parsed = JSON.parse(line) as BlockLine<unknown>;
        const ok =
          JSON.stringify(parsed) === line &&
          Object.keys(parsed).join() === 'local_time,block_time,block_number,events' &&
          ISO_NS.test(parsed.local_time) &&
          ISO_NS.test(parsed.block_time) &&
          parsed.local_time > parsed.block_time &&
          Number.isSafeInteger(parsed.block_number) &&
          parsed.block_number > previous &&
          parsed.events.length > 0;
        if (!ok) wrong.push(`${stream}: ${line.slice(0, 200)}`);
        previous = parsed.block_number;
      }
    }
    expect(wrong).toEqual([]);
    // Files are named by block time: the midnight crossing opens a new day directory.
    expect(listHourlyFiles(path.join(dir, 'node_fills_by_block')).map((f) => path.relative(dir, f))).toContain(
      path.join('node_fills_by_block', 'hourly', '20261121', '0'),
    );
  });

  it('fills carry the node fields and pair up by tid within a block', () => {
    let n = 0;
    const wrong: string[] = [];
    for (const b of fills) {
      const byTid = new Map<string, FillEvent[]>();
      const blockMs = Date.parse(`${b.block_time.slice(0, 23)}Z`);
      for (const event of b.events) {
        const [user, f] = event;
        const ok =
          ADDRESS.test(user) &&
          [f.px, f.sz, f.fee, f.closedPnl, f.startPosition].every((v) => DECIMAL.test(v)) &&
          HASH.test(f.hash) &&
          f.time === blockMs &&
          Number.isSafeInteger(f.oid) &&
          Number.isSafeInteger(f.tid) &&
          ['A', 'B'].includes(f.side);
        if (!ok) wrong.push(JSON.stringify(event));
        const key = `${f.coin}:${f.tid}`;
        const pair = byTid.get(key);
        if (pair) pair.push(event);
        else byTid.set(key, [event]);
        n++;
      }
      for (const [key, pair] of byTid) {
        const [first, second] = pair;
        const ok =
          pair.length === 2 &&
          first![0] !== second![0] &&
          first![1].side !== second![1].side &&
          first![1].crossed !== second![1].crossed &&
          first![1].px === second![1].px &&
          first![1].sz === second![1].sz &&
          first![1].hash === second![1].hash;
        if (!ok) wrong.push(`block ${b.block_number} ${key}: ${pair.length} fills`);
      }
    }
    expect(wrong).toEqual([]);
    expect(n).toBeGreaterThan(20_000);
    const all = fills.flatMap((b) => b.events.map((e) => e[1]));
    expect(all.some((f) => f.coin.startsWith('xyz:') && f.deployerFee !== undefined)).toBe(true);
    expect(all.some((f) => f.builder !== undefined && f.builderFee !== undefined)).toBe(true);
    expect(all.some((f) => typeof f.cloid === 'string' && /^0x[0-9a-f]{32}$/.test(f.cloid))).toBe(true);
    expect(all.some((f) => f.coin === 'PURR/USDC' && f.dir === 'Buy')).toBe(true);
    expect(all.some((f) => f.coin.startsWith('@') && f.dir === 'Sell')).toBe(true);
    expect(all.some((f) => /^#\d+$/.test(f.coin) && f.feeToken === 'USDH')).toBe(true);
    expect(all.some((f) => f.fee.startsWith('-'))).toBe(true);
  });

  it('startPosition, dir and closedPnl follow the tracked perp positions', () => {
    const positions = new Map<string, number>();
    const dirs = new Set<string>();
    const wrong: string[] = [];
    for (const b of fills) {
      for (const [user, f] of b.events) {
        if (f.dir === 'Buy' || f.dir === 'Sell') continue;
        const key = `${user} ${f.coin}`;
        const start = positions.get(key) ?? 0;
        if (Math.abs(Number(f.startPosition) - start) > 1e-9)
          wrong.push(`${key} start ${f.startPosition} tracked ${start}`);
        const next = start + (f.side === 'B' ? 1 : -1) * Number(f.sz);
        if (!f.dir.startsWith('Liquidated')) {
          const expected =
            f.side === 'B'
              ? start >= 0
                ? 'Open Long'
                : next <= 1e-12
                  ? 'Close Short'
                  : 'Short > Long'
              : start <= 0
                ? 'Open Short'
                : next >= -1e-12
                  ? 'Close Long'
                  : 'Long > Short';
          if (f.dir !== expected) wrong.push(`${key} dir ${f.dir}, expected ${expected}`);
        }
        if (f.dir.startsWith('Open') && f.closedPnl !== '0.0')
          wrong.push(`${key} opening fill with closedPnl ${f.closedPnl}`);
        dirs.add(f.dir);
        positions.set(key, Math.round(next * 1e8) / 1e8);
      }
    }
    expect(wrong).toEqual([]);
    for (const d of ['Open Long', 'Open Short', 'Close Long', 'Close Short', 'Long > Short', 'Short > Long'])
      expect(dirs).toContain(d);
  });

  it('raw book diffs are consistent with order statuses', () => {
    const book = new Map<number, number>();
    const wrong: string[] = [];
    const statusByBlock = new Map(statuses.map((b) => [b.block_number, b.events]));
    const diffByBlock = new Map(diffs.map((b) => [b.block_number, b.events]));
    const blocks = [...new Set([...statusByBlock.keys(), ...diffByBlock.keys()])].sort((a, b) => a - b);
    for (const bn of blocks) {
      const enters = new Map<number, OrderStatusEvent>();
      const leaves = new Set<number>();
      for (const s of statusByBlock.get(bn) ?? []) {
        if (!ISO_NS.test(s.time) || !(s.hash === null || HASH.test(s.hash))) wrong.push(JSON.stringify(s));
        if (
          (s.status === 'open' && !s.order.isTrigger && s.order.tif !== 'Ioc') ||
          (s.order.isTrigger && s.status === 'triggered')
        ) {
          enters.set(s.order.oid, s);
        }
        if (book.has(s.order.oid) && s.status !== 'open') leaves.add(s.order.oid);
      }
      for (const d of diffByBlock.get(bn) ?? []) {
        const diff = d.raw_book_diff;
        if (diff === 'remove') {
          if (!book.delete(d.oid)) wrong.push(`block ${bn}: remove of unknown ${d.oid}`);
          leaves.delete(d.oid);
        } else if ('new' in diff) {
          if (enters.get(d.oid)?.order.sz !== diff.new.sz)
            wrong.push(`block ${bn}: new ${d.oid} without its open status`);
          book.set(d.oid, Number(diff.new.sz));
        } else {
          if (book.get(d.oid) !== Number(diff.update.origSz))
            wrong.push(`block ${bn}: update ${d.oid} from a wrong size`);
          book.set(d.oid, Number(diff.update.newSz));
        }
      }
      // A resting order's final status (filled, canceled...) comes with its `remove` in the same block.
      for (const oid of leaves) wrong.push(`block ${bn}: ${oid} left without a remove`);
    }
    expect(wrong).toEqual([]);
    expect(book.size).toBeGreaterThan(0);
  });

  it('trigger orders go open → triggered → filled', () => {
    const history = new Map<number, OrderStatusEvent[]>();
    for (const b of statuses)
      for (const s of b.events) history.set(s.order.oid, [...(history.get(s.order.oid) ?? []), s]);
    const fired = [...history.values()].filter((h) => h.map((s) => s.status).join('>') === 'open>triggered>filled');
    expect(fired.length).toBeGreaterThan(5);
    for (const [open, triggered, filled] of fired as [OrderStatusEvent, OrderStatusEvent, OrderStatusEvent][]) {
      expect(open.order.isTrigger).toBe(true);
      expect(open.order.tif).toBeNull();
      expect(open.order.triggerCondition).toMatch(/^Price (below|above) [\d.]+$/);
      expect(['Stop Market', 'Take Profit Market']).toContain(open.order.orderType);
      expect(triggered.order.isTrigger).toBe(true);
      expect(filled.order.triggerPx).toBe('0.0');
      expect(filled.order.triggerCondition).toBe('Triggered');
      expect(filled.order.sz).toBe('0.0');
    }
  });

  it('TWAP slices have a zero hash on both sides and twapId on the owner only', () => {
    const activated = new Map<number, string>();
    const ended = new Set<number>();
    for (const b of twaps) {
      for (const t of b.events) {
        expect(t.time).toMatch(ISO_NS);
        if (t.status === 'activated') activated.set(t.twap_id, t.state.user);
        else ended.add(t.twap_id);
      }
    }
    expect(activated.size).toBeGreaterThan(0);
    expect([...ended].some((id) => activated.has(id))).toBe(true);
    let slices = 0;
    for (const b of fills) {
      for (const [user, f] of b.events) {
        if (f.twapId === null || f.twapId === undefined) continue;
        slices++;
        expect(f.hash).toBe(ZERO_HASH);
        expect(f.crossed).toBe(true);
        if (activated.has(f.twapId)) expect(activated.get(f.twapId)).toBe(user);
        const other = b.events.find(([u, g]) => g.tid === f.tid && g.coin === f.coin && u !== user);
        expect(other?.[1].hash).toBe(ZERO_HASH);
        expect(other?.[1].twapId).toBeNull();
      }
    }
    expect(slices).toBeGreaterThan(0);
  });

  it('pays funding once an hour with a zero hash', () => {
    const funding = misc.flatMap((b) => b.events.filter((e) => 'Funding' in e.inner).map((e) => ({ b, e })));
    expect(funding.length).toBe(5);
    const hours = funding.map(({ b }) => b.block_time.slice(0, 13));
    expect(new Set(hours).size).toBe(5);
    for (const { e } of funding) {
      expect(e.hash).toBe(ZERO_HASH);
      const deltas = (e.inner as { Funding: { deltas: { user: string; funding_amount: string; szi: string }[] } })
        .Funding.deltas;
      expect(deltas.length).toBeGreaterThan(10);
      expect(deltas.filter((d) => !ADDRESS.test(d.user) || !DECIMAL.test(d.funding_amount) || d.szi === '0.0')).toEqual(
        [],
      );
    }
  });

  it('liquidations show on both fills and as a ledger update of the victim', () => {
    const ledger = misc.flatMap((b) =>
      b.events.flatMap((e) =>
        'LedgerUpdate' in e.inner
          ? [{ block: b.block_number, e, lu: e.inner.LedgerUpdate as { users: string[]; delta: { type: string } } }]
          : [],
      ),
    );
    const liquidations = ledger.filter((l) => l.lu.delta.type === 'liquidation');
    expect(liquidations.length).toBeGreaterThan(0);
    for (const { block, lu } of liquidations) {
      const victim = lu.users[0]!;
      expect(lu.users).toHaveLength(1);
      const blockFills = fills.find((b) => b.block_number === block)?.events ?? [];
      const victimFills = blockFills.filter(([u, f]) => u === victim && f.liquidation?.liquidatedUser === victim);
      expect(victimFills.length).toBeGreaterThan(0);
      for (const [, f] of victimFills) {
        expect(f.dir).toMatch(/^Liquidated (Cross|Isolated) (Long|Short)$/);
        expect(typeof f.liquidation?.markPx).toBe('string');
        const counterpart = blockFills.find(([u, g]) => u !== victim && g.tid === f.tid && g.coin === f.coin);
        expect(counterpart?.[1].liquidation).toEqual(f.liquidation);
      }
    }
    const types = new Set(ledger.map((l) => l.lu.delta.type));
    for (const t of ['deposit', 'withdraw', 'send', 'spotTransfer', 'internalTransfer', 'accountClassTransfer'])
      expect(types).toContain(t);
    const send = ledger.find((l) => l.lu.delta.type === 'send' && l.lu.users.length === 2)!.lu.delta as Record<
      string,
      unknown
    >;
    expect(typeof send.sourceDex).toBe('string');
    expect(typeof send.destinationDex).toBe('string');
  });

  it('samples asset contexts and reserves every minute', () => {
    const ctxLines = readBlocks(dir, 'asset_ctxs_by_block');
    const reserveLines = readBlocks(dir, 'borrow_lend_reserves_by_block');
    // One sample per minute boundary after the first block: 5.5 h × 60 − 1.
    expect(ctxLines.length).toBe(329);
    expect(reserveLines.length).toBe(329);
    for (const b of ctxLines.slice(0, 5)) {
      expect(b.events.map((e) => e.coin)).toEqual(
        expect.arrayContaining(['BTC', 'ETH', 'SOL', 'HYPE', 'xyz:XYZ100', 'xyz:GOLD']),
      );
      for (const e of b.events) {
        expect(e.time % 60_000).toBe(0);
        expect(e.mark_px).toMatch(DECIMAL);
        expect(e.funding).toMatch(DECIMAL);
      }
    }
    for (const b of reserveLines.slice(0, 5)) {
      expect(b.events.map((e) => e.token)).toEqual([0, 150, 197, 268, 360]);
      for (const e of b.events)
        expect(Number(e.utilization)).toBeCloseTo(Number(e.totalBorrowed) / Number(e.totalSupplied), 8);
    }
  });

  it('liquidates HIP-3 positions into the dex backstop now and then', () => {
    const absorbed = fills
      .flatMap((b) => b.events)
      .filter(([user, f]) => user === BACKSTOP_ADDRESS && f.liquidation?.method === 'backstop');
    expect(absorbed.length).toBeGreaterThan(0);
    for (const [, f] of absorbed) expect(f.coin.startsWith(`${HIP3_DEX.name}:`)).toBe(true);
  });

  it('writes HyperEVM blocks with transfers, tokens and system transactions', () => {
    const evm = readBlocks(dir, 'evm_blocks_by_block').flatMap((b) => b.events);
    expect(evm.length).toBeGreaterThan(8_000);
    for (let i = 1; i < evm.length; i++) expect(evm[i]!.number).toBe(evm[i - 1]!.number + 1);
    const tokens = evm.flatMap((e) => e.tokens ?? []);
    expect(new Set(tokens.map((t) => t.address)).size).toBe(tokens.length);
    expect(tokens.map((t) => t.standard)).toContain('erc721');
    expect(tokens.filter((t) => t.standard === 'erc20').length).toBeGreaterThanOrEqual(2);
    expect(evm.some((e) => e.txs.some((t) => t.isSystem))).toBe(true);
    expect(evm.some((e) => e.backstopTransfers.some((t) => t.dex === 'xyz'))).toBe(true);
    // Principal moves on several dexes; blocks come 1 to 2 s apart.
    expect(new Set(evm.flatMap((e) => e.backstopTransfers.map((t) => t.dex))).size).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < evm.length; i++) {
      expect(evm[i]!.time - evm[i - 1]!.time).toBeGreaterThanOrEqual(1000);
      expect(evm[i]!.time - evm[i - 1]!.time).toBeLessThanOrEqual(2000 + 1000);
    }
    const txHashes = new Set(evm.flatMap((e) => e.txs.map((t) => t.hash)));
    for (const e of evm) for (const t of e.transfers) expect(txHashes.has(t.txHash)).toBe(true);
  });
});

describe('HIP-4 registry', () => {
  it('registers venues, questions and outcomes, and settles them at expiry with settlement fills', async () => {
    const run = await simulate('hip4', 5, T0, T0 + 26 * HOUR, { fillsPerSecond: 0.2 });
    const events = readBlocks(run.dataDir, 'hip4_registry_by_block').flatMap((b) => b.events) as Hip4Event[];
    const kinds = (k: string) =>
      events.filter((e) => k in e.inner).map((e) => (e.inner as Record<string, Record<string, unknown>>)[k]!);
    expect(kinds('VenueRegistered').length).toBe(3);
    const questions = kinds('QuestionRegistered');
    expect(questions.some((q) => q.venue === '')).toBe(true);
    expect(
      questions.some((q) => q.venue !== '' && String(q.description).startsWith('class:priceBucket|underlying:')),
    ).toBe(true);
    const outcomes = kinds('OutcomeRegistered');
    expect(outcomes.some((o) => o.question_id === null)).toBe(true);
    const settled = kinds('OutcomeSettled');
    expect(settled.length).toBeGreaterThan(0);
    expect(kinds('QuestionSettled').length).toBeGreaterThan(0);
    const fills = readBlocks(run.dataDir, 'node_fills_by_block').flatMap((b) => b.events.map((e) => e[1]));
    const outcomeFills = fills.filter((f) => f.coin.startsWith('#') && f.dir !== 'Settlement');
    expect(outcomeFills.length).toBeGreaterThan(0);
    for (const f of outcomeFills) expect(Number(f.px) >= 0.001 && Number(f.px) <= 0.999).toBe(true);
    // Holders of a settled outcome are paid out by a fee-free settlement fill at the side's value.
    const settledCoins = new Set(
      settled.flatMap((s) => [`#${10 * Number(s.outcome_id)}`, `#${10 * Number(s.outcome_id) + 1}`]),
    );
    const settlementFills = fills.filter((f) => f.dir === 'Settlement');
    expect(settlementFills.length).toBeGreaterThan(0);
    for (const f of settlementFills) {
      expect(settledCoins.has(f.coin)).toBe(true);
      expect(f).toMatchObject({ side: 'A', crossed: false, fee: '0.0', feeToken: 'USDH' });
      expect(['0.0', '1.0']).toContain(f.px);
    }
  });
});

describe('node /info server', () => {
  it('answers meta and clearinghouseState, and 422 for what a node refuses', async () => {
    const sim = new Simulator({ dataDir: path.join(tmpRoot, 'info'), seed: 3, fillsPerSecond: 3 });
    await sim.writeHistory(T0, T0 + HOUR);
    const server = await startNodeInfoServer(sim, { port: 0 });
    try {
      const post = (body: string) =>
        fetch(`${server.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const meta = await post('{"type":"meta"}');
      expect(meta.status).toBe(200);
      expect(meta.headers.get('content-type')).toContain('application/json');
      const metaBody = (await meta.json()) as { universe: { name: string }[]; marginTables: unknown[] };
      expect(metaBody.universe.map((u) => u.name)).toEqual(expect.arrayContaining(['BTC', 'ETH', 'SOL', 'HYPE']));
      const xyz = (await (await post('{"type":"meta","dex":"xyz"}')).json()) as { universe: { name: string }[] };
      expect(xyz.universe.map((u) => u.name)).toContain('xyz:XYZ100');

      const trader = sim.exchange.traders.find((t) => t.positions.size > 0)!;
      const ch = await post(
        JSON.stringify({ type: 'clearinghouseState', user: trader.address.toUpperCase().replace('0X', '0x') }),
      );
      expect(ch.status).toBe(200);
      const state = (await ch.json()) as {
        marginSummary: { accountValue: string };
        assetPositions: { type: string; position: { coin: string; szi: string } }[];
        time: number;
      };
      expect(state.marginSummary.accountValue).toMatch(DECIMAL);
      expect(state.assetPositions.length).toBeGreaterThan(0);
      expect(state.assetPositions[0]!.type).toBe('oneWay');
      expect(state.time).toBe(sim.currentTimeMs);

      const perpDexs = (await (await post('{"type":"perpDexs"}')).json()) as unknown[];
      expect(perpDexs[0]).toBeNull();
      expect((perpDexs[1] as { name: string }).name).toBe('xyz');

      for (const bad of [
        '{"type":"l2Book","coin":"BTC"}',
        '{"type":"nope"}',
        'not json',
        '{"type":"clearinghouseState","user":"0x12"}',
      ]) {
        const res = await post(bad);
        expect(res.status, bad).toBe(422);
        expect(res.headers.get('content-type')).toContain('text/plain');
        expect(await res.text()).toBe('Failed to deserialize the JSON body into the target type');
      }
    } finally {
      await server.close();
      await sim.stop();
    }
  });
});
