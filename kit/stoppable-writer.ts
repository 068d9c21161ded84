// A domain writer that runs one loop until stopped and follows no events (a fill of older rows, a queue of rows to
// redo): the stop, the pause that a stop cuts short, and the progress it reports, written once for every such writer.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DomainWriter } from './domain.ts';

/** `loop` runs once, from the first `run()`, until `stopped()`; `items()`: what it has done so far. */
export function stoppableWriter(
  loop: (stopped: () => boolean, pause: (ms: number) => Promise<void>) => Promise<void>,
  items: () => number,
): DomainWriter {
  let stopping = false;
  const stop = new AbortController();
  const pause = (ms: number) => sleep(ms, undefined, { signal: stop.signal }).catch(() => undefined);
  let running: Promise<void> | undefined;
  return {
    run: () => {
      running ??= loop(() => stopping, pause);
      return running;
    },
    stop: async () => {
      stopping = true;
      stop.abort();
      await running;
    },
    // No cursor: the loop follows no events, so it has no lag to report.
    progress: () => ({ cursor: null, items: items() }),
  };
}
