// `npm start`'s simulator on a thread of its own (worker.ts): it computes the history at full speed without taking
// the servers' and ingest's thread, and reaches the present within seconds. The node /info it serves listens on that
// thread; this side follows its progress and tells when real time has started.
import fs from 'node:fs';
import path from 'node:path';
import { closeThread, startThread, type Thread } from '../../platform/threads.ts';
import { describeHistory, type HistoryProgress } from './background.ts';
import type { TimelineParams } from './timeline.ts';

export interface SimulatorThreadData {
  dataDir: string;
  params: TimelineParams;
  historyMs: number;
  detailedMs: number;
  port: number;
  host: string;
}

export type ToSimulatorThread = { type: 'stop' };

export type FromSimulatorThread =
  | {
      type: 'started';
      url: string;
      startMs: number;
      toMs: number;
      resuming: boolean;
      backfillDir: string;
      /** This run writes blocks to the backfill lane (a fresh history, or a restart's gap). */
      writesBackfill: boolean;
      /** Where what this run writes to the lane ends (null: it writes nothing there). */
      backfillUntilMs: number | null;
    }
  | { type: 'progress'; writtenUntilMs: number | null }
  /** Real time has started, `computedMs` after the thread began the history. */
  | { type: 'live'; writtenUntilMs: number | null; computedMs: number }
  | { type: 'stopped' };

export interface SimulatorThread {
  /** The simulated node's /info base URL. */
  url: string;
  startMs: number;
  resuming: boolean;
  /** The backfill lane's directory (node layout), and whether this run writes to it. */
  backfillDir: string;
  writesBackfill: boolean;
  backfillUntilMs: number | null;
  /**
   * Resolves once the history is written (both lanes) and real time has started, with the milliseconds the history
   * took; rejects if the thread fails.
   */
  live: Promise<number>;
  progress(): HistoryProgress;
  /** One line for a progress display. */
  describe(): string;
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 5000;

/** The file naming the process whose simulator writes a data dir. */
const OWNER_FILE = '.simulator.pid';

/**
 * Takes the data dir for this process: two simulators appending to the same files would corrupt them. A file left
 * by a process that is gone is taken over. Returns its release.
 */
export function claimDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, OWNER_FILE);
  for (;;) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new Error(
        `${dataDir} is being written by the simulator of process ${pid}; stop it or use another SIM_DATA_DIR`,
      );
    }
    fs.rmSync(file, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts the simulator's thread; resolves once its node /info listens. */
export function startSimulatorThread(
  data: SimulatorThreadData,
  onFailure: (err: Error) => void,
): Promise<SimulatorThread> {
  const release = claimDataDir(data.dataDir);
  return new Promise<SimulatorThread>((resolve, reject) => {
    let started: Extract<FromSimulatorThread, { type: 'started' }> | undefined;
    let writtenUntilMs: number | null = null;
    let isLive = false;
    let markLive = (_computedMs: number) => {};
    let failLive = (_err: Error) => {};
    const live = new Promise<number>((res, rej) => {
      markLive = res;
      failLive = rej;
    });
    live.catch(() => {});
    let stopped = () => {};
    const stopping = new Promise<void>((res) => {
      stopped = res;
    });
    let closing = false;
    const thread: Thread<ToSimulatorThread> = startThread<ToSimulatorThread, FromSimulatorThread>(
      new URL('./worker.ts', import.meta.url),
      data,
      (m) => {
        switch (m.type) {
          case 'started':
            started = m;
            resolve(handle(m));
            return;
          case 'progress':
            writtenUntilMs = m.writtenUntilMs;
            return;
          case 'live':
            writtenUntilMs = m.writtenUntilMs;
            isLive = true;
            markLive(m.computedMs);
            return;
          case 'stopped':
            stopped();
            return;
        }
      },
      (err) => {
        if (closing) return;
        failLive(err);
        if (!started) {
          release();
          reject(err);
        } else onFailure(err);
      },
    );

    const handle = (m: Extract<FromSimulatorThread, { type: 'started' }>): SimulatorThread => {
      const progress = (): HistoryProgress => ({ fromMs: m.startMs, toMs: m.toMs, writtenUntilMs, done: isLive });
      return {
        url: m.url,
        startMs: m.startMs,
        resuming: m.resuming,
        backfillDir: m.backfillDir,
        writesBackfill: m.writesBackfill,
        backfillUntilMs: m.backfillUntilMs,
        live,
        progress,
        describe: () => describeHistory(progress()),
        async stop() {
          if (closing) return;
          closing = true;
          await closeThread(thread, { type: 'stop' }, stopping, STOP_TIMEOUT_MS);
          release();
        },
      };
    };
  });
}
