// The contract between the /ws transport and the channel modules plugged into it (what a channel implements), and
// what every channel module uses: the error a refused parameter becomes (`Invalid subscription`; a channel reads its
// parameters through its service's input definition), and /ws's policy for a service's live stream (its snapshot
// first, as the exchange sends one, then every event).
import { FieldError } from '../platform/fields.ts';
import type { LiveStream, SnapshotStream, StoredSnapshotStream } from './live.ts';
import type { Hole, StoredStream } from './resume.ts';

/**
 * Bad subscription parameters: the one input-error type (platform/fields.ts) under the name the channel modules
 * use. Any FieldError a channel throws (its own check's, or a service's) is reported on channel "error".
 */
export const SubscriptionError = FieldError;
export type SubscriptionError = FieldError;

export interface ChannelContext {
  /** Sends `{channel, data}` on this subscription's data channel; a no-op once it was unsubscribed or closed. */
  send(data: unknown): void;
  /**
   * Sends `{channel, data, position}` (no position: `{channel, data}`), on this subscription's data channel or on
   * `channel`: a resumed or replayed stream's frames (ws/resume.ts).
   */
  sendAt?(data: unknown, position: string | undefined, channel?: string): void;
  /** Resolves once the connection's backlog has drained enough to send more; false once the subscription is gone. */
  ready?(): Promise<boolean>;
  /** Ends the subscription on a failure after its start (a replay's read): an error frame says why. */
  fail?(err: unknown): void;
}

export interface Channel {
  /** `subscription.type`, e.g. "trades", "userEvents". */
  type: string;
  /**
   * Data channel name when it differs from `type` (userEvents → "user"); may depend on the subscription
   * (activeAssetCtx on a spot coin → "activeSpotAssetCtx").
   */
  channelName?: (sub: Record<string, unknown>) => string;
  /**
   * Reads the subscription's parameters by its input definition (kit/input.ts), once per subscribe: a FieldError for
   * bad ones; what it read is `normalize`'s and `start`'s `input` (readChannel types it).
   */
  read?: (sub: Record<string, unknown>) => unknown;
  /**
   * Normalises the subscription (lower-cased addresses, defaults) from what `read` made of it; the result is what the
   * ack echoes (it must contain every key the client sent, with equal values) and the identity used for duplicate
   * detection and unsubscribe. Throws SubscriptionError for bad params.
   */
  normalize(sub: Record<string, unknown>, input?: unknown): Record<string, unknown>;
  /**
   * The snapshot is read from storage (userFills, userFundings, userNonFundingLedgerUpdates): such subscribes are
   * limited per connection (SessionSettings.snapshots) and read one at a time.
   */
  storedSnapshot?: boolean;
  /** Starts delivery after the ack went out; may send a snapshot first. Returns the teardown. */
  start(sub: Record<string, unknown>, ctx: ChannelContext, input?: unknown): (() => void) | Promise<() => void>;
  /**
   * A stream of stored rows (trades, a user's fills...): its events read back from the store as the live ones, each
   * with its frame's data, for a subscription resumed with `after` or replayed (kit/resume.ts, ws/resume.ts).
   * Channels of state (books, mids, contexts) have none: they resume with a fresh snapshot.
   */
  stored?: (input: unknown) => StoredFrames;
  /**
   * Recorded states of a channel of state (l2Book's book samples), as a stream a `replay` subscription plays: never
   * resumed (with `after` such a channel starts from a fresh snapshot), only replayed.
   */
  replay?: (input: unknown) => StoredFrames;
  /** What a subscribe costs when not its weight's credits (a replay: by the minutes of data it covers). */
  credits?: (input: unknown) => number;
  /**
   * How many subscriptions this one counts as (default 1): its coins, for a subscription of many (`coins`, `dex`). It
   * counts that many in the connection's cap and the key's rate limit, and costs that many subscribes' credits. A
   * FieldError refuses the subscription (an unknown dex).
   */
  weight?: (input: unknown) => number | Promise<number>;
}

/** A stored stream and the data of each event's frame, exactly as the channel's live frames. */
export interface StoredFrames<E = unknown> {
  stream: StoredStream<E>;
  frame(event: E): unknown;
  /** The holes of a window, when not those of the parts' datasets' coverage (recorded samples: where none is). */
  holes?: (start: number, end: number) => Promise<Hole[]>;
}

/** A channel's stored stream with its frame data (typed for the stream's events). */
export const storedFrames = <E>(
  stream: StoredStream<E>,
  frame: (event: E) => unknown,
  holes?: StoredFrames['holes'],
): StoredFrames => ({ stream, frame, ...(holes ? { holes } : {}) }) as StoredFrames;

/**
 * A channel whose parameters `read` reads once (typed) for its ack and its start. The ack is by default the
 * subscription as sent with what was read over it (an address lowercased, a default added).
 */
export function readChannel<I extends object>(channel: {
  type: string;
  channelName?: (sub: Record<string, unknown>) => string;
  storedSnapshot?: boolean;
  read: (sub: Record<string, unknown>) => I;
  normalize?: (sub: Record<string, unknown>, input: I) => Record<string, unknown>;
  start: (input: I, ctx: ChannelContext) => (() => void) | Promise<() => void>;
  stored?: (input: I) => StoredFrames;
  replay?: (input: I) => StoredFrames;
  weight?: (input: I) => number | Promise<number>;
}): Channel {
  const { normalize = (sub, input) => ({ ...sub, ...input }), start, stored, replay, weight, ...rest } = channel;
  // The session ran `read` on this subscription: `input` is what it returned.
  return {
    ...rest,
    normalize: (sub, input) => normalize(sub, input as I),
    start: (_sub, ctx, input) => start(input as I, ctx),
    ...(stored ? { stored: (input: unknown) => stored(input as I) } : {}),
    ...(replay ? { replay: (input: unknown) => replay(input as I) } : {}),
    ...(weight ? { weight: (input: unknown) => weight(input as I) } : {}),
  };
}

/**
 * Follows a service stream on one subscription: its snapshot first when it has one, then each event, shaped by
 * `frame` (the identity keeps the service's object, which /ws encodes once for every subscriber it reaches).
 */
export function sendStream<T>(
  stream: LiveStream<T> | SnapshotStream<T>,
  ctx: ChannelContext,
  frame: (event: T) => unknown = (event) => event,
): () => void {
  const snapshot = 'snapshot' in stream ? stream.snapshot() : null;
  if (snapshot !== null) ctx.send(frame(snapshot));
  return stream.subscribe((event) => ctx.send(frame(event)));
}

/**
 * Follows several service streams on one subscription (one per coin): every snapshot first, then each stream's
 * events as they come, each frame its stream's own (which names its coin).
 */
export function sendStreams<T>(
  streams: readonly (LiveStream<T> | SnapshotStream<T>)[],
  ctx: ChannelContext,
  frame: (event: T) => unknown = (event) => event,
): () => void {
  for (const stream of streams) {
    const snapshot = 'snapshot' in stream ? stream.snapshot() : null;
    if (snapshot !== null) ctx.send(frame(snapshot));
  }
  const stops = streams.map((stream) => stream.subscribe((event) => ctx.send(frame(event))));
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * A snapshot from storage, then live items, with nothing lost or sent twice between them: the stream is followed
 * before the snapshot is read, what arrives meanwhile is held back and sent after the snapshot, less what the
 * snapshot already holds (same `key`). If the snapshot cannot be read, the stream is left again.
 */
export async function snapshotThenLive<I>(
  stream: StoredSnapshotStream<I>,
  send: (items: I[], isSnapshot: boolean) => void,
): Promise<() => void> {
  let pending: I[] | null = [];
  const off = stream.subscribe((items) => {
    if (pending) pending.push(...items);
    else send(items, false);
  });
  try {
    const snapshot = await stream.snapshot();
    send(snapshot, true);
    const seen = new Set(snapshot.map(stream.key));
    const missed = pending.filter((item) => !seen.has(stream.key(item)));
    pending = null;
    if (missed.length) send(missed, false);
    return off;
  } catch (err) {
    off();
    throw err;
  }
}

/** What a frame of a snapshot says of it: `isSnapshot: true` on the snapshot's only. */
export const snapshotFlag = (isSnapshot: boolean) => (isSnapshot ? { isSnapshot: true as const } : {});
