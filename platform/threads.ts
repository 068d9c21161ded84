// Worker threads that run a TypeScript module: the router's thread (router/thread.ts) and the benchmark's client
// threads. The module is the thread's entry; what it needs comes as `workerData`, the rest as messages.
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

export interface Thread<In> {
  post(message: In): void;
  /** Resolves when the thread has exited (terminated or not). */
  exited: Promise<void>;
  terminate(): Promise<void>;
  /** The thread's event-loop utilization, as performance.eventLoopUtilization gives it (diffs alike). */
  eventLoopUtilization(a?: EventLoopUtilization, b?: EventLoopUtilization): EventLoopUtilization;
}

/**
 * Starts `moduleUrl` in a worker thread with `data` as its workerData. Messages go to `onMessage`; a thread error
 * or an exit before `terminate()` goes to `onFailure`.
 */
export function startThread<In, Out>(
  moduleUrl: URL,
  data: unknown,
  onMessage: (message: Out) => void,
  onFailure: (err: Error) => void,
): Thread<In> {
  // `--import tsx` does not reliably reach a worker (its main module may load before the hooks are in place), so
  // the worker starts from a tiny JS module that registers tsx, then imports the TypeScript one.
  const entry = [
    `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};`,
    'register();',
    `await import(${JSON.stringify(moduleUrl.href)});`,
  ].join('\n');
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(entry)}`), {
    workerData: data,
    execArgv: [],
  });
  let terminating = false;
  worker.on('message', (m: Out) => onMessage(m));
  worker.on('error', (err) => onFailure(err));
  const exited = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      if (!terminating) onFailure(new Error(`thread ${moduleUrl.pathname} exited with code ${code}`));
      resolve();
    });
  });
  return {
    post: (message) => worker.postMessage(message),
    eventLoopUtilization: (a, b) => worker.performance.eventLoopUtilization(a, b),
    exited,
    async terminate() {
      terminating = true;
      await worker.terminate();
    },
  };
}

/**
 * Asks a thread to stop with `message` and waits for `closed` (its own word that it has stopped), its exit, or
 * `timeoutMs`, whichever comes first; then terminates it.
 */
export async function closeThread<In>(
  thread: Thread<In>,
  message: In,
  closed: Promise<unknown>,
  timeoutMs: number,
): Promise<void> {
  thread.post(message);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([closed, thread.exited, late]);
  clearTimeout(timer);
  await thread.terminate();
}
