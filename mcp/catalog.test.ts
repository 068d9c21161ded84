// The tool catalog's one convention, checked over every domain's tools without a server: each argument camelCase
// and described for a model, each tool costing more than a credit saying so; a tool that drifts is refused at start.
import { describe, expect, it } from 'vitest';
import type { McpTool } from '../kit/domain.ts';
import { defineInput, int } from '../kit/input.ts';
import { argumentFaults, domainTools, toolCatalog } from './tools.ts';

const TOOLS = domainTools();

const tool = (input: McpTool['input']): McpTool => ({
  name: 'test_tool',
  title: 'Test tool',
  description: 'A tool of this test, never listed.',
  input,
  call: async () => ({}),
});

describe('the MCP tool catalog', () => {
  it('holds the tools of all five domains', () => {
    const domains = new Set(TOOLS.map((t) => t.name.split('_')[0]));
    expect([...domains].sort()).toEqual(['accounts', 'analytics', 'evm', 'hip4', 'markets']);
    expect(toolCatalog().size).toBe(TOOLS.length);
  });

  it.each(TOOLS.map((t) => [t.name, t] as const))('%s: every argument camelCase and described', (_name, t) => {
    expect(argumentFaults(t)).toEqual([]);
    const properties = (t.input.properties ?? {}) as Record<string, { description: string }>;
    for (const [name, schema] of Object.entries(properties)) {
      expect(name).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(schema.description.length, `${t.name}.${name}`).toBeGreaterThanOrEqual(10);
    }
  });

  it('says its cost in the description of every tool costing more than a credit', () => {
    const priced = TOOLS.filter((t) => t.credits);
    expect(priced.map((t) => t.name).sort()).toEqual([
      'analytics_batch_performance',
      'analytics_builder_external_activity',
    ]);
    for (const t of priced) expect(t.description, t.name).toMatch(/costs? \d+ credits? per wallet/i);
  });

  it('refuses at start a tool whose argument is snake_case or undescribed', () => {
    const snake = tool(defineInput({ start_time: int('a start, in epoch milliseconds', { min: 0, max: 10 }) }).schema);
    expect(argumentFaults(snake)).toEqual(['argument start_time: must be camelCase']);
    expect(() => toolCatalog([snake])).toThrow('MCP tool test_tool: argument start_time: must be camelCase');
    // A schema written by hand, not from a definition (whose fields each have their sentence).
    const bare = tool({ type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 10 } } });
    expect(() => toolCatalog([bare])).toThrow('MCP tool test_tool: argument limit: needs a description');
    const limit = int('how many rows (1 to 10)', { min: 1, max: 10 });
    expect(toolCatalog([tool(defineInput({ limit }).schema)]).size).toBe(1);
  });
});
