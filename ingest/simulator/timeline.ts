// A data dir's simulated timeline: the parameters, start time and fill-rate schedule recorded in
// `<data dir>/.simulator.json`, so that a restart replays the same timeline and appends only the blocks each stream
// lacks (ingest checkpoints stay valid). Shared by `npm run simulate` and `npm start`.
import fs from 'node:fs';
import path from 'node:path';
import { type Config, parseDuration } from '../../platform/config.ts';
import { STREAMS, type StreamName } from '../../wire/node-lines.ts';
import { BlockGrid, type LeanGrid } from './clock.ts';
import { type BackfillLane, type FillRateChange, Simulator } from './index.ts';
import { MAINNET, type ProfileName, parseCascadeAt, parseProfile } from './profile.ts';
import { type ResumePoints, scanResumePoints } from './writer.ts';

export const MARKER = '.simulator.json';

/**
 * Fill rate of the history a fresh timeline writes before real time, and of the gap a restart fills: low, so that
 * `npm start` ingests the default 6 h of history in seconds (6 h at the live rate would be ~20× the rows).
 */
export const DEFAULT_HISTORY_FILLS_PER_SECOND = 1;

/**
 * The last stretch of history before real time is written at the live rate, so a newcomer finds recent trades,
 * fills and one-minute candles of a lively market at once.
 */
export const LIVELY_LEAD_MS = 5 * 60_000;

/**
 * Fill rate of a long history's lean part (the blocks before its detailed last hours): enough fills, funding and
 * ledger updates for every trader to have a week of round trips (~140 fills a trader a day), at half the rows.
 */
export const DEFAULT_LEAN_FILLS_PER_SECOND = 0.5;

/**
 * Blocks per second of the lean part: at 0.5 fills a second, five empty blocks a second were most of the time a
 * week took to compute; one a second holds the same fills (five times faster to produce).
 */
export const LEAN_BLOCKS_PER_SECOND = 1;

/**
 * How much of the history goes to the node data dir, which ingest follows as the present: the last hour (candles of
 * the last hour, recent trades and fills from the first answer). Everything older goes to the backfill lane
 * (`BACKFILL_DIR`), loaded apart, behind the present.
 */
export const LIVE_LANE_MS = 60 * 60_000;

/** The backfill lane's directory inside the simulator's data dir (the node's layout: `<stream>/hourly/...`). */
export const BACKFILL_DIR = 'backfill';

export const backfillDir = (dataDir: string) => path.join(dataDir, BACKFILL_DIR);

export interface TimelineParams {
  seed: number;
  users: number;
  blocksPerSecond: number;
  /** Fill rate in real time (and over the last LIVELY_LEAD_MS before it). */
  fillsPerSecond: number;
  /** Fill rate of the history and of the gap a restart fills. */
  historyFillsPerSecond: number;
  /** Fill rate of the history's lean part (default: historyFillsPerSecond). */
  leanFillsPerSecond?: number;
  /** The simulator's profile (default `default`): part of the timeline, as seed, users and block rate are. */
  profile?: ProfileName;
  /** Cascade minutes to come (mainnet profile): recorded with the timeline, so a replay has them where they were. */
  cascades?: readonly number[];
  /** Order statuses per second (mainnet profile; default its own). */
  orderStatusesPerSecond?: number;
}

/**
 * `npm start`'s timeline from the configuration (SIM_SEED, SIM_PROFILE, the SIM_*_FILLS_PER_SECOND rates, and the
 * mainnet profile's SIM_CASCADE_AT and SIM_ORDER_STATUSES_PER_SECOND).
 */
export function configuredTimeline(
  config: Pick<
    Config,
    | 'simSeed'
    | 'simFillsPerSecond'
    | 'simHistoryFillsPerSecond'
    | 'simLeanFillsPerSecond'
    | 'simProfile'
    | 'simCascadeAt'
    | 'simOrderStatusesPerSecond'
  >,
  now = Date.now(),
): TimelineParams {
  const profile = parseProfile(config.simProfile);
  const mainnet = profile === 'mainnet';
  return {
    seed: config.simSeed,
    users: mainnet ? MAINNET.traderPool : 300,
    blocksPerSecond: mainnet ? MAINNET.blocksPerSecond : 5,
    fillsPerSecond: config.simFillsPerSecond,
    historyFillsPerSecond: config.simHistoryFillsPerSecond,
    leanFillsPerSecond: config.simLeanFillsPerSecond,
    ...(mainnet
      ? {
          profile,
          cascades: parseCascadeAt(config.simCascadeAt, now, parseDuration),
          ...(config.simOrderStatusesPerSecond === undefined
            ? {}
            : { orderStatusesPerSecond: config.simOrderStatusesPerSecond }),
        }
      : {}),
  };
}

/** What identifies a timeline: the rates may change from one run to the next, these may not. */
const IDENTITY = ['seed', 'users', 'blocksPerSecond'] as const;

interface Marker {
  version: 2;
  seed: number;
  users: number;
  blocksPerSecond: number;
  startMs: number;
  /** `[fromBlock, fillsPerSecond]`, ascending: the rate of every block from `fromBlock` to the next entry. */
  fillRates: [number, number][];
  /** Blocks below it are lean (Simulator's `leanUntilBlock`); fixed when the timeline starts. Absent: none. */
  leanUntilBlock?: number;
  /** The lean part's coarser grid (Simulator's `leanGrid`). Absent: the regular grid throughout (older timelines). */
  leanGrid?: LeanGrid;
  /** The profile (absent: `default`). */
  profile?: ProfileName;
  /** Starts of the cascade minutes (ms), ascending (mainnet profile). */
  cascades?: number[];
  /**
   * `[from, until)` block ranges written to the backfill lane: a fresh timeline's history before its last
   * LIVE_LANE_MS, and each restart's gap before its last LIVE_LANE_MS. Absent: none (timelines before the lanes).
   */
  backfill?: [number, number][];
}

/** Version 1 had one rate for the whole timeline. */
interface MarkerV1 {
  version: 1;
  seed: number;
  users: number;
  blocksPerSecond: number;
  fillsPerSecond: number;
  startMs: number;
}

export interface Timeline {
  sim: Simulator;
  /** Start of the timeline (the history's first block). */
  startMs: number;
  /** Some streams already hold blocks of this timeline. */
  resuming: boolean;
  /** The fill-rate schedule, as recorded in the marker. */
  fillRates: readonly FillRateChange[];
  /** Blocks below it are written lean (0: none). */
  leanUntilBlock: number;
  /** The lean part's grid (none: the regular grid throughout). */
  leanGrid: LeanGrid | undefined;
  /** Where the backfill lane is written, and the block ranges that go there. */
  backfill: BackfillLane;
  /** The blocks of this run's history that go to the backfill lane (null: none), as `[from, until)`. */
  backfillNow: readonly [number, number] | null;
}

function readMarker(dataDir: string): Marker | null {
  const file = path.join(dataDir, MARKER);
  if (!fs.existsSync(file)) return null;
  const marker = JSON.parse(fs.readFileSync(file, 'utf8')) as Marker | MarkerV1;
  if (marker.version === 2) return marker;
  const { fillsPerSecond, ...rest } = marker;
  return { ...rest, version: 2, fillRates: [[0, fillsPerSecond]] };
}

/** Deletes the streams and the marker: the next open starts a new timeline. */
export function resetTimeline(dataDir: string): void {
  for (const s of STREAMS) fs.rmSync(path.join(dataDir, s), { recursive: true, force: true });
  fs.rmSync(backfillDir(dataDir), { recursive: true, force: true });
  fs.rmSync(path.join(dataDir, MARKER), { force: true });
}

/**
 * Opens the data dir's timeline, or starts one whose history begins `historyMs` before `now`. Refuses a data dir
 * holding another simulation's files or a real node's streams.
 *
 * A new timeline whose history is longer than `detailedMs` writes the blocks before its last `detailedMs` lean
 * (without LEAN_SKIPPED_STREAMS, at `leanFillsPerSecond`): a week of fills, funding and ledger costs a fraction of
 * a week of everything. The lean boundary is recorded with the timeline, so a restart keeps it.
 *
 * Blocks already on disk keep the rates they were written at. The blocks after them get the lean rate up to the
 * lean boundary, then `historyFillsPerSecond` up to LIVELY_LEAD_MS before `now`, then `fillsPerSecond`. The
 * schedule is recorded before any block is written, so a replay produces the same blocks byte for byte.
 */
export function openTimeline(
  dataDir: string,
  params: TimelineParams,
  historyMs: number,
  now = Date.now(),
  detailedMs = historyMs,
  /** Whether the history older than LIVE_LANE_MS goes to the backfill lane (`npm start`'s two lanes). */
  lanes = true,
): Timeline {
  fs.mkdirSync(dataDir, { recursive: true });
  let marker = readMarker(dataDir);
  if (marker) {
    const recorded = marker;
    const sameProfile = (recorded.profile ?? 'default') === (params.profile ?? 'default');
    if (!sameProfile || !IDENTITY.every((k) => recorded[k] === params[k])) {
      const { fillRates: _, ...identity } = recorded;
      throw new Error(
        `${dataDir} holds a simulation with other parameters (${JSON.stringify(identity)}); reset it (npm run simulate -- --reset) or use another SIM_DATA_DIR`,
      );
    }
  } else if (STREAMS.some((s) => fs.existsSync(path.join(dataDir, s)))) {
    throw new Error(`${dataDir} already has node streams not written by the simulator; use another SIM_DATA_DIR`);
  } else {
    const { seed, users, blocksPerSecond } = params;
    const startMs = Math.floor((now - historyMs) / 1000) * 1000;
    marker = { version: 2, seed, users, blocksPerSecond, startMs, fillRates: [] };
    if (params.profile === 'mainnet') marker.profile = 'mainnet';
    if (detailedMs < historyMs && marker.profile) {
      // The mainnet profile keeps its block grid in the lean part: only the statuses and book diffs are left out.
      marker.leanUntilBlock = new BlockGrid(startMs, blocksPerSecond).numberAt(now - detailedMs);
    } else if (detailedMs < historyMs) {
      marker.leanGrid = { untilMs: now - detailedMs, blocksPerSecond: LEAN_BLOCKS_PER_SECOND };
      marker.leanUntilBlock = new BlockGrid(startMs, blocksPerSecond, marker.leanGrid).regularFromNumber;
    }
  }
  const resumeAfter = laneResumePoints(dataDir);
  // The last block any stream holds: every block up to it was produced at the recorded rates.
  const written = Math.max(0, ...(Object.values(resumeAfter) as number[]));
  const fillRates = marker.fillRates.filter(([fromBlock]) => fromBlock <= written);
  const add = (fromBlock: number, fillsPerSecond: number) => {
    if (fillRates.at(-1)?.[1] !== fillsPerSecond) fillRates.push([fromBlock, fillsPerSecond]);
  };
  const { startMs, blocksPerSecond } = marker;
  const grid = new BlockGrid(startMs, blocksPerSecond, marker.leanGrid);
  const gapFrom = Math.max(written + 1, grid.numberAt(startMs));
  const liveFrom = Math.max(gapFrom, grid.numberAt(now - LIVELY_LEAD_MS));
  const leanUntil = marker.leanUntilBlock ?? 0;
  const detailedFrom = Math.min(liveFrom, Math.max(gapFrom, leanUntil));
  if (detailedFrom > gapFrom) add(gapFrom, params.leanFillsPerSecond ?? params.historyFillsPerSecond);
  if (liveFrom > detailedFrom) add(detailedFrom, params.historyFillsPerSecond);
  add(liveFrom, params.fillsPerSecond);
  // The history older than the last LIVE_LANE_MS goes to the backfill lane: ingest follows the present in the data
  // dir from the first second, and loads the older blocks apart.
  const backfill = (marker.backfill ?? []).filter(([from]) => from <= written);
  const laneFrom = Math.max(gapFrom, grid.numberAt(now - LIVE_LANE_MS));
  const backfillNow = lanes && laneFrom > gapFrom ? ([gapFrom, laneFrom] as [number, number]) : null;
  if (backfillNow) backfill.push(backfillNow);
  // Cascades of blocks already written stay where they were; asked ones count from the first block to write.
  const writtenUntilMs =
    written >= grid.firstNumber ? grid.dueMs(written - grid.firstNumber) : Number.NEGATIVE_INFINITY;
  const cascades = [
    ...(marker.cascades ?? []).filter((t) => t < writtenUntilMs),
    ...(params.cascades ?? []).filter((t) => t >= writtenUntilMs),
  ].sort((a, b) => a - b);
  const { cascades: _recorded, ...kept } = marker;
  marker = { ...kept, version: 2, fillRates, backfill, ...(cascades.length > 0 ? { cascades } : {}) };
  fs.writeFileSync(path.join(dataDir, MARKER), `${JSON.stringify(marker)}\n`);

  const schedule = fillRates.map(([fromBlock, fillsPerSecond]) => ({ fromBlock, fillsPerSecond }));
  const { seed, users } = marker;
  return {
    sim: new Simulator({
      dataDir,
      seed,
      ...(marker.profile ? { profile: marker.profile, cascades } : {}),
      ...(params.orderStatusesPerSecond === undefined ? {} : { orderStatusesPerSecond: params.orderStatusesPerSecond }),
      users,
      blocksPerSecond,
      fillsPerSecond: schedule[0]!.fillsPerSecond,
      rateChanges: schedule.slice(1),
      resumeAfter,
      leanUntilBlock: leanUntil,
      ...(marker.leanGrid ? { leanGrid: marker.leanGrid } : {}),
      backfill: { dir: backfillDir(dataDir), ranges: backfill },
    }),
    startMs,
    resuming: Object.keys(resumeAfter).length > 0,
    fillRates: schedule,
    leanUntilBlock: leanUntil,
    leanGrid: marker.leanGrid,
    backfill: { dir: backfillDir(dataDir), ranges: backfill },
    backfillNow,
  };
}

/** Per stream, the last block either lane holds (a block is in one lane or the other, never both). */
function laneResumePoints(dataDir: string): ResumePoints {
  const points = scanResumePoints(dataDir);
  for (const [stream, block] of Object.entries(scanResumePoints(backfillDir(dataDir))) as [StreamName, number][]) {
    points[stream] = Math.max(points[stream] ?? 0, block);
  }
  return points;
}
