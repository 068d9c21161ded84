// Worker threads for benchmark clients (load generators, subscribers), so that they do not share the event loop
// of the servers they measure. A bench module is its own worker entry, told apart by `workerData.role`.
import { Worker } from 'node:worker_threads';

export interface BenchWorker<In> {
  post(message: In): void;
  /** Resolves when the thread has exited (terminated or not). */
  exited: Promise<void>;
  terminate(): Promise<void>;
}

/**
 * Starts `moduleUrl` in a worker thread with `data` as its workerData. Messages go to `onMessage`; a thread error
 * or an exit before `terminate()` goes to `onFailure`.
 */
export function startWorker<In, Out>(
  moduleUrl: URL,
  data: unknown,
  onMessage: (message: Out) => void,
  onFailure: (err: Error) => void,
): BenchWorker<In> {
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
      if (!terminating) onFailure(new Error(`worker ${moduleUrl.pathname} exited with code ${code}`));
      resolve();
    });
  });
  return {
    post: (message) => worker.postMessage(message),
    exited,
    async terminate() {
      terminating = true;
      await worker.terminate();
    },
  };
}

/** Runs a worker that answers with one message, then terminates it; fails after `timeoutMs`. */
export async function runWorker<Out>(moduleUrl: URL, data: unknown, timeoutMs: number): Promise<Out> {
  let settle!: { resolve: (v: Out) => void; reject: (e: Error) => void };
  const answer = new Promise<Out>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const worker = startWorker<never, Out>(moduleUrl, data, settle.resolve, settle.reject);
  const timer = setTimeout(() => settle.reject(new Error(`worker timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    return await answer;
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
