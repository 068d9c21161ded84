// The L1 block grid: block i is due at start + i/blocksPerSecond plus a seeded jitter, so block times and
// numbers are a pure function of (seed, start) whether a block is written as history or in real time.
import { isoNs } from '../files.ts';
import type { BlockEvents } from './events.ts';
import { Rng } from './rng.ts';

const CLOCK_STREAM = 6;
/** Block numbers count blocks since this instant, so a later start never reuses lower numbers. */
const BLOCK_EPOCH = Date.UTC(2023, 0, 1);

export class BlockClock {
  readonly startMs: number;
  readonly intervalMs: number;
  readonly firstNumber: number;
  private readonly rng: Rng;
  private readonly iso = new IsoFormatter();
  private readonly localIso = new IsoFormatter();
  private index = 0;
  /** Time of the next block (already drawn). */
  nextTimeMs: number;
  private nextNs: number;

  constructor(startMs: number, blocksPerSecond: number, seed: number) {
    this.startMs = startMs;
    this.intervalMs = 1000 / blocksPerSecond;
    this.firstNumber = firstBlockNumber(startMs, blocksPerSecond);
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
    const base = this.startMs + Math.floor(this.index * this.intervalMs);
    // Jitter stays under half an interval so block times strictly increase.
    this.nextTimeMs = base + this.rng.int(Math.max(1, Math.floor(this.intervalMs / 2)));
    this.nextNs = this.rng.int(1_000_000);
  }
}

function firstBlockNumber(startMs: number, blocksPerSecond: number): number {
  return Math.max(1, Math.floor((startMs - BLOCK_EPOCH) / (1000 / blocksPerSecond)));
}

/** Number of the first block of the grid starting at `startMs` that is due at or after `timeMs` (jitter aside). */
export function blockNumberAt(startMs: number, blocksPerSecond: number, timeMs: number): number {
  const index = Math.max(0, Math.ceil(((timeMs - startMs) * blocksPerSecond) / 1000));
  return firstBlockNumber(startMs, blocksPerSecond) + index;
}

/** isoNs with the date/time part cached per second: the hot path of every block. */
export class IsoFormatter {
  private second = Number.NaN;
  private prefix = '';

  format(timeMs: number, extraNs: number): string {
    const second = Math.floor(timeMs / 1000);
    if (second !== this.second) {
      this.second = second;
      this.prefix = isoNs(second * 1000).slice(0, 20);
    }
    const ms = timeMs - second * 1000;
    return `${this.prefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}${String(extraNs).padStart(6, '0')}`;
  }
}
