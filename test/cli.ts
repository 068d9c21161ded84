// Runs one of the project's command-line entry points as a child process, as a user would.
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startCli(script: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function waitCli(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export function runCli(script: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return waitCli(startCli(script, args, env));
}

/** A long-running child (a service): its stdout and stderr interleaved as they come, and how it exited. */
export interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnRunning(command: string, args: string[], options: SpawnOptions): Running {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (d: Buffer) => {
    output += d;
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Resolves once the child has printed a line `ready`; fails with its output if it exits first or takes too long. */
export async function untilReady(running: Running, name: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void running.exited.then(({ code }) => {
    exitCode = code;
  });
  while (!/^ready$/m.test(running.output())) {
    if (exitCode !== undefined) throw new Error(`${name} exited (${exitCode}) before ready:\n${running.output()}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutMs} ms:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** SIGTERM, SIGKILL 20 s later if it is still running; resolves once it has exited. */
export async function stopRunning(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 20_000);
  await running.exited;
  clearTimeout(timer);
}
