// GraphQL's replay of a stored window: the /ws `replay` subscription (compat-rest/ws/resume.ts) as subscription fields,
// from the same code (kit/resume.ts replayWindow). Each stored stream's live subscription `<field>(args)` gets a
// `<field>Replay(args, start, end, speed)` whose events are frames of one type per item type:
//
//   type FillReplayFrame { position: String  data: [Fill!]  gap: ReplayGap  complete: ReplayComplete }
//
// exactly one of `data` (an event as the live subscription sends it, its items' cursor the frame's position), `gap`
// (a hole of the store, {from, to}) and `complete` (the last frame: {start, end, frames}) is set. Frames are paced by
// the rows' own times at `speed`; the subscription completes after `complete`. A batch's `data` declares the size the
// live subscription's list declares (@listSize(assumedSize: 20) on userFills'), as every list whose items reach a
// call must for the router's cost analysis; a replay itself is charged by its minutes of data (router/credits.ts).

import { PushQueue } from '../platform/push-queue.ts';
import type { Hole, HolesOf, ReplayWindow, StoredStream } from './resume.ts';
import { readReplayWindow, replayWindow } from './resume.ts';

// biome-ignore lint/suspicious/noExplicitAny: Pothos' builder and refs, whatever the subgraph's types
type Any = any;

/** What a replay subscription sends: one of an event (with its position), a gap, or the end. */
export interface ReplayFrame<E = unknown> {
  position: string | null;
  event?: E;
  gap: Hole | null;
  complete: { start: number; end: number; frames: number } | null;
}

/**
 * A replay read as a GraphQL subscription's source: its frames, then the end. Stored rows are read no faster than the
 * reader takes them (at most `maxQueue` waiting). Returning the iterator stops the replay.
 */
export function replayIterator<E>(
  stream: StoredStream<E>,
  window: ReplayWindow,
  holes: HolesOf,
  maxQueue = 1000,
): AsyncIterableIterator<ReplayFrame<E>> {
  let stopped = false;
  const queue = new PushQueue<ReplayFrame<E>>(Number.MAX_SAFE_INTEGER, () => {
    stopped = true;
    drained?.();
  });
  let waiting = 0;
  let drained: (() => void) | undefined;
  const push = (frame: ReplayFrame<E>) => {
    waiting++;
    queue.push(frame);
  };
  const ready = async () => {
    while (!stopped && waiting >= maxQueue) {
      await new Promise<void>((resolve) => {
        drained = resolve;
      });
    }
    return !stopped;
  };
  replayWindow(
    stream,
    window,
    holes,
    {
      send: (event, position) => push({ position, event, gap: null, complete: null }),
      ready,
      gap: (hole) => push({ position: null, gap: hole, complete: null }),
      complete: (summary) => push({ position: null, gap: null, complete: summary }),
    },
    () => stopped,
  ).then(
    () => queue.end(),
    (error: unknown) => queue.end({ error }),
  );
  const iterator: AsyncIterableIterator<ReplayFrame<E>> = {
    async next() {
      const step = await queue.next();
      if (!step.done) waiting--;
      if (waiting < maxQueue && drained) {
        const wake = drained;
        drained = undefined;
        wake();
      }
      return step;
    },
    return: () => queue.return(),
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** One stored stream's replay field. */
export interface ReplayField<Context> {
  /** The field's name: the live subscription's, then `Replay`. */
  name: string;
  /**
   * The live subscription's item type, and whether an event is one of them or a list of them (a batch), then sized
   * as the live subscription's list is (its `listSize`).
   */
  item: Any;
  list: false | { assumedSize: number };
  description: string;
  /** The live subscription's arguments, without `after` (an input definition's `args(t)`). */
  args(t: Any): Record<string, unknown>;
  /** The stored stream those arguments ask for (read by the input definition: a FieldError for bad ones). */
  stream(args: Record<string, unknown>, context: Context): StoredStream<unknown>;
  /** An event as the live subscription's frame holds it, its items given `cursor` (withCursor, cursorOn). */
  data(event: unknown, cursor: string): unknown;
  /** The store's holes of a window (dataCoverage; recorded books: where no sample of the coin is). */
  holes(context: Context, args: Record<string, unknown>): HolesOf;
}

const sharedTypes = new WeakMap<
  object,
  { gap: Any; complete: Any; frames: Map<unknown, { ref: Any; list: false | number }> }
>();

/** The frame types of a builder: ReplayGap and ReplayComplete (shareable: every subgraph with replays has them). */
function typesOf(builder: Any) {
  let types = sharedTypes.get(builder);
  if (!types) {
    const gap = builder.objectRef('ReplayGap').implement({
      shareable: true,
      description: 'A stretch of the replayed window the store holds nothing of (no coverage)',
      fields: (t: Any) => ({
        from: t.expose('from', { type: 'Timestamp' }),
        to: t.expose('to', { type: 'Timestamp', description: 'Exclusive' }),
      }),
    });
    const complete = builder.objectRef('ReplayComplete').implement({
      shareable: true,
      description: 'The end of a replay: its window and how many events it sent',
      fields: (t: Any) => ({
        start: t.expose('start', { type: 'Timestamp' }),
        end: t.expose('end', { type: 'Timestamp' }),
        frames: t.exposeInt('frames'),
      }),
    });
    types = { gap, complete, frames: new Map() };
    sharedTypes.set(builder, types);
  }
  return types;
}

function frameType(builder: Any, item: Any, list: ReplayField<unknown>['list']) {
  const types = typesOf(builder);
  const made = types.frames.get(item);
  const size = list === false ? false : list.assumedSize;
  if (made && made.list !== size)
    throw new Error(
      `${item.name}ReplayFrame: the replays of one item type send it alike (one, or batches of one size)`,
    );
  if (made) return made.ref;
  const ref = builder.objectRef(`${item.name}ReplayFrame`).implement({
    description: `One frame of a replay of ${item.name} events: exactly one of data, gap and complete is set`,
    fields: (t: Any) => ({
      position: t.string({
        nullable: true,
        description: 'Where the replay stands once this event is had (its items carry it as `cursor`)',
        resolve: (f: ReplayFrame & { data: unknown }) => f.position,
      }),
      data: t.field({
        type: list ? [item] : item,
        nullable: true,
        ...(list && { listSize: { assumedSize: list.assumedSize } }),
        description: 'An event, as the live subscription sends it',
        resolve: (f: ReplayFrame & { data: unknown }) => f.data,
      }),
      gap: t.field({ type: types.gap, nullable: true, resolve: (f: ReplayFrame) => f.gap }),
      complete: t.field({ type: types.complete, nullable: true, resolve: (f: ReplayFrame) => f.complete }),
    }),
  });
  types.frames.set(item, { ref, list: size });
  return ref;
}

/**
 * Adds the replay fields to the builder's Subscription: each `name(…the stream's arguments, start, end, speed)`.
 * start and end are Timestamps (end after start, at most a day after it), speed 1 to 500, as on /ws; charged like
 * /ws's replay by the minutes of data (access/costs.ts GRAPHQL_REPLAY_FIELDS).
 */
export function replayFields<Context>(builder: Any, fields: readonly ReplayField<Context>[]): void {
  builder.subscriptionFields((t: Any) => {
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      out[f.name] = t.field({
        type: frameType(builder, f.item, f.list),
        description: f.description,
        args: {
          ...f.args(t),
          start: t.arg({ type: 'Timestamp', required: true, description: 'The window’s first millisecond' }),
          end: t.arg({ type: 'Timestamp', required: true, description: 'The window’s end (exclusive)' }),
          speed: t.arg.float({
            required: true,
            description: 'Data time over wall time: 1 to 500 (60: an hour a minute)',
          }),
        },
        subscribe: (_root: unknown, a: Record<string, unknown>, ctx: Context) => {
          const { start, end, speed, ...rest } = a;
          const window = readReplayWindow({ start, end, speed });
          return replayIterator(f.stream(rest, ctx), window, f.holes(ctx, rest));
        },
        resolve: (frame: ReplayFrame) => ({
          ...frame,
          data: frame.event === undefined ? null : f.data(frame.event, frame.position as string),
        }),
      });
    }
    return out;
  });
}
