// Progress of long work (ingest catching up, the bench's data loading): a cli-progress bar with the rate and the ETA
// on a terminal; one plain line per interval otherwise (a log file, CI), so that neither floods its reader.
import cliProgress from 'cli-progress';

export interface Progress {
  /** The work done so far (of `total`), and the figures shown beside it. */
  update(done: number, fields?: { detail?: string }): void;
  /** Ends the bar (or writes the last line) with a summary. */
  stop(summary?: string): void;
}

export interface ProgressOptions {
  label: string;
  total: number;
  /** What `done` counts: "rows", "s" of lag… */
  unit: string;
  out?: NodeJS.WriteStream;
  /** Between two plain lines when not on a terminal (default 10 s). */
  intervalMs?: number;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

function seconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  return s >= 3600 ? `${(s / 3600).toFixed(1)} h` : s >= 60 ? `${(s / 60).toFixed(1)} min` : `${Math.ceil(s)} s`;
}

export function progress(opts: ProgressOptions): Progress {
  const out = opts.out ?? process.stderr;
  const started = performance.now();
  // From the first second on: a rate over a few milliseconds says nothing.
  const rate = (done: number) => done / Math.max((performance.now() - started) / 1000, 1);

  if (out.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream: out,
        format: `${opts.label} [{bar}] {percentage}% | {value}/{total} ${opts.unit} | {rate} ${opts.unit}/s | ETA {eta_formatted} {detail}`,
        formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? fmt(v) : String(v)),
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(opts.total, 0, { rate: '0', detail: '' });
    return {
      update(done, fields) {
        bar.update(Math.min(done, opts.total), { rate: fmt(rate(done)), detail: fields?.detail ?? '' });
      },
      stop(summary) {
        bar.stop();
        if (summary) out.write(`${opts.label}: ${summary}\n`);
      },
    };
  }

  const intervalMs = opts.intervalMs ?? 10_000;
  let lastLine = Number.NEGATIVE_INFINITY;
  return {
    update(done, fields) {
      const now = performance.now();
      if (now - lastLine < intervalMs) return;
      lastLine = now;
      const r = rate(done);
      const pct = opts.total > 0 ? ` (${Math.floor((100 * done) / opts.total)}%)` : '';
      const eta = r > 0 ? seconds((opts.total - done) / r) : '?';
      const detail = fields?.detail ? `, ${fields.detail}` : '';
      out.write(
        `${opts.label}: ${fmt(done)}/${fmt(opts.total)} ${opts.unit}${pct}, ${fmt(r)} ${opts.unit}/s, ETA ${eta}${detail}\n`,
      );
    },
    stop(summary) {
      if (summary) out.write(`${opts.label}: ${summary}\n`);
    },
  };
}
