// The analytics derivation following an ingest run, as `npm start` runs it (its own thread, told what ingest has
// committed), and how far its checkpoint trails ingest's committed position: the analytics section's "ingest with
// the derivation" and the scale section's mainnet window both measure it here.
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { committedUntil } from '../ingest/options.ts';
import type { Ingest } from '../ingest/pipeline.ts';
import { closeThread, startThread } from '../platform/threads.ts';
import type { StreamName } from '../wire/node-lines.ts';
import type { FromDerivationThread, ToDerivationThread } from './derivation-thread.ts';
import { percentile } from './stats.ts';

/** The streams the derivation reads (domains/analytics/writer/index.ts DERIVED_FROM): ingest's position in them. */
const DERIVED_FROM: readonly StreamName[] = ['node_fills_by_block', 'misc_events_by_block'];

export interface Lags {
  /** Wall time since ingest had committed what the derivation had derived: p50 and max, ms. */
  wallP50Ms: number;
  wallMaxMs: number;
  /** Data time between ingest's committed position and the derivation's checkpoint: p50 and max, ms. */
  dataP50Ms: number;
  dataMaxMs: number;
  samples: number;
}

export interface Followed {
  /** Ingest's time with the writer following it. */
  seconds: number;
  /** Fills the writer had derived when ingest stopped. */
  derivedDuring: number;
  /** The lags sampled while ingest ran (after `steadyFrom` of it). */
  lags: Lags;
  /** From ingest's stop until the writer has derived every fill. */
  catchUpMs: number;
  /**
   * The wall time from ingest committing `mark` (a block time, such as a top of hour) to the derivation's checkpoint
   * passing it (ms; null: no mark, or not passed).
   */
  markLagMs: number | null;
}

/**
 * Runs `ingest` into `pool` (database `url`) to its end with the analytics writer following it on its own thread,
 * sampling both every 50-100 ms. `steadyFrom`: the share of the run whose samples are left out (a derivation
 * starting behind catches up first); `mark`: a block time whose derivation is timed apart; `from`: the block time
 * the files start at (a checkpoint before it has nothing between it and the files: the data lag counts from it).
 */
export async function followIngest(
  url: string,
  pool: pg.Pool,
  ingest: Ingest,
  opts: { steadyFrom?: number; mark?: number; from?: number; timeoutMs?: number } = {},
): Promise<Followed> {
  /** Ingest's progress: wall time → every event before this block time committed. */
  const committed: [number, number][] = [];
  /** The writer's: wall time, its checkpoint, fills derived. */
  const derived: { at: number; cursor: number | null; fills: number }[] = [];
  let stopped = () => {};
  const stopping = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const thread = startThread<ToDerivationThread, FromDerivationThread>(
    new URL('./derivation-thread.ts', import.meta.url),
    { databaseUrl: url },
    (m) => {
      if (m.type === 'stopped') stopped();
      else derived.push({ at: m.at, cursor: m.progress.cursor, fills: m.progress.items });
    },
    (err) => console.error(`derivation thread: ${err.message}`),
  );
  try {
    const sample = setInterval(() => {
      const until = committedUntil(ingest.stats, DERIVED_FROM);
      if (until !== null) committed.push([Date.now(), until]);
      thread.post({ type: 'present', stats: ingest.stats });
    }, 50);
    const started = Date.now();
    await ingest.run();
    const ended = Date.now();
    clearInterval(sample);
    const { rows } = await pool.query<{ t: number }>('SELECT max(time) AS t FROM accounts.fills');
    const lastTime = Number(rows[0]?.t);
    const derivedAt = (t: number) => derived.findLast((d) => d.at <= t)?.fills ?? 0;
    thread.post({ type: 'present', stats: ingest.stats });
    const deadline = Date.now() + (opts.timeoutMs ?? 600_000);
    while (!derived.some((d) => d.cursor !== null && d.cursor > lastTime)) {
      if (Date.now() > deadline) throw new Error('the derivation did not catch up within 10 minutes');
      await sleep(50);
    }
    const caughtUp = derived.find((d) => d.cursor !== null && d.cursor > lastTime)?.at as number;
    /** When ingest had first committed every event before `t`. */
    const committedAt = (t: number) => committed.find(([, until]) => until >= t)?.[0];
    const from = started + (ended - started) * (opts.steadyFrom ?? 0);
    const wall: number[] = [];
    const data: number[] = [];
    for (const d of derived) {
      if (d.at < from || d.at > ended || d.cursor === null) continue;
      wall.push(d.at - (committedAt(d.cursor) ?? d.at));
      const position = committed.findLast(([at]) => at <= d.at)?.[1];
      if (position !== undefined) data.push(Math.max(0, position - Math.max(d.cursor, opts.from ?? d.cursor)));
    }
    wall.sort((x, y) => x - y);
    data.sort((x, y) => x - y);
    const mark = opts.mark;
    const passed = mark === undefined ? undefined : derived.find((d) => d.cursor !== null && d.cursor > mark);
    const markCommitted = mark === undefined ? undefined : committedAt(mark + 1);
    return {
      seconds: (ended - started) / 1000,
      derivedDuring: derivedAt(ended),
      lags: {
        wallP50Ms: percentile(wall, 0.5),
        wallMaxMs: wall.at(-1) ?? 0,
        dataP50Ms: percentile(data, 0.5),
        dataMaxMs: data.at(-1) ?? 0,
        samples: wall.length,
      },
      catchUpMs: caughtUp - ended,
      markLagMs: passed && markCommitted !== undefined ? passed.at - markCommitted : null,
    };
  } finally {
    await closeThread(thread, { type: 'stop' }, stopping, 30_000);
  }
}
