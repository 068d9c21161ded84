// The /ws door of a domain's live capabilities (kit/capability.ts `live`): each with a `channel` door becomes a channel
// whose subscription is read by the capability's definition as an /info body (a FieldError refuses it), acknowledged
// as sent with what was read over it, started as the door says (by default the live stream's snapshot, then each
// event, framed), resumed (`after`) and replayed from its stored stream, each stored event framed as a live one.
import type { Capabilities, ChannelDoor, LiveDoor } from '../kit/capability.ts';
import { type Channel, readChannel, sendStream, storedFrames } from '../kit/channel.ts';
import type { LiveStream } from '../kit/live.ts';

// biome-ignore lint/suspicious/noExplicitAny: a capability list holds capabilities of any input
type Any = any;

/** The channels of `capabilities` that have a /ws door, over `service`, in the list's order. */
export function capabilityChannels(capabilities: Capabilities, service: unknown): Channel[] {
  return capabilities.list.flatMap((c) => {
    const live = c.live as LiveDoor<unknown, Any> | undefined;
    const door = live?.channel as ChannelDoor<unknown, Any, unknown> | undefined;
    if (!live || !door) return [];
    const frame = door.frame ?? ((event: unknown) => event);
    const stored = live.stored && (!live.storing || live.storing(service)) ? live.stored : undefined;
    const { weight } = door;
    const replay = door.replay && (!live.storing || live.storing(service)) ? door.replay : undefined;
    return [
      readChannel<Record<string, unknown>>({
        type: door.type ?? live.name,
        ...(door.channelName ? { channelName: door.channelName } : {}),
        ...(door.storedSnapshot ? { storedSnapshot: true } : {}),
        read: door.read ?? ((sub) => c.input.parse(sub, 'info')),
        ...(door.normalize ? { normalize: door.normalize } : {}),
        start: (input, ctx) => {
          if (door.start) return door.start(service, input, ctx);
          const send = (stream: LiveStream<unknown>) => sendStream(stream, ctx, (event) => frame(event, input));
          const stream = (live.live ?? live.resumable)?.(service, input) as
            | LiveStream<unknown>
            | Promise<LiveStream<unknown>>;
          // Followed at once where the stream is (no tick between the ack and the first event).
          return stream instanceof Promise ? stream.then(send) : send(stream);
        },
        ...(stored ? { stored: (input) => storedFrames(stored(service, input), (event) => frame(event, input)) } : {}),
        ...(replay ? { replay: (input) => replay(service, input) } : {}),
        ...(weight ? { weight: (input) => weight(service, input) } : {}),
      }),
    ];
  });
}
