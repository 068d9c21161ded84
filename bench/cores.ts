// Where a bench's CPU goes: processes pinned to cores (taskset), and CPU time taken from /proc over a window, per
// core of the machine and per process (its main thread apart), so that a figure can say what bounded it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

/** Clock ticks per second of /proc/stat and /proc/<pid>/stat (USER_HZ: 100 on Linux everywhere). */
const USER_HZ = 100;

/** CPU seconds `/proc/<pid>/stat` (or a thread's, `/proc/<pid>/task/<tid>/stat`) gives: user + system. */
function cpuSecondsIn(statPath: string): number | null {
  try {
    const stat = fs.readFileSync(statPath, 'utf8');
    // The fields after the command (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return null;
  }
}

/** CPU seconds a process has used, all its threads; null where /proc is absent or the process has gone. */
export const cpuSecondsOf = (pid: number): number | null => cpuSecondsIn(`/proc/${pid}/stat`);

/** Busy seconds of each core of the machine (all but idle and iowait; steal counts), from /proc/stat; [] without it. */
function coreBusySeconds(): number[] {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d+ /.test(line))
      .map((line) => {
        const [user, nice, system, , , irq, softirq, steal] = line.split(/\s+/).slice(1).map(Number);
        return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / USER_HZ;
      });
  } catch {
    return [];
  }
}

/**
 * Whether the bench pins its processes: BENCH_PIN=0 says no, BENCH_PIN=1 insists (and fails without taskset);
 * by default, when `taskset` runs and the machine has 2 cores or more.
 */
export function pinning(): boolean {
  const asked = process.env.BENCH_PIN;
  if (asked === '0') return false;
  let available = os.cpus().length >= 2;
  if (available) {
    try {
      execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    } catch {
      available = false;
    }
  }
  if (asked === '1' && !available) throw new Error('BENCH_PIN=1, but taskset does not run here or there is one core');
  return available;
}

/** Pins every thread of a running process (and the threads it starts later) to `cpus` ("0", "0,1"). */
export function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-c', '-p', cpus, String(pid)], { stdio: 'ignore' });
}

/** The command prefix that starts a process pinned to `cpus`. */
export const pinnedPrefix = (cpus: string): string[] => ['taskset', '-c', cpus];

interface Snapshot {
  at: number;
  cores: number[];
  processes: { total: number; main: number }[];
}

const snapshot = (pids: number[]): Snapshot => ({
  at: performance.now(),
  cores: coreBusySeconds(),
  processes: pids.map((pid) => ({
    total: cpuSecondsOf(pid) ?? Number.NaN,
    main: cpuSecondsIn(`/proc/${pid}/task/${pid}/stat`) ?? Number.NaN,
  })),
});

/** CPU seconds over a window: each core's busy time, each process's (all threads, and its main thread). */
export interface CpuWindow {
  seconds: number;
  cores: number[];
  processes: { total: number; main: number }[];
}

/** Starts a window over `pids`; `end()` gives what each core and process used in it. */
export function cpuWindow(pids: number[]): { end(): CpuWindow } {
  const from = snapshot(pids);
  return {
    end() {
      const to = snapshot(pids);
      return {
        seconds: (to.at - from.at) / 1000,
        cores: to.cores.map((c, i) => c - (from.cores[i] ?? Number.NaN)),
        processes: to.processes.map((p, i) => ({
          total: p.total - (from.processes[i]?.total ?? Number.NaN),
          main: p.main - (from.processes[i]?.main ?? Number.NaN),
        })),
      };
    },
  };
}

/** Windows added up (the same pids, in the same order). */
export function addWindows(windows: CpuWindow[]): CpuWindow {
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
  const first = windows[0];
  if (!first) return { seconds: 0, cores: [], processes: [] };
  return {
    seconds: sum(windows.map((w) => w.seconds)),
    cores: first.cores.map((_, i) => sum(windows.map((w) => w.cores[i] ?? Number.NaN))),
    processes: first.processes.map((_, i) => ({
      total: sum(windows.map((w) => w.processes[i]?.total ?? Number.NaN)),
      main: sum(windows.map((w) => w.processes[i]?.main ?? Number.NaN)),
    })),
  };
}
