// What every channel module uses: parameter checks that become `Invalid subscription` errors, and /ws's policy for
// a service's live stream (its snapshot first, as the exchange sends one, then every event).
import { FieldError } from '../../platform/fields.ts';
import type { LiveStream, SnapshotStream } from '../../subgraphs/live.ts';
import { type ChannelContext, SubscriptionError } from '../ws/protocol.ts';

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

/** Runs a service call whose refusal of the caller's input (a FieldError, sync or async) is the subscription's. */
export function subscriptionInput<T>(call: () => T): T {
  const refuse = (err: unknown): never => {
    throw err instanceof FieldError ? new SubscriptionError(err.message) : err;
  };
  try {
    const out = call();
    return (out instanceof Promise ? out.catch(refuse) : out) as T;
  } catch (err) {
    return refuse(err);
  }
}

export function requireString(sub: Record<string, unknown>, key: string): string {
  const v = sub[key];
  if (typeof v !== 'string' || v === '') throw new SubscriptionError(`${key}: must be a non-empty string`);
  return v;
}

export function optionalIn<T>(sub: Record<string, unknown>, key: string, allowed: readonly T[]): T | null {
  const v = sub[key];
  if (v === undefined || v === null) return null;
  if (!allowed.includes(v as T)) throw new SubscriptionError(`${key}: must be one of ${allowed.join(', ')}`);
  return v as T;
}
