// What domain tools are written with (domains/<domain>/mcp.ts) beside their input definitions (kit/input.ts, whose
// `schema` is a tool's input): the catalog's argument names, and the bounded collection of a live stream for the live
// tools.

import type { LiveStream } from './live.ts';

/** The one convention of argument names across the catalog: camelCase, as /info's fields are (startTime). */
export const ARGUMENT_NAME = /^[a-z][a-zA-Z0-9]*$/;

/** The longest a live tool collects, whatever it is asked: a tool call holds a request open. */
export const MAX_COLLECT_SECONDS = 60;

/**
 * Collects a live stream's events for `seconds`, or until `max` items are gathered or the call is aborted (the
 * caller went away, the server stops): what was gathered is the answer, with why it stopped.
 */
export function collect<T, I = T>(
  stream: LiveStream<T>,
  opts: { seconds: number; max: number; signal: AbortSignal; items?: (event: T) => readonly I[] },
): Promise<{ items: I[]; stoppedBy: 'time' | 'max' | 'aborted'; seconds: number }> {
  const started = performance.now();
  const items: I[] = [];
  const itemsOf = opts.items ?? ((e: T) => [e as unknown as I]);
  return new Promise((resolve) => {
    let done = false;
    let stop = () => {};
    const finish = (stoppedBy: 'time' | 'max' | 'aborted') => {
      if (done) return;
      done = true;
      stop();
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      resolve({ items: items.slice(0, opts.max), stoppedBy, seconds });
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('time'), opts.seconds * 1000);
    opts.signal.addEventListener('abort', onAbort);
    stop = stream.subscribe((event) => {
      items.push(...itemsOf(event));
      if (items.length >= opts.max) finish('max');
    });
    if (opts.signal.aborted) finish('aborted');
  });
}
