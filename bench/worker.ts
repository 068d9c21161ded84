// Benchmark clients (load generators, subscribers) run in worker threads (platform/threads.ts), so that they do not
// share the event loop of the servers they measure. A bench module is its own worker entry, told apart by
// `workerData.role`.
import { startThread } from '../platform/threads.ts';

/** Runs a worker that answers with one message, then terminates it; fails after `timeoutMs`. */
export async function runWorker<Out>(moduleUrl: URL, data: unknown, timeoutMs: number): Promise<Out> {
  let settle!: { resolve: (v: Out) => void; reject: (e: Error) => void };
  const answer = new Promise<Out>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const worker = startThread<never, Out>(moduleUrl, data, settle.resolve, settle.reject);
  const timer = setTimeout(() => settle.reject(new Error(`worker timed out after ${timeoutMs} ms`)), timeoutMs);
  try {
    return await answer;
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
