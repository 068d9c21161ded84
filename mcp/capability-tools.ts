// The MCP door of a domain's capabilities (kit/capability.ts): each capability with an `mcp` door becomes a tool
// whose input is the capability's definition, read once (`read`: the definition's parse, worded as the catalog
// words a refusal), and whose answer is the page's records under the door's key with the page's paging (its
// `nextCursor` when the input takes a cursor), or the capability's envelope (`{ ..., count, data, hasMore,
// nextCursor }`), or a whole answer (under the key, or as it is). A null answer is an empty one with a `note`
// saying why. A live capability's `collect` door becomes a tool collecting its live stream for some seconds: its
// items under the door's key, their count, why it stopped and the seconds it took.
import {
  type Capabilities,
  type Capability,
  type CollectDoor,
  callOf,
  type LiveDoor,
  type Paged,
  takesCursor,
} from '../kit/capability.ts';
import type { McpTool } from '../kit/domain.ts';
import { shared } from '../kit/info.ts';
import type { SnapshotStream } from '../kit/live.ts';
import { collect } from '../kit/mcp-tool.ts';
import { pagingOf } from '../kit/page.ts';

/** The tools of `domain`'s capabilities that have an MCP door. */
export function capabilityTools(domain: string, capabilities: Capabilities): McpTool[] {
  return capabilities.list.flatMap((c) => {
    const door = c.mcp;
    if (c.live?.collect) return [collectTool(domain, c, c.live.collect)];
    if (!door) return [];
    const tool: McpTool = {
      name: door.name,
      title: door.title,
      description: door.description,
      input: c.input.schema,
      read: (args) => c.input.parse(args, 'mcp'),
      ...(c.credits ? { credits: (input) => c.credits?.(input as never) as number } : {}),
      async call(input, { services }) {
        const service = (services as unknown as Record<string, unknown>)[domain];
        return answerOf(c, await callOf(c, service, input, 'mcp', undefined, services), input);
      },
      ...(door.summary ? { summary: door.summary } : {}),
    };
    return [tool];
  });
}

/** The tool collecting a live capability's stream: its input the door's, the stream's own fields read from it. */
function collectTool(domain: string, c: Capability, door: CollectDoor<unknown, unknown>): McpTool {
  const live = c.live as LiveDoor<unknown, never>;
  return {
    name: door.name,
    title: door.title,
    description: door.description,
    input: door.input.schema,
    read: (args) => door.input.parse(args, 'mcp'),
    async call(args, { services, signal }) {
      const service = (services as unknown as Record<string, unknown>)[domain];
      const input = Object.fromEntries(Object.entries(args).filter(([key]) => Object.hasOwn(c.input.fields, key)));
      const follow = (live.live ?? live.resumable) as NonNullable<LiveDoor<unknown, never>['live']>;
      const stream = await (door.stream ? door.stream(service, args) : follow(service, input as never));
      const first = door.snapshot ? (stream as SnapshotStream<unknown>).snapshot() : null;
      const max = typeof door.max === 'number' ? door.max : door.max(args);
      const seconds = args.seconds as number;
      const got = await collect(stream, { seconds, max, signal, ...(door.items ? { items: door.items } : {}) });
      const items = first === null ? got.items : [first, ...got.items];
      const answer = door.answer?.(items, args) ?? { [door.key ?? 'items']: items, count: items.length };
      return { ...answer, stoppedBy: got.stoppedBy, seconds: got.seconds };
    },
    ...(door.summary ? { summary: door.summary } : {}),
  };
}

/** A page's paging as the capability states it: its next cursor only when its input takes one. */
const paging = (c: Capability, page: { hasMore: boolean; nextCursor: string | null }) =>
  takesCursor(c) ? pagingOf(page) : { hasMore: page.hasMore };

function answerOf(c: Capability, result: unknown, input: unknown): Record<string, unknown> {
  const door = c.mcp as NonNullable<Capability['mcp']>;
  if (result === null && !c.orNull) {
    const note = c.missing?.(input as never) ?? 'none';
    if (!c.page) return { ...(door.key ? { [door.key]: [] } : {}), note };
    return { [door.key ?? 'rows']: [], ...paging(c, { hasMore: false, nextCursor: null }), note };
  }
  if (!c.page) {
    const value = door.of ? door.of(result) : result;
    // An answer handed out unchanged is encoded once: the tool server copies its bytes (mcp/direct.ts).
    const answer = c.shared && typeof value === 'object' && value !== null ? shared(value) : value;
    return door.key ? { [door.key]: answer } : { ...(answer as object) };
  }
  const page = result as Paged<unknown>;
  const records = c.record ? page.rows.map((row) => c.record?.(row)) : page.rows;
  if (c.envelope) return { ...c.envelope(page as never), count: records.length, data: records, ...pagingOf(page) };
  return { [door.key ?? 'rows']: records, ...paging(c, page), ...door.beside?.(page) };
}
