// The default feed as `npm start` runs it (lively in real time and over the history's last minutes, quiet before),
// the timeline's fill-rate schedule across restarts (byte-identical to one run over the same schedule), and the
// CLI's rate options.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, parseDuration } from '../../platform/config.ts';
import { type BlockLine, type BookDiffEvent, type FillEvent, STREAMS } from '../../wire/node-lines.ts';
import { DEFAULT_FILLS_PER_SECOND, Simulator } from './index.ts';
import {
  backfillDir,
  configuredTimeline,
  DEFAULT_HISTORY_FILLS_PER_SECOND,
  DEFAULT_LEAN_FILLS_PER_SECOND,
  LEAN_BLOCKS_PER_SECOND,
  LIVE_LANE_MS,
  LIVELY_LEAD_MS,
  MARKER,
  openTimeline,
  type TimelineParams,
} from './timeline.ts';
import { listHourlyFiles, scanResumePoints } from './writer.ts';

const MINUTE = 60_000;
const root = path.resolve(import.meta.dirname, '../..');
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-sim-timeline-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

/** Every file of the tree, relative path → content. */
function readTree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const stream of STREAMS) {
    for (const file of listHourlyFiles(path.join(dir, stream)))
      out.set(path.relative(dir, file), fs.readFileSync(file, 'latin1'));
  }
  return out;
}

/** A timeline's files with its backfill lane's put back in front of the data dir's: one timeline again. */
function laneTree(dir: string): Map<string, string> {
  const merged = readTree(backfillDir(dir));
  for (const [file, content] of readTree(dir)) merged.set(file, (merged.get(file) ?? '') + content);
  return merged;
}

/** Block times of every line of a tree's stream files. */
function lineTimes(dir: string): number[] {
  return [...readTree(dir).values()].flatMap((content) =>
    content
      .split('\n')
      .filter(Boolean)
      .map((line) => Date.parse(`${(JSON.parse(line) as BlockLine<unknown>).block_time.slice(0, 23)}Z`)),
  );
}

function expectSameTree(actual: string, expected: string): void {
  const a = readTree(actual);
  const e = readTree(expected);
  expect([...a.keys()].sort()).toEqual([...e.keys()].sort());
  for (const [file, content] of e) expect(a.get(file) === content, file).toBe(true);
}

const parsed = new Map<string, { timeMs: number; events: unknown[] }[]>();

/** A stream's blocks (parsed once per data dir and stream: tests read them after the simulation ends). */
function blocks<E>(dir: string, stream: 'node_fills_by_block' | 'node_raw_book_diffs_by_block') {
  const key = `${dir}\0${stream}`;
  if (!parsed.has(key)) parsed.set(key, readBlocks(dir, stream));
  return parsed.get(key) as { timeMs: number; events: E[] }[];
}

function readBlocks(dir: string, stream: string) {
  return listHourlyFiles(path.join(dir, stream)).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        const b = JSON.parse(l) as BlockLine<unknown>;
        return { timeMs: Date.parse(`${b.block_time.slice(0, 23)}Z`), events: b.events };
      }),
  );
}

/** Fills, per-coin trade times and BTC book activity in [fromMs, toMs). */
function activity(dir: string, fromMs: number, toMs: number) {
  const within = (t: number) => t >= fromMs && t < toMs;
  const seconds = (toMs - fromMs) / 1000;
  const fills = blocks<FillEvent>(dir, 'node_fills_by_block').filter((b) => within(b.timeMs));
  const all = fills.flatMap((b) => b.events.map(([, f]) => f));
  const tradeTimes = (coin: string) =>
    fills.filter((b) => b.events.some(([, f]) => f.coin === coin)).map((b) => b.timeMs);
  /** Longest wait for a trade of `coin`, the window's edges included. */
  const maxGapS = (coin: string) => {
    const times = [fromMs, ...tradeTimes(coin), toMs];
    return Math.max(...times.slice(1).map((t, i) => t - times[i]!)) / 1000;
  };
  const btcDiffBlocks = blocks<BookDiffEvent>(dir, 'node_raw_book_diffs_by_block').filter(
    (b) => within(b.timeMs) && b.events.some((d) => d.coin === 'BTC'),
  ).length;
  const majors = all.filter((f) => ['BTC', 'ETH', 'SOL', 'HYPE'].includes(f.coin)).length;
  return {
    fillsPerS: all.length / seconds,
    tradesPerS: (coin: string) => tradeTimes(coin).length / seconds,
    maxGapS,
    btcBookChangesPerS: btcDiffBlocks / seconds,
    majorsShare: majors / all.length,
  };
}

/** `npm start`'s simulator parameters (start.ts) and history on the configuration's defaults. */
function startDefaults(): { params: TimelineParams; historyMs: number; detailedMs: number } {
  const saved = { ...process.env };
  for (const name of Object.keys(process.env)) if (name.startsWith('SIM_')) delete process.env[name];
  try {
    const config = loadConfig();
    return {
      params: configuredTimeline(config),
      historyMs: parseDuration(config.simHistory),
      detailedMs: parseDuration(config.simDetailedHistory),
    };
  } finally {
    process.env = saved;
  }
}

describe('the default feed', () => {
  it('is lively at the quietest hour of the day: 20+ fills/s, BTC and ETH every few seconds, BTC book changes several times a second', async () => {
    // The whole default history: hours at the history rate leave the rate controller anywhere, and the live rate
    // must not inherit that.
    // (Its lean week before the detailed last 6 h is left out: minutes of writing, and no part of the feed's life.)
    const { params, historyMs, detailedMs } = startDefaults();
    expect(historyMs).toBe(7 * 24 * 60 * MINUTE);
    expect(detailedMs).toBe(6 * 60 * MINUTE);
    expect(params.fillsPerSecond).toBe(DEFAULT_FILLS_PER_SECOND);
    expect(params.historyFillsPerSecond).toBe(DEFAULT_HISTORY_FILLS_PER_SECOND);
    expect(params.leanFillsPerSecond).toBe(DEFAULT_LEAN_FILLS_PER_SECOND);
    // The diurnal curve is lowest around 03:00 UTC (×0.65).
    const now = Date.UTC(2026, 10, 21, 3, 0, 0);
    const dir = path.join(tmpRoot, 'default');
    const { sim, startMs, fillRates } = openTimeline(dir, params, detailedMs, now, detailedMs, false);
    await sim.writeHistory(startMs, now + MINUTE);
    await sim.stop();
    expect(fillRates.map((r) => r.fillsPerSecond)).toEqual([params.historyFillsPerSecond, params.fillsPerSecond]);

    const quiet = activity(dir, startMs, now - LIVELY_LEAD_MS);
    expect(quiet.fillsPerS).toBeGreaterThan(0.3);
    expect(quiet.fillsPerS).toBeLessThan(2);

    for (const [window, fromMs, toMs] of [
      ['the history just before real time', now - LIVELY_LEAD_MS, now],
      ['the first simulated minute of real time', now, now + MINUTE],
    ] as const) {
      const live = activity(dir, fromMs, toMs);
      expect(live.fillsPerS, window).toBeGreaterThanOrEqual(20);
      for (const coin of ['BTC', 'ETH']) {
        expect(live.tradesPerS(coin), `${coin} in ${window}`).toBeGreaterThanOrEqual(0.2);
        expect(live.maxGapS(coin), `${coin} in ${window}`).toBeLessThan(10);
      }
      expect(live.btcBookChangesPerS, window).toBeGreaterThanOrEqual(2);
      expect(live.majorsShare, window).toBeGreaterThan(0.5);
    }
  });
});

describe('fill-rate schedule', () => {
  const params: TimelineParams = {
    seed: 9,
    users: 120,
    blocksPerSecond: 5,
    fillsPerSecond: 20,
    historyFillsPerSecond: 2,
  };

  it('a restart keeps the rates of the blocks on disk, fills the gap at the history rate, and matches one run over the same schedule byte for byte', async () => {
    const now1 = Date.UTC(2026, 10, 21, 14, 0, 0);
    const dir = path.join(tmpRoot, 'restart');
    const first = openTimeline(dir, params, 30 * MINUTE, now1);
    await first.sim.writeHistory(first.startMs, now1 + 2 * MINUTE);
    await first.sim.stop();
    const written = Math.max(...(Object.values(scanResumePoints(dir)) as number[]));

    // An hour later, with other rates: no reset needed, they apply to the blocks not yet written.
    const now2 = now1 + 60 * MINUTE;
    const changed = { ...params, fillsPerSecond: 30, historyFillsPerSecond: 1 };
    const second = openTimeline(dir, changed, 30 * MINUTE, now2);
    expect(second.resuming).toBe(true);
    expect(second.startMs).toBe(first.startMs);
    const rates = second.fillRates;
    expect(rates.slice(0, 2)).toEqual(first.fillRates);
    expect(rates.map((r) => r.fillsPerSecond)).toEqual([2, 20, 1, 30]);
    expect(rates[2]!.fromBlock).toBe(written + 1);
    await second.sim.writeHistory(second.startMs, now2 + MINUTE);
    await second.sim.stop();
    const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as { fillRates: number[][] };
    expect(marker.fillRates).toEqual(rates.map((r) => [r.fromBlock, r.fillsPerSecond]));

    const gap = activity(dir, now1 + 5 * MINUTE, now2 - LIVELY_LEAD_MS);
    expect(gap.fillsPerS).toBeGreaterThan(0.4);
    expect(gap.fillsPerS).toBeLessThan(2.5);
    expect(activity(dir, now2 - LIVELY_LEAD_MS, now2).fillsPerS).toBeGreaterThan(20);

    const once = path.join(tmpRoot, 'restart-once');
    const { fillsPerSecond: _, historyFillsPerSecond: __, ...identity } = params;
    const sim = new Simulator({
      dataDir: once,
      ...identity,
      fillsPerSecond: rates[0]!.fillsPerSecond,
      rateChanges: rates.slice(1),
    });
    await sim.writeHistory(first.startMs, now2 + MINUTE);
    await sim.stop();
    expectSameTree(dir, once);
  });

  it('writes the history before its last hour to the backfill lane, each block once across the lanes, also over a restart in the backfill', async () => {
    const now1 = Date.UTC(2026, 10, 21, 14, 0, 0);
    const dir = path.join(tmpRoot, 'lanes');
    const first = openTimeline(dir, params, 100 * MINUTE, now1);
    expect(first.backfillNow?.[0]).toBe(first.fillRates[0]!.fromBlock);
    // Stopped 20 minutes in (within the backfill); started again 10 minutes later.
    await first.sim.writeHistory(first.startMs, first.startMs + 20 * MINUTE);
    await first.sim.stop();
    const now2 = now1 + 10 * MINUTE;
    const second = openTimeline(dir, params, 100 * MINUTE, now2);
    expect(second.backfill.ranges).toHaveLength(2);
    await second.sim.writeHistory(second.startMs, now2);
    await second.sim.stop();

    // The backfill lane holds only blocks older than the last hour; the data dir, the last hour.
    const older = lineTimes(backfillDir(dir));
    const newer = lineTimes(dir);
    expect(older.length).toBeGreaterThan(1000);
    expect(Math.max(...older)).toBeLessThan(now2 - LIVE_LANE_MS);
    expect(Math.min(...newer)).toBeGreaterThanOrEqual(now2 - LIVE_LANE_MS - 1000);

    // Put back together, the two lanes are the timeline one run over the same schedule writes, byte for byte.
    const once = path.join(tmpRoot, 'lanes-once');
    const { fillsPerSecond: _, historyFillsPerSecond: __, ...identity } = params;
    const rates = second.fillRates;
    const sim = new Simulator({
      dataDir: once,
      ...identity,
      fillsPerSecond: rates[0]!.fillsPerSecond,
      rateChanges: rates.slice(1),
    });
    await sim.writeHistory(first.startMs, now2);
    await sim.stop();
    const merged = laneTree(dir);
    const single = readTree(once);
    expect([...merged.keys()].sort()).toEqual([...single.keys()].sort());
    for (const [file, content] of single) expect(merged.get(file) === content, file).toBe(true);
  });

  it('writes a long history lean before its detailed part, and a restart in the lean part keeps its boundary', async () => {
    const now1 = Date.UTC(2026, 10, 21, 14, 0, 0);
    const dir = path.join(tmpRoot, 'lean');
    const lean = { ...params, leanFillsPerSecond: 1 };
    const first = openTimeline(dir, lean, 60 * MINUTE, now1, 20 * MINUTE, false);
    expect(first.fillRates.map((r) => r.fillsPerSecond)).toEqual([1, 2, 20]);
    expect(first.leanUntilBlock).toBe(first.fillRates[1]!.fromBlock);
    // Stopped a quarter of an hour in, within the lean part; started again ten minutes later.
    await first.sim.writeHistory(first.startMs, first.startMs + 15 * MINUTE);
    await first.sim.stop();
    const now2 = now1 + 10 * MINUTE;
    const second = openTimeline(dir, lean, 60 * MINUTE, now2, 20 * MINUTE, false);
    expect(second.leanUntilBlock).toBe(first.leanUntilBlock);
    expect(second.fillRates.slice(0, 2)).toEqual(first.fillRates.slice(0, 2));
    await second.sim.writeHistory(second.startMs, now2);
    await second.sim.stop();

    // Fills from the first block; order statuses and book diffs only from the lean boundary on.
    const firstBlock = (stream: string) => {
      const file = listHourlyFiles(path.join(dir, stream))[0] as string;
      return (JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0] as string) as BlockLine<unknown>).block_number;
    };
    // The lean part runs on its coarser grid: 40 minutes at one block a second.
    expect(first.leanGrid?.blocksPerSecond).toBe(LEAN_BLOCKS_PER_SECOND);
    expect(firstBlock('node_fills_by_block')).toBeLessThan(first.leanUntilBlock - LEAN_BLOCKS_PER_SECOND * 60 * 30);
    for (const stream of ['node_order_statuses_by_block', 'node_raw_book_diffs_by_block']) {
      expect(firstBlock(stream), stream).toBeGreaterThanOrEqual(first.leanUntilBlock);
      expect(firstBlock(stream), stream).toBeLessThan(first.leanUntilBlock + 5 * 10);
    }

    const once = path.join(tmpRoot, 'lean-once');
    const sim = new Simulator({
      dataDir: once,
      seed: params.seed,
      users: params.users,
      blocksPerSecond: params.blocksPerSecond,
      fillsPerSecond: second.fillRates[0]!.fillsPerSecond,
      rateChanges: second.fillRates.slice(1),
      leanUntilBlock: second.leanUntilBlock,
      ...(second.leanGrid ? { leanGrid: second.leanGrid } : {}),
    });
    await sim.writeHistory(first.startMs, now2);
    await sim.stop();
    expectSameTree(dir, once);
  });

  it('resumes a version-1 timeline (one rate) with that rate for its blocks', async () => {
    const startMs = Date.UTC(2026, 10, 21, 8, 0, 0);
    const dir = path.join(tmpRoot, 'v1');
    const old = new Simulator({ dataDir: dir, seed: 9, users: 120, blocksPerSecond: 5, fillsPerSecond: 3 });
    await old.writeHistory(startMs, startMs + 20 * MINUTE);
    await old.stop();
    const v1 = { version: 1, seed: 9, users: 120, blocksPerSecond: 5, fillsPerSecond: 3, startMs };
    fs.writeFileSync(path.join(dir, MARKER), `${JSON.stringify(v1)}\n`);
    const written = Math.max(...(Object.values(scanResumePoints(dir)) as number[]));

    const now = startMs + 23 * MINUTE;
    const { sim, fillRates } = openTimeline(dir, params, 0, now);
    // Three minutes of gap, all within the lively lead.
    expect(fillRates).toEqual([
      { fromBlock: 0, fillsPerSecond: 3 },
      { fromBlock: written + 1, fillsPerSecond: 20 },
    ]);
    await sim.writeHistory(startMs, now);
    await sim.stop();

    const once = path.join(tmpRoot, 'v1-once');
    const whole = new Simulator({
      dataDir: once,
      seed: 9,
      users: 120,
      blocksPerSecond: 5,
      fillsPerSecond: 3,
      rateChanges: fillRates.slice(1),
    });
    await whole.writeHistory(startMs, now);
    await whole.stop();
    expectSameTree(dir, once);
  });

  it('refuses a data dir of another seed, users or block rate', () => {
    const dir = path.join(tmpRoot, 'identity');
    openTimeline(dir, params, MINUTE, Date.UTC(2026, 10, 21, 8, 0, 0));
    for (const other of [{ seed: 10 }, { users: 121 }, { blocksPerSecond: 4 }]) {
      expect(() => openTimeline(dir, { ...params, ...other }, MINUTE)).toThrow(
        /holds a simulation with other parameters/,
      );
    }
  });
});

describe('CLI rates', () => {
  const run = promisify(execFile);
  const cli = (dir: string, args: string[], env: Record<string, string>) =>
    run(
      process.execPath,
      ['--import', 'tsx', 'ingest/simulator/cli.ts', '--data-dir', dir, '--history', '12m', '--no-realtime', ...args],
      { cwd: root, env: { ...process.env, ...env }, timeout: 60_000 },
    );
  const recordedRates = (dir: string) =>
    (JSON.parse(fs.readFileSync(path.join(dir, MARKER), 'utf8')) as { fillRates: number[][] }).fillRates.map(
      (r) => r[1],
    );

  it('--fills-per-second and --history-fills-per-second override SIM_FILLS_PER_SECOND and the defaults', async () => {
    const flags = path.join(tmpRoot, 'cli-flags');
    await cli(flags, ['--fills-per-second', '7', '--history-fills-per-second', '0.5'], { SIM_FILLS_PER_SECOND: '9' });
    expect(recordedRates(flags)).toEqual([0.5, 7]);

    const env = path.join(tmpRoot, 'cli-env');
    const { stdout } = await cli(env, [], { SIM_FILLS_PER_SECOND: '9', SIM_HISTORY_FILLS_PER_SECOND: '' });
    expect(recordedRates(env)).toEqual([DEFAULT_HISTORY_FILLS_PER_SECOND, 9]);
    expect(stdout).toContain(`9 fills/s live (${DEFAULT_HISTORY_FILLS_PER_SECOND} in history)`);
  });
});
