// Ingest progress: a live status line on a terminal (rows/s, files, lag), plain log lines otherwise.
import type { StreamStats } from './pipeline.ts';

export interface ProgressReporter {
  stop(): void;
}

function summarize(stats: StreamStats[], elapsedS: number, lastRows: number, intervalS: number) {
  const rows = stats.reduce((n, s) => n + s.rows, 0);
  const malformed = stats.reduce((n, s) => n + s.malformed, 0);
  const files = stats.reduce((n, s) => n + s.filesDone, 0);
  const newest = Math.max(0, ...stats.map((s) => s.lastBlockTime ?? 0));
  const lag = newest ? `${((Date.now() - newest) / 1000).toFixed(1)}s` : 'n/a';
  const rate = Math.round((rows - lastRows) / intervalS);
  const text = `ingest: ${rows.toLocaleString('en-US')} rows, ${rate.toLocaleString('en-US')} rows/s, ${files} files done, lag ${lag}, ${malformed} malformed, ${elapsedS.toFixed(0)}s`;
  return { rows, text };
}

/**
 * Reports until stopped: a status line redrawn twice a second on a terminal, one line every 10 s otherwise (while
 * anything moves). `before`, when given, leads the line (the simulator's history being written, in `npm start`).
 */
export function reportProgress(
  stats: () => StreamStats[],
  out: NodeJS.WriteStream = process.stderr,
  before?: () => string,
): ProgressReporter {
  const started = Date.now();
  const tty = out.isTTY === true;
  const intervalMs = tty ? 500 : 10_000;
  let lastRows = 0;
  let lastBefore = '';
  const timer = setInterval(() => {
    const { rows, text } = summarize(stats(), (Date.now() - started) / 1000, lastRows, intervalMs / 1000);
    const lead = before?.() ?? '';
    const line = lead ? `${lead}; ${text}` : text;
    if (tty) out.write(`\r\x1b[2K${line}`);
    else if (rows !== lastRows || lead !== lastBefore) out.write(`${line}\n`);
    lastRows = rows;
    lastBefore = lead;
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const elapsed = (Date.now() - started) / 1000;
      const { text } = summarize(stats(), elapsed, 0, Math.max(elapsed, 0.001));
      out.write(`${tty ? '\r\x1b[2K' : ''}${text.replace(/rows\/s/, 'rows/s average')}\n`);
    },
  };
}
