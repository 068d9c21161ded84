// Ingest progress while it catches up with the node's files: a bar of the history read so far (from the lag at the
// first batch down to none) with rows/s and the ETA to catching up on a terminal; a line per 10 s otherwise
// (platform/progress.ts).
import { type Progress, progress } from '../platform/progress.ts';
import type { StreamStats } from './options.ts';

export interface ProgressReporter {
  stop(): void;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/**
 * `before`, when given, leads each line's figures: the simulator's history being written in the background, in
 * `npm start` (ingest then catches up with a history that is still growing).
 */
export function reportProgress(
  stats: () => StreamStats[],
  out: NodeJS.WriteStream = process.stderr,
  before?: () => string,
  /**
   * A backfill's end: the bar goes from the history's start to it, by the stream furthest behind (its streams end
   * there, not at now). Default: now, by the newest block read.
   */
  until?: number,
): ProgressReporter {
  const started = Date.now();
  let bar: Progress | null = null;
  let startLag = 0;
  const totals = () => {
    const s = stats();
    const rows = s.reduce((n, x) => n + x.rows, 0);
    const behind = s.filter((x) => !x.caughtUp).map((x) => x.lastBlockTime ?? 0);
    const newest =
      until === undefined
        ? Math.max(0, ...s.map((x) => x.lastBlockTime ?? 0))
        : behind.length
          ? Math.min(...behind)
          : until;
    const detail =
      `${fmt(rows)} rows, ${fmt(rows / Math.max((Date.now() - started) / 1000, 0.001))} rows/s, ` +
      `${s.reduce((n, x) => n + x.filesDone, 0)} files, ${s.reduce((n, x) => n + x.malformed, 0)} malformed`;
    return { rows, newest, detail };
  };
  const timer = setInterval(
    () => {
      const { newest, detail } = totals();
      if (!newest) return;
      const lag = Math.max(0, ((until ?? Date.now()) - newest) / 1000);
      if (!bar) {
        startLag = Math.max(Math.ceil(lag), 1);
        bar = progress({ label: 'ingest', total: startLag, unit: 's of history', out });
      }
      const lead = before ? `${before()}; ` : '';
      bar.update(startLag - lag, { detail: `${lead}lag ${lag.toFixed(1)} s, ${detail}` });
    },
    out.isTTY ? 250 : 1000,
  );
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const { detail } = totals();
      const summary = `caught up in ${((Date.now() - started) / 1000).toFixed(0)} s: ${detail.replace('rows/s', 'rows/s average')}`;
      if (bar) bar.stop(summary);
      else out.write(`ingest: ${summary}\n`);
    },
  };
}
