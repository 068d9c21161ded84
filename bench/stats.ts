// Summaries of measured times: percentiles of a list, and a fixed-bin latency histogram that worker threads can
// fill cheaply and post back as plain data.

/** The q-quantile (0..1) of ascending `sorted`, nearest rank; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

/** Times `fn` `runs` times one after another, after `warmup` untimed runs; returns ascending milliseconds. */
export async function timeSequential(fn: () => Promise<unknown>, warmup: number, runs: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export interface HistogramData {
  counts: Uint32Array;
  overflow: number;
  max: number;
  total: number;
}

/** 0.1 ms bins up to 60 s: per-event recording is an array increment, percentiles are exact to the bin. */
export class LatencyHistogram implements HistogramData {
  static readonly BIN_MS = 0.1;
  static readonly BINS = 600_000;
  counts: Uint32Array = new Uint32Array(LatencyHistogram.BINS);
  overflow = 0;
  max = 0;
  total = 0;

  static from(data: HistogramData): LatencyHistogram {
    const h = new LatencyHistogram();
    h.counts = data.counts;
    h.overflow = data.overflow;
    h.max = data.max;
    h.total = data.total;
    return h;
  }

  /** Adds another histogram's counts to this one. */
  merge(other: HistogramData): void {
    for (let i = 0; i < other.counts.length; i++) this.counts[i] = (this.counts[i] ?? 0) + (other.counts[i] ?? 0);
    this.overflow += other.overflow;
    this.max = Math.max(this.max, other.max);
    this.total += other.total;
  }

  add(ms: number, times = 1): void {
    // A negative delay is clock jitter between threads of one process: count it as zero.
    const bin = Math.max(0, Math.floor(ms / LatencyHistogram.BIN_MS));
    if (bin < LatencyHistogram.BINS) this.counts[bin] = (this.counts[bin] ?? 0) + times;
    else this.overflow += times;
    if (ms > this.max) this.max = ms;
    this.total += times;
  }

  /** Upper edge of the bin holding the q-quantile (ms); the maximum when it lies beyond the last bin. */
  quantile(q: number): number {
    if (this.total === 0) return Number.NaN;
    const rank = Math.max(1, Math.ceil(q * this.total));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return Math.min(this.max, (i + 1) * LatencyHistogram.BIN_MS);
    }
    return this.max;
  }
}
