// The MCP door of a domain's capabilities (kit/capability.ts): each capability with an `mcp` door becomes a tool
// whose input is the capability's definition, read once (`read`: the definition's parse, worded as the catalog
// words a refusal), and whose answer is the page's records under the door's key with the page's paging, or the
// capability's envelope (`{ ..., count, data, hasMore, nextCursor }`).
import type { Capabilities } from '../kit/capability.ts';
import type { McpTool } from '../kit/domain.ts';
import { pagingOf } from '../kit/page.ts';

/** The tools of `domain`'s capabilities that have an MCP door. */
export function capabilityTools(domain: string, capabilities: Capabilities): McpTool[] {
  return capabilities.list.flatMap((c) => {
    const door = c.mcp;
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
        const page = await c.page(service, input as never);
        const records = page.rows.map((row) => c.record(row));
        return c.envelope
          ? { ...c.envelope(page), count: records.length, data: records, ...pagingOf(page) }
          : { [door.key ?? 'rows']: records, ...pagingOf(page) };
      },
      ...(door.summary ? { summary: door.summary } : {}),
    };
    return [tool];
  });
}
