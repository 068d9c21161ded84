// Live streams, the form in which a domain service defines each of its live channels once (services' streams.ts):
// a typed stream (subscribe → unsubscribe) with its domain rules, an optional snapshot, and the combinators they are
// built from. The transports adapt them: GraphQL subscriptions read one as an async iterator (`liveIterator`), /ws
// channels call it directly (compat-rest/channels/).
import type { EventBus, TopicMap } from '../events/bus.ts';
import { PushQueue } from '../platform/push-queue.ts';

/** Events from the moment of subscribing on; the same for every subscriber (no snapshot, no caller in it). */
export interface LiveStream<T> {
  /** Calls `onEvent` for each event until the returned function is called. */
  subscribe(onEvent: (event: T) => void): () => void;
}

/** A stream with the state it starts from: what a transport that sends a snapshot first (/ws) sends. */
export interface SnapshotStream<T> extends LiveStream<T> {
  /** The current state; null when there is none yet. */
  snapshot(): T | null;
}

/**
 * A stream of item batches whose snapshot is read from storage: a transport joining them must follow the stream
 * before the snapshot is read and drop what the snapshot already holds, which `key` identifies.
 */
export interface StoredSnapshotStream<I> extends LiveStream<I[]> {
  snapshot(): Promise<I[]>;
  key(item: I): string;
}

/** A bus topic as a stream: `select` turns each published batch into the stream's events (none to skip it). */
export function topicStream<M extends TopicMap, T extends keyof M & string, R>(
  bus: EventBus<M>,
  topic: T,
  select: (items: readonly M[T][]) => readonly R[],
): LiveStream<R> {
  return {
    subscribe: (onEvent) =>
      bus.subscribe(topic, (items) => {
        for (const event of select(items)) onEvent(event);
      }),
  };
}

/** Several streams as one, each event as its own stream publishes it. */
export function mergedStreams<T>(streams: readonly LiveStream<T>[]): LiveStream<T> {
  return {
    subscribe(onEvent) {
      const stops = streams.map((s) => s.subscribe(onEvent));
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}

/**
 * A stream of states conflated to at most one event per `ms` (the last state wins): a change inside the window
 * schedules one trailing event, read from `current` when it fires. Each subscriber has its own window.
 */
export function conflated<T>(changes: LiveStream<unknown>, current: () => T | null, ms: number): LiveStream<T> {
  return {
    subscribe(onEvent) {
      const emit = () => {
        const state = current();
        if (state !== null) onEvent(state);
      };
      const t = throttled(emit, ms);
      const off = changes.subscribe(() => t.poke());
      return () => {
        off();
        t.stop();
      };
    },
  };
}

/** Calls `send` at most once per `ms`; a call inside the window schedules one trailing call. */
export function throttled(send: () => void, ms: number): { poke(): void; stop(): void } {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    poke() {
      const now = Date.now();
      if (now - last >= ms) {
        last = now;
        send();
      } else {
        timer ??= setTimeout(
          () => {
            timer = undefined;
            last = Date.now();
            send();
          },
          ms - (now - last),
        );
      }
    },
    stop() {
      clearTimeout(timer);
    },
  };
}

/**
 * A stream read as an async iterator (a GraphQL subscription's source), through a bounded queue: a slow reader
 * loses the oldest events rather than growing memory without bound. Returning the iterator unsubscribes.
 */
export function liveIterator<T>(stream: LiveStream<T>, maxQueue = 1000): AsyncIterableIterator<T> {
  const queue = new PushQueue<T>(maxQueue, () => unsubscribe());
  const unsubscribe = stream.subscribe((event) => queue.push(event));
  return queue;
}
