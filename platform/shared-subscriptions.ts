// Shared subscriptions: subscribers to the same operation with the same variables share one execution. The first
// subscriber starts it; every event is executed once and the same result goes to each subscriber's own bounded
// queue; the execution stops when the last subscriber leaves. Without it, 500 clients following BTC trades through
// the router cost 500 upstream subscriptions, each executed in the subgraph and again in the router, per block.
//
// Sharing is right for live streams, whose events do not depend on who listens or since when: every subscription
// field of this service is one (none starts with a per-subscriber snapshot, and none reads the caller's context;
// the key rules of spec §5 run before an operation reaches here). A field that did either must not be shared, nor is
// an operation resuming from a cursor (`after`): it starts with the events its own subscriber missed; nor a replay
// (a field with `speed`, kit/replay-fields.ts): it starts at its window's start for each subscriber.
import { type DocumentNode, type ExecutionArgs, getOperationAST, Kind, print } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { PushQueue } from './push-queue.ts';

type Subscribe = (args: ExecutionArgs) => unknown;
type Source = AsyncIterator<unknown> & { return?(): Promise<unknown> };

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof (value as AsyncIterable<unknown> | null)?.[Symbol.asyncIterator] === 'function';
}

/** One execution and the queues of everyone following it. */
class SharedStream {
  private readonly listeners = new Set<PushQueue<unknown>>();
  private started = false;
  private closed = false;

  constructor(
    private readonly source: Source,
    private readonly maxQueue: number,
    private readonly onClose: () => void,
  ) {}

  get subscribers(): number {
    return this.listeners.size;
  }

  /** A new follower's iterator, or null when the stream has ended (the caller starts a new one). */
  join(): AsyncIterableIterator<unknown> | null {
    if (this.closed) return null;
    const queue: PushQueue<unknown> = new PushQueue(this.maxQueue, () => this.leave(queue));
    this.listeners.add(queue);
    if (!this.started) {
      this.started = true;
      void this.pump();
    }
    return queue;
  }

  private leave(queue: PushQueue<unknown>): void {
    this.listeners.delete(queue);
    if (this.listeners.size || this.closed) return;
    this.close();
    // The pump's pending next() ends with the source.
    this.source.return?.().catch(() => {});
  }

  private close(): void {
    this.closed = true;
    this.onClose();
  }

  private async pump(): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      for (;;) {
        const step = await this.source.next();
        if (step.done || this.closed) break;
        for (const queue of this.listeners) queue.push(step.value);
      }
    } catch (error) {
      failure = { error };
    }
    if (!this.closed) this.close();
    for (const queue of this.listeners) queue.end(failure);
    this.listeners.clear();
  }
}

/**
 * Whether the operation passes a non-null `after` (a cursor to resume from) to one of its subscription fields, or
 * replays a window (a `speed`).
 */
function resumes(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  for (const selection of operation?.selectionSet.selections ?? []) {
    if (selection.kind !== Kind.FIELD) continue;
    for (const arg of selection.arguments ?? []) {
      if (arg.name.value === 'speed') return true;
      if (arg.name.value !== 'after' || arg.value.kind === Kind.NULL) continue;
      if (arg.value.kind !== Kind.VARIABLE || args.variableValues?.[arg.value.name.value] != null) return true;
    }
  }
  return false;
}

/** Executions running now, and the subscribers following them (for tests and diagnostics). */
export interface SubscriptionStats {
  streams: number;
  subscribers: number;
}

export interface SharedSubscriptions {
  plugin: Plugin;
  stats(): SubscriptionStats;
}

/** The envelop plugin; add it after plugins that reject operations, so a rejected operation never joins a stream. */
export function sharedSubscriptions(maxQueue = 1000): SharedSubscriptions {
  const streams = new Map<string, Promise<SharedStream | null>>();
  const running = new Set<SharedStream>();
  const documents = new WeakMap<DocumentNode, string>();
  const schemas = new WeakMap<object, number>();
  let schemaCount = 0;

  const keyOf = (args: ExecutionArgs): string => {
    let text = documents.get(args.document);
    if (text === undefined) {
      text = print(args.document);
      documents.set(args.document, text);
    }
    // A reloaded schema (the router's supergraph) starts streams of its own.
    let schema = schemas.get(args.schema);
    if (schema === undefined) {
      schema = schemaCount++;
      schemas.set(args.schema, schema);
    }
    return JSON.stringify([schema, args.operationName ?? null, args.variableValues ?? {}, text]);
  };

  const start = async (key: string, args: ExecutionArgs, subscribe: Subscribe): Promise<unknown> => {
    const result = Promise.resolve().then(() => subscribe(args));
    const stream: Promise<SharedStream | null> = result.then(
      (r) => {
        if (!isAsyncIterable(r)) return null;
        const shared = new SharedStream(r[Symbol.asyncIterator]() as Source, maxQueue, () => {
          running.delete(shared);
          if (streams.get(key) === stream) streams.delete(key);
        });
        running.add(shared);
        return shared;
      },
      () => null,
    );
    streams.set(key, stream);
    const shared = await stream;
    if (!shared) {
      if (streams.get(key) === stream) streams.delete(key);
      return result; // an error result (or a thrown error) belongs to this subscriber alone
    }
    return shared.join() as AsyncIterableIterator<unknown>; // a stream nobody joined yet is open
  };

  return {
    plugin: {
      onSubscribe({ subscribeFn, setSubscribeFn }) {
        const subscribe = subscribeFn as Subscribe;
        setSubscribeFn((async (args: ExecutionArgs) => {
          if (resumes(args)) return subscribe(args);
          const key = keyOf(args);
          const pending = streams.get(key);
          const joined = pending ? (await pending)?.join() : null;
          return joined ?? start(key, args, subscribe);
        }) as typeof subscribeFn);
      },
    },
    stats() {
      let subscribers = 0;
      for (const shared of running) subscribers += shared.subscribers;
      return { streams: running.size, subscribers };
    },
  };
}
