// Subscriptions over live events: a bus topic as an async iterator, filtered and mapped per subscriber, with a
// bounded queue so a slow subscriber cannot grow memory without bound (it loses the oldest events instead).
import type { EventBus, TopicMap } from '../events/bus.ts';
import { PushQueue } from '../platform/push-queue.ts';

export function subscribeTopic<M extends TopicMap, T extends keyof M & string, R>(
  bus: EventBus<M>,
  topic: T,
  select: (items: readonly M[T][]) => R[],
  maxQueue = 1000,
): AsyncIterableIterator<R> {
  const queue = new PushQueue<R>(maxQueue, () => unsubscribe());
  const unsubscribe = bus.subscribe(topic, (items) => {
    for (const item of select(items)) queue.push(item);
  });
  return queue;
}
