// The subscription door of a domain's live capabilities (kit/capability.ts `live`): each with a `subscription` door
// becomes a field of the subgraph's Subscription named as its stream, its arguments the input definition's
// (read once by its `parse`), and
//
//   - of a stored stream: `after` (a position: what was missed, from the store), and its `<name>Replay`
//     (kit/replay-fields.ts), each event sent as the replay sends it;
//   - of a stream resumed from the bus's log: `after` (a cursor of the log);
//   - of a stream of states: no `after`, a slow reader losing the oldest; where its states are recorded, their
//     `<name>Replay` (`recorded`), each state sent as it is.
import type { Capabilities, Capability, LiveDoor, SubscriptionDoor } from './capability.ts';
import type { SubgraphPlatform } from './domain.ts';
import {
  AFTER_DESCRIPTION,
  type Cursored,
  cursoredIterator,
  cursorOn,
  liveIterator,
  STORED_AFTER_DESCRIPTION,
  storedIterator,
  withCursor,
} from './live.ts';
import { type ReplayField, replayFields } from './replay-fields.ts';
import { holesFrom, type StoredStream } from './resume.ts';

// biome-ignore lint/suspicious/noExplicitAny: Pothos' builder and refs, whatever the subgraph's types
type Any = any;

type Args = Record<string, unknown>;

/** The context of a subgraph with replays: dataCoverage tells a replay's gaps. */
type WithCoverage = { coverage?: SubgraphPlatform['coverage'] };

/** An event with its cursor as the field sends it. */
const cursoredOf = (door: SubscriptionDoor<Any, unknown>) =>
  door.of ??
  ((event: unknown, cursor?: string) =>
    door.batch
      ? withCursor({ event: event as object[], cursor: cursor as string })
      : cursorOn({ event: event as object, cursor: cursor as string }));

/** The stored stream of an input, or why there is none. */
function storedOf(live: LiveDoor<unknown, Any>, service: unknown, input: unknown): StoredStream<unknown> {
  if (!live.stored || (live.storing && !live.storing(service)))
    throw new Error('replays need the service to follow the event bus');
  return live.stored(service, input as never);
}

/** Adds the Subscription fields (and replays) of `capabilities` to `builder`; `serviceOf` is their service. */
export function liveFields<Context>(
  builder: Any,
  capabilities: Capabilities,
  serviceOf: (context: Context) => unknown,
): void {
  const live = capabilities.list.filter((c): c is Capability & { live: LiveDoor<unknown, Any> } =>
    Boolean(c.live?.subscription),
  );
  if (!live.length) return;
  for (const c of live) {
    const door = c.live.subscription as SubscriptionDoor<Any, unknown>;
    const { stored, resumable } = c.live;
    const list = door.batch ? { assumedSize: door.batch } : false;
    const args = (t: Any) => c.input.args(t, { omit: door.omit ?? [], types: door.types });
    const of = cursoredOf(door);
    builder.subscriptionFields((t: Any) => ({
      [c.live.name]: t.field({
        type: door.batch ? [door.type] : door.type,
        description: door.description,
        args: {
          ...args(t),
          ...(stored || resumable
            ? { after: t.arg.string({ description: stored ? STORED_AFTER_DESCRIPTION : AFTER_DESCRIPTION }) }
            : {}),
          ...(door.positions ? { positions: t.arg.boolean({ description: door.positions }) } : {}),
        },
        ...(list ? { listSize: list } : {}),
        subscribe: async (_root: unknown, { after, positions, ...a }: Args, ctx: Context) => {
          const service = serviceOf(ctx);
          const input = c.input.parse(a, 'graphql');
          const cursored = !door.positions || after != null || positions;
          if (stored && cursored && (!c.live.storing || c.live.storing(service)))
            return storedIterator(stored(service, input as never), after as string | null | undefined);
          if (resumable) return cursoredIterator(resumable(service, input as never), after as string | null);
          const follow = c.live.live as NonNullable<LiveDoor<unknown, Any>['live']>;
          return liveIterator(await follow(service, input as never), door.queue);
        },
        resolve: (frame: unknown) =>
          frame !== null && typeof frame === 'object' && 'cursor' in frame && 'event' in frame
            ? of((frame as Cursored<unknown>).event, (frame as Cursored<unknown>).cursor)
            : door.of && !(stored || resumable)
              ? door.of(frame)
              : frame,
      }),
    }));
    if (stored && door.replay) {
      const field: ReplayField<Context> = {
        name: `${c.live.name}Replay`,
        item: door.type,
        list,
        description: door.replay,
        args,
        stream: (a, ctx) => storedOf(c.live, serviceOf(ctx), c.input.parse(a, 'graphql')),
        data: (event, cursor) => of(event, cursor),
        holes: (ctx) => holesFrom((ctx as WithCoverage).coverage as NonNullable<WithCoverage['coverage']>),
      };
      replayFields<Context>(builder, [field]);
    }
    const recorded = door.recorded;
    if (recorded) {
      const states = (a: Args, ctx: Context) => recorded.states(serviceOf(ctx), c.input.parse(a, 'graphql'));
      const field: ReplayField<Context> = {
        name: `${c.live.name}Replay`,
        item: recorded.type,
        list: false,
        description: recorded.description,
        args,
        stream: (a, ctx) => states(a, ctx).stream,
        data: (state) => state,
        holes: (ctx, a) => (_datasets, start, end) => states(a, ctx).holes(start, end),
      };
      replayFields<Context>(builder, [field]);
    }
  }
}
