// Resuming and replaying on /ws, over any channel that declares its stored stream (kit/channel.ts `stored`, the
// mechanism in kit/resume.ts): a subscription's `after` / `positions` keys, its frames with a top-level `position`,
// and the `replay` subscription with its `gap` and `replayComplete` frames.
import { replayCredits } from '../../access/costs.ts';
import type { Channel, ChannelContext } from '../../kit/channel.ts';
import { followStored, type HolesOf, readReplayWindow, replayWindow } from '../../kit/resume.ts';
import { FieldError } from '../../platform/fields.ts';
import { isRecord } from './frames.ts';

/** Positions are short (a block and a time per part); anything longer is not one. */
const MAX_POSITION_CHARS = 400;

/** A subscription's resume keys: `after` (a position), or `positions: true` (from now, frames with positions). */
export interface ResumeRequest {
  after: string | null;
}

/**
 * The subscription without its resume keys (what the channel reads), and what they ask; a FieldError names a bad one.
 */
export function resumeOf(sent: Record<string, unknown>): {
  sub: Record<string, unknown>;
  resume: ResumeRequest | null;
} {
  if (!('after' in sent) && !('positions' in sent)) return { sub: sent, resume: null };
  const { after, positions, ...sub } = sent;
  if (positions !== undefined && typeof positions !== 'boolean') {
    throw new FieldError(`positions: must be true or false, got ${JSON.stringify(positions)?.slice(0, 60)}`);
  }
  if (after !== undefined && (typeof after !== 'string' || after.length === 0 || after.length > MAX_POSITION_CHARS)) {
    throw new FieldError(
      `after: must be the "position" string of a frame (1 to ${MAX_POSITION_CHARS} characters), got ${JSON.stringify(after)?.slice(0, 60)}`,
    );
  }
  if (after === undefined && positions !== true) return { sub, resume: null };
  return { sub, resume: { after: after === undefined ? null : (after as string) } };
}

/**
 * Starts a resumed subscription: a stored stream's events after the position (or from now) with their positions,
 * then live ones; a channel of state (no stored stream) starts as usual, its snapshot first.
 */
export function startResumed(
  channel: Channel,
  sub: Record<string, unknown>,
  input: unknown,
  resume: ResumeRequest,
  ctx: ChannelContext,
): (() => void) | Promise<() => void> {
  if (!channel.stored) return channel.start(sub, ctx, input);
  const { stream, frame } = channel.stored(input);
  return followStored(stream, resume.after, {
    send: (event, position) => ctx.sendAt?.(frame(event), position),
    ready: () => ctx.ready?.() ?? Promise.resolve(true),
  });
}

/** What a resumed subscription's ack says it gets: the missed rows from the store, or a fresh snapshot. */
export const resumeKind = (channel: Channel) => (channel.stored ? 'stored' : 'snapshot');

interface ReplayInput {
  channel: Channel;
  streamInput: unknown;
  stream: Record<string, unknown>;
  start: number;
  end: number;
  speed: number;
}

/** Reads a replay subscription; a FieldError names the first bad field. */
export function readReplay(sub: Record<string, unknown>, channels: ReadonlyMap<string, Channel>): ReplayInput {
  for (const key of Object.keys(sub)) {
    if (!['type', 'stream', 'start', 'end', 'speed'].includes(key)) {
      throw new FieldError(`${key}: not a replay field (type, stream, start, end, speed)`, 'unknown_parameter');
    }
  }
  const stream = sub.stream;
  const channel = isRecord(stream) && typeof stream.type === 'string' ? channels.get(stream.type) : undefined;
  if (!isRecord(stream) || !(channel?.stored || channel?.replay)) {
    const stored = [...channels.values()].filter((c) => c.stored || c.replay).map((c) => c.type);
    throw new FieldError(
      `stream: must be the subscription of a stored stream (${stored.join(', ')}), got ${JSON.stringify(stream)?.slice(0, 80)}`,
    );
  }
  let streamInput: unknown;
  try {
    streamInput = channel.read?.(stream);
    channel.normalize(stream, streamInput);
  } catch (err) {
    if (err instanceof FieldError) throw new FieldError(`stream.${err.message}`, err.code);
    throw err;
  }
  const { start, end, speed } = readReplayWindow(sub);
  return { channel, streamInput, stream, start, end, speed };
}

/** The store's holes of a window, shared with GraphQL's replay (compat-rest/server.ts imports it from here). */

export interface ReplaySettings {
  /** The store's holes in a window for the stream's datasets. */
  holes: HolesOf;
  /** The clock pacing reads (tests: a fast one). */
  clock?: { now(): number; sleep(ms: number): Promise<void> };
}

/**
 * The `replay` subscription: `stream` (a stored stream's subscription, or l2Book's: its recorded samples), `start` and
 * `end` (ms), `speed` (1–500).
 * Its frames are the stream's, on its data channel, each with its position; `gap` where the store has a hole; then
 * `replayComplete`. Charged by the minutes of data it covers (access/costs.ts).
 */
export function replayChannel(channels: ReadonlyMap<string, Channel>, settings: ReplaySettings): Channel {
  return {
    type: 'replay',
    read: (sub) => readReplay(sub, channels),
    normalize: (sub) => ({ ...sub }),
    channelName: (sub) => {
      const input = readReplay(sub, channels);
      return (
        input.channel.channelName?.(input.channel.normalize(input.stream, input.streamInput)) ?? input.channel.type
      );
    },
    credits: (input) => {
      const { start, end } = input as ReplayInput;
      return replayCredits(end - start);
    },
    async start(_sub, ctx, raw) {
      const input = raw as ReplayInput;
      const { stream, frame, holes } = input.channel.stored?.(input.streamInput) ??
        input.channel.replay?.(input.streamInput) ?? { stream: { parts: [] }, frame: () => 0 };
      let stopped = false;
      replayWindow(
        stream,
        input,
        holes ? (_datasets, start, end) => holes(start, end) : settings.holes,
        {
          send: (event, position) => ctx.sendAt?.(frame(event), position),
          ready: () => ctx.ready?.() ?? Promise.resolve(true),
          gap: (hole) => ctx.sendAt?.(hole, undefined, 'gap'),
          complete: (summary) => ctx.sendAt?.(summary, undefined, 'replayComplete'),
        },
        () => stopped,
        settings.clock,
      ).catch((err: unknown) => ctx.fail?.(err));
      return () => {
        stopped = true;
      };
    },
  };
}
