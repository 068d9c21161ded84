// Subscriptions over the event bus for one account: a topic's rows of that account as batches, and one channel fed
// by several topics (userEvents: fills, funding payments, liquidations and order cancels). Both go through
// subscribeTopic's bounded queue (subgraphs/live.ts).
import type { EventBus, Topics } from '../../events/bus.ts';
import { subscribeTopic } from '../live.ts';

/** The topics whose rows belong to one account (`address`). */
type AccountTopic = { [T in keyof Topics]: Topics[T] extends { address: string } ? T : never }[keyof Topics];

/** The rows of `user` on a topic, one batch per published batch that has any; `toBatch` shapes them. */
export function accountBatches<T extends AccountTopic, R>(
  bus: EventBus,
  topic: T,
  user: string,
  toBatch: (rows: Topics[T][]) => R[],
): AsyncIterableIterator<R[]> {
  return subscribeTopic(bus, topic, (rows) => {
    const mine = rows.filter((r) => r.address === user);
    return mine.length ? [toBatch(mine)] : [];
  });
}

export type TopicFrames<R> = { [T in keyof Topics]?: (items: readonly Topics[T][]) => R[] };

/** Frames from several topics in one subscription, in the order they are published. */
export function subscribeTopics<R>(bus: EventBus, select: TopicFrames<R>): AsyncIterableIterator<R> {
  const frames: EventBus<{ frames: R }> = {
    publish: () => {},
    subscribe: (_topic, handler) => {
      const stops = (Object.keys(select) as (keyof Topics)[]).map((topic) =>
        bus.subscribe(topic, (items) => {
          const out = (select[topic] as (items: readonly unknown[]) => R[])(items);
          if (out.length) handler(out);
        }),
      );
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
  return subscribeTopic(frames, 'frames', (items) => [...items]);
}
