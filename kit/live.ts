// Live streams, the form in which a domain service defines each of its live channels once (services' streams.ts):
// a typed stream (subscribe → unsubscribe) with its domain rules, an optional snapshot, and the combinators they are
// built from. The transports adapt them: GraphQL subscriptions read one as an async iterator (`liveIterator`), /ws
// channels call it directly (compat-rest/capability-channels.ts, from each domain's live capabilities).
import { CursorError, type EventSource, type TopicMap } from '../events/bus.ts';
import { PushQueue } from '../platform/push-queue.ts';
import { followStored, type StoredStream } from './resume.ts';

/** Events from the moment of subscribing on; the same for every subscriber (no snapshot, no caller in it). */
export interface LiveStream<T> {
  /**
   * Calls `onEvent` for each event until the returned function is called. Events of a resumable stream come with
   * their cursor: where the subscriber is once it has this event.
   */
  subscribe(onEvent: (event: T, cursor?: string) => void): () => void;
  /**
   * Resumable streams only: the events after `cursor` that the log still holds, then the live ones, with no gap and
   * no duplicate; rejects with a CursorError when it holds them no longer or the cursor is not one of this stream's.
   */
  resume?(cursor: string, onEvent: (event: T, cursor: string) => void): Promise<() => void>;
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

/** A stored-snapshot stream whose live part resumes from a cursor. */
export type ResumableStoredStream<I> = StoredSnapshotStream<I> & ResumableStream<I[]>;

/** One bus topic a resumable stream is made of, and how its batches become the stream's events. */
interface Part<R> {
  source: EventSource<TopicMap>;
  topic: string;
  key?: string;
  select(items: readonly unknown[]): readonly R[];
}

/** A resumable stream: the parts it merges, which its cursors follow one position each. */
export interface ResumableStream<T> extends LiveStream<T> {
  readonly parts: readonly Part<T>[];
  resume(cursor: string, onEvent: (event: T, cursor: string) => void): Promise<() => void>;
}

/**
 * Where a subscriber is in one part: every event of the batches up to `seq`, and of batch `seq` those up to index
 * `k` (all of it when k is absent).
 */
type Position = { seq: number; k?: number };

/**
 * A cursor: the log's epoch, then each part's position (`p1a2b3c~1042~1040.3`). A part's batches can reach its
 * subscribers out of the log's order with the other parts' (liquidations wait for their join, accounts/service), so
 * one position per part keeps the cursor exact whatever the interleaving.
 */
function encodeCursor(epoch: string, positions: readonly Position[]): string {
  return [epoch, ...positions.map((p) => (p.k === undefined ? `${p.seq}` : `${p.seq}.${p.k}`))].join('~');
}

function decodeCursor(cursor: string, epoch: string, parts: number): Position[] {
  const [head, ...rest] = cursor.split('~');
  const positions = rest.map((text) => {
    const m = /^(\d{1,15})(?:\.(\d{1,9}))?$/.exec(text);
    return m ? { seq: Number(m[1]), k: m[2] === undefined ? undefined : Number(m[2]) } : null;
  });
  if (rest.length !== parts || positions.some((p) => p === null)) {
    throw new CursorError('after: not a cursor of this subscription (pass the cursor of an event it sent)');
  }
  if (head !== epoch) {
    throw new CursorError(
      'after: the cursor comes from an event log this service no longer has (restarted, or its stream was recreated): ' +
        'subscribe without a cursor and re-read the snapshot',
    );
  }
  return positions as Position[];
}

function resumable<R>(parts: readonly Part<R>[]): ResumableStream<R> {
  const epoch = parts[0]?.source.epoch ?? '';
  /** Calls onEvent for the batch's events after `positions[i]`, moving it. */
  const emit = (
    positions: Position[],
    i: number,
    items: readonly unknown[],
    seq: number,
    onEvent: (event: R, cursor: string) => void,
  ) => {
    const at = positions[i] as Position;
    if (seq < at.seq || (seq === at.seq && at.k === undefined)) return;
    const part = parts[i] as Part<R>;
    const events = part.select(items);
    for (let k = seq === at.seq ? (at.k ?? -1) + 1 : 0; k < events.length; k++) {
      positions[i] = k === events.length - 1 ? { seq } : { seq, k };
      onEvent(events[k] as R, encodeCursor(epoch, positions));
    }
    // A batch with no event for this subscriber still moves it past the batch.
    if (events.length === 0) positions[i] = { seq };
  };
  return {
    parts,
    subscribe(onEvent) {
      const positions: Position[] = parts.map((p) => ({ seq: p.source.position(p.topic) }));
      const offs = parts.map((p, i) =>
        p.source.subscribe(p.topic, (items, seq) => emit(positions, i, items, seq, onEvent)),
      );
      return () => {
        for (const off of offs) off();
      };
    },
    async resume(cursor, onEvent) {
      const positions = decodeCursor(cursor, epoch, parts.length);
      const offs: (() => void)[] = [];
      const stop = () => {
        for (const off of offs) off();
      };
      try {
        await Promise.all(
          parts.map(async (p, i) => {
            // Live batches wait while the log is read; what both give is dropped by position.
            let waiting: [readonly unknown[], number][] | null = [];
            offs.push(
              p.source.subscribe(p.topic, (items, seq) =>
                waiting ? waiting.push([items, seq]) : emit(positions, i, items, seq, onEvent),
              ),
            );
            const from = positions[i] as Position;
            await p.source.replay(
              p.topic,
              from.k === undefined ? from.seq : from.seq - 1,
              (items, seq) => emit(positions, i, items, seq, onEvent),
              p.key,
            );
            for (const [items, seq] of waiting) emit(positions, i, items, seq, onEvent);
            waiting = null;
          }),
        );
      } catch (err) {
        stop();
        throw err;
      }
      return stop;
    },
  };
}

/**
 * A bus topic as a resumable stream: `select` turns each published batch into the stream's events (none to skip it).
 * `key` (a coin, an address) lets a replay read only the batches of that key where the log keeps them apart.
 */
export function topicStream<M extends TopicMap, T extends keyof M & string, R>(
  source: EventSource<M>,
  topic: T,
  select: (items: readonly M[T][]) => readonly R[],
  key?: string,
): ResumableStream<R> {
  return resumable([
    {
      source: source as EventSource<TopicMap>,
      topic,
      key,
      select: select as (items: readonly unknown[]) => readonly R[],
    },
  ]);
}

/** Several resumable streams as one, each event as its own stream publishes it. */
export function mergedStreams<T>(streams: readonly ResumableStream<T>[]): ResumableStream<T> {
  return resumable(streams.flatMap((s) => s.parts));
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

/** An event with the cursor its subscriber resumes from (the `cursor` field of what GraphQL subscriptions send). */
export interface Cursored<T> {
  event: T;
  cursor: string;
}

/**
 * A resumable stream read as a GraphQL subscription's source: from now on, or after `after` (what was missed, then
 * live). Nothing is dropped: a reader more than `maxQueue` events behind is ended with an error telling it to
 * subscribe again from the last cursor it received. A bad or expired `after` rejects with a CursorError.
 */
export async function cursoredIterator<T>(
  stream: ResumableStream<T>,
  after: string | null | undefined,
  maxQueue = 10_000,
): Promise<AsyncIterableIterator<Cursored<T>>> {
  let unsubscribe: (() => void) | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    unsubscribe?.();
  };
  const queue = new PushQueue<Cursored<T>>(maxQueue, stop, () => {
    stop();
    return new CursorError(
      `after: this subscription fell ${maxQueue} events behind; subscribe again with the cursor of the last event received`,
    );
  });
  const onEvent = (event: T, cursor?: string) => queue.push({ event, cursor: cursor as string });
  unsubscribe = after ? await stream.resume(after, onEvent) : stream.subscribe(onEvent);
  // The reader left while the log was read.
  if (stopped) unsubscribe();
  return queue;
}

/**
 * A stored stream (kit/resume.ts) read as a GraphQL subscription's source: from now on, or after `after` (a position
 * of the store: what was missed, from the store however long ago within its retention, then live). The cursor of
 * each event is its position, the same string /ws sends as `position`. Stored rows are read no faster than the reader
 * takes them (at most `maxQueue / 2` waiting); live events beyond `maxQueue` end it with an error telling the reader
 * to subscribe again from its last cursor. A bad `after` rejects with a FieldError.
 */
export async function storedIterator<T>(
  stream: StoredStream<T>,
  after: string | null | undefined,
  maxQueue = 10_000,
): Promise<AsyncIterableIterator<Cursored<T>>> {
  let stop: (() => void) | undefined;
  let stopped = false;
  const end = () => {
    stopped = true;
    stop?.();
  };
  const queue = new PushQueue<Cursored<T>>(maxQueue, end, () => {
    end();
    return new CursorError(
      `after: this subscription fell ${maxQueue} events behind; subscribe again with the cursor of the last event received`,
    );
  });
  let waiting = 0;
  let drained: (() => void) | undefined;
  const ready = async () => {
    while (!stopped && waiting >= maxQueue / 2) {
      await new Promise<void>((resolve) => {
        drained = resolve;
      });
    }
    return !stopped;
  };
  const iterator: AsyncIterableIterator<Cursored<T>> = {
    async next() {
      const step = await queue.next();
      if (!step.done) waiting--;
      if (waiting < maxQueue / 2 && drained) {
        const wake = drained;
        drained = undefined;
        wake();
      }
      return step;
    },
    return: async () => {
      const r = await queue.return();
      drained?.();
      return r;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  stop = await followStored(stream, after ?? null, {
    send: (event, cursor) => {
      waiting++;
      queue.push({ event, cursor });
    },
    ready,
  });
  // The reader left while the store was read.
  if (stopped) stop();
  return iterator;
}

/** A batch's items, each with the cursor of the event they came in (what a client resumes after). */
export const withCursor = <I extends object>({ event, cursor }: Cursored<readonly I[]>): (I & { cursor: string })[] =>
  event.map((item) => ({ ...item, cursor }));

/** The `after` argument of every resumable subscription. */
export const AFTER_DESCRIPTION =
  'Resume after this cursor (the `cursor` of the last item received): the events missed since, then live ones, ' +
  'without gap or duplicate, on any instance, while the event log still holds them (else an error: re-read the ' +
  'snapshot and subscribe without it)';

/** The `after` argument of the subscriptions of stored streams, which resume from the store. */
export const STORED_AFTER_DESCRIPTION =
  "Resume after this cursor (the `cursor` of the last item received, or a /ws frame's `position`): the events " +
  'missed since, read from the store however long ago within its retention, then live ones, without gap or ' +
  'duplicate, on any instance';

/** The `cursor` field of the items of resumable subscriptions. */
export const CURSOR_DESCRIPTION =
  'Where a subscriber stands once it has this item: pass it as `after` to resume (null outside subscriptions)';

/** A single event with its cursor. */
export const cursorOn = <E extends object>({ event, cursor }: Cursored<E>): E & { cursor: string } => ({
  ...event,
  cursor,
});

/** The `cursor` field's resolver: set on items a subscription sent, absent elsewhere. */
export const cursorOf = (item: object): string | null => (item as { cursor?: string }).cursor ?? null;
