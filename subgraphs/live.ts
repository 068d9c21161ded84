// Subscriptions over live events: a bus topic as an async iterator, filtered and mapped per subscriber, with a
// bounded queue so a slow subscriber cannot grow memory without bound (it loses the oldest events instead).
import type { EventBus, TopicMap } from '../ingest/bus.ts';

export function subscribeTopic<M extends TopicMap, T extends keyof M & string, R>(
  bus: EventBus<M>,
  topic: T,
  select: (items: readonly M[T][]) => R[],
  maxQueue = 1000,
): AsyncIterableIterator<R> {
  const queue: R[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const unsubscribe = bus.subscribe(topic, (items) => {
    const out = select(items);
    if (!out.length) return;
    queue.push(...out);
    if (queue.length > maxQueue) queue.splice(0, queue.length - maxQueue);
    wake?.();
  });
  const finish = () => {
    done = true;
    unsubscribe();
    wake?.();
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (!queue.length && !done) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      wake = undefined;
      if (done && !queue.length) return { value: undefined, done: true };
      return { value: queue.shift() as R, done: false };
    },
    async return() {
      finish();
      return { value: undefined, done: true };
    },
  };
}
