// The L1 block grid: block i is due at start + i/blocksPerSecond plus a seeded jitter, so block times and
// numbers are a pure function of (seed, start) whether a block is written as history or in real time.
import { isoNs } from '../files.ts';
import type { BlockEvents } from './events.ts';
import { Rng } from './rng.ts';

const CLOCK_STREAM = 6;
/** Block numbers count blocks since this instant, so a later start never reuses lower numbers. */
const BLOCK_EPOCH = Date.UTC(2023, 0, 1);

/**
 * A coarser grid for a history's lean part: a lean block carries a tenth of a fill on average at 5 blocks a second,
 * and producing the empty ones was most of the time a week of history took to compute. Its blocks are 1 s apart up
 * to `untilMs`, then the grid goes on at the timeline's rate.
 */
export interface LeanGrid {
  untilMs: number;
  blocksPerSecond: number;
}

/** Where each block of a timeline is due (jitter aside), and its number: a pure function of the timeline. */
export class BlockGrid {
  readonly firstNumber: number;
  readonly intervalMs: number;
  /** Blocks of the lean part (0: none), and when the regular grid starts after them. */
  readonly leanBlocks: number;
  private readonly leanIntervalMs: number;
  private readonly regularFromMs: number;

  constructor(
    readonly startMs: number,
    private readonly blocksPerSecond: number,
    lean?: LeanGrid,
  ) {
    this.intervalMs = 1000 / blocksPerSecond;
    this.firstNumber = firstBlockNumber(startMs, blocksPerSecond);
    this.leanIntervalMs = lean ? 1000 / lean.blocksPerSecond : this.intervalMs;
    this.leanBlocks = lean ? Math.max(0, Math.ceil((lean.untilMs - startMs) / this.leanIntervalMs)) : 0;
    this.regularFromMs = startMs + this.leanBlocks * this.leanIntervalMs;
  }

  /** Due time of the block at `index` (0: the first), before jitter. */
  dueMs(index: number): number {
    if (index < this.leanBlocks) return this.startMs + Math.floor(index * this.leanIntervalMs);
    return this.regularFromMs + Math.floor((index - this.leanBlocks) * this.intervalMs);
  }

  /** Interval of the block at `index`: its jitter stays under half of it. */
  intervalAt(index: number): number {
    return index < this.leanBlocks ? this.leanIntervalMs : this.intervalMs;
  }

  /** Number of the first block due at or after `timeMs` (jitter aside). */
  numberAt(timeMs: number): number {
    if (timeMs < this.regularFromMs) {
      return this.firstNumber + Math.max(0, Math.ceil((timeMs - this.startMs) / this.leanIntervalMs));
    }
    return (
      this.firstNumber + this.leanBlocks + Math.ceil(((timeMs - this.regularFromMs) * this.blocksPerSecond) / 1000)
    );
  }

  /** Number of the first block of the regular grid (the end of the lean part). */
  get regularFromNumber(): number {
    return this.firstNumber + this.leanBlocks;
  }
}

export class BlockClock {
  readonly startMs: number;
  readonly firstNumber: number;
  private readonly grid: BlockGrid;
  private readonly rng: Rng;
  private readonly iso = new IsoFormatter();
  private readonly localIso = new IsoFormatter();
  private index = 0;
  /** Time of the next block (already drawn). */
  nextTimeMs: number;
  private nextNs: number;

  constructor(grid: BlockGrid, seed: number) {
    this.grid = grid;
    this.startMs = grid.startMs;
    this.firstNumber = grid.firstNumber;
    this.rng = new Rng(seed, CLOCK_STREAM);
    this.nextTimeMs = 0;
    this.nextNs = 0;
    this.draw();
  }

  /** Stamps `ev` as the next block and draws the one after. */
  advance(ev: BlockEvents): void {
    ev.blockNumber = this.firstNumber + this.index;
    ev.timeMs = this.nextTimeMs;
    ev.iso = this.iso.format(this.nextTimeMs, this.nextNs);
    // The node writes a block shortly after it is committed.
    const latencyUs = 15_000 + this.rng.int(135_000);
    const localUs = this.nextTimeMs * 1000 + Math.floor(this.nextNs / 1000) + latencyUs;
    ev.localIso = this.localIso.format(Math.floor(localUs / 1000), (localUs % 1000) * 1000 + this.rng.int(1000));
    this.index++;
    this.draw();
  }

  private draw(): void {
    const base = this.grid.dueMs(this.index);
    // Jitter stays under half an interval so block times strictly increase.
    this.nextTimeMs = base + this.rng.int(Math.max(1, Math.floor(this.grid.intervalAt(this.index) / 2)));
    this.nextNs = this.rng.int(1_000_000);
  }
}

function firstBlockNumber(startMs: number, blocksPerSecond: number): number {
  return Math.max(1, Math.floor((startMs - BLOCK_EPOCH) / (1000 / blocksPerSecond)));
}

/** isoNs with the date-and-minute part cached per minute: the hot path of every block. */
export class IsoFormatter {
  private minute = Number.NaN;
  private prefix = '';

  format(timeMs: number, extraNs: number): string {
    const minute = Math.floor(timeMs / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.prefix = isoNs(minute * 60_000).slice(0, 17);
    }
    const inMinute = timeMs - minute * 60_000;
    const second = Math.floor(inMinute / 1000);
    const ms = inMinute - second * 1000;
    return `${this.prefix}${second < 10 ? '0' : ''}${second}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}${String(extraNs).padStart(6, '0')}`;
  }
}
