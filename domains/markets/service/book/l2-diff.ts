// A coin's L2 book as changes, per block: the levels (at one aggregation, the first nLevels a side) that differ from
// the previous block's, `sz` "0" for a level gone (or pushed out of the first nLevels). One feed per coin and options
// is shared by all its followers: each block's diff is computed once and is the same object for every one of them.
import type { L2BookAnswer, L2Level } from './coin-book.ts';

/** One block's changed levels; `prevHeight` the height of the feed's previous event (or of its start). */
export interface L2DiffEvent {
  coin: string;
  time: number;
  height: number;
  prevHeight: number;
  bids: L2Level[];
  asks: L2Level[];
}

const sameLevel = (a: L2Level, b: L2Level | undefined) => b !== undefined && a.sz === b.sz && a.n === b.n;

/** The levels of `now` that `before` does not hold as they are, then those of `before` gone from `now` (sz "0"). */
export function levelChanges(before: readonly L2Level[], now: readonly L2Level[]): L2Level[] {
  const old = new Map(before.map((l) => [l.px, l]));
  const out: L2Level[] = [];
  for (const level of now) {
    if (!sameLevel(level, old.get(level.px))) out.push(level);
    old.delete(level.px);
  }
  for (const px of old.keys()) out.push({ px, sz: '0', n: 0 });
  return out;
}

/** Whether two answers show the same levels (an answer is rebuilt on any change of the book, even outside them). */
export function sameLevels(a: L2BookAnswer | null, b: L2BookAnswer | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  for (let s = 0; s < 2; s++) {
    const x = a.levels[s]!;
    const y = b.levels[s]!;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) {
      if (x[i]!.px !== y[i]!.px || !sameLevel(x[i]!, y[i])) return false;
    }
  }
  return true;
}

export class L2DiffFeed {
  private readonly listeners = new Set<(event: L2DiffEvent) => void>();
  private last: L2BookAnswer | null;
  private lastHeight: number;
  private stopChanges: (() => void) | null = null;

  constructor(
    private readonly current: () => L2BookAnswer | null,
    private readonly height: () => number,
    private readonly onChange: (listener: () => void) => () => void,
    private readonly onIdle: () => void,
  ) {
    this.last = current();
    this.lastHeight = height();
  }

  /** The book as the feed last saw it (what the next event is a diff from), with its height. */
  state(): { book: L2BookAnswer | null; height: number } {
    return { book: this.last, height: this.lastHeight };
  }

  subscribe(listener: (event: L2DiffEvent) => void): () => void {
    this.listeners.add(listener);
    this.stopChanges ??= this.onChange(() => this.step());
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      this.stopChanges?.();
      this.stopChanges = null;
      this.onIdle();
    };
  }

  private step(): void {
    const now = this.current();
    const height = this.height();
    if (!now || sameLevels(now, this.last)) {
      this.last = now ?? this.last;
      return;
    }
    const before = this.last?.levels ?? [[], []];
    const event: L2DiffEvent = {
      coin: now.coin,
      time: now.time,
      height,
      prevHeight: this.lastHeight,
      bids: levelChanges(before[0], now.levels[0]),
      asks: levelChanges(before[1], now.levels[1]),
    };
    this.last = now;
    this.lastHeight = height;
    for (const listener of this.listeners) listener(event);
  }
}
