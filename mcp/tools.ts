// The tool catalog of the MCP server: every listed domain's `mcpTools` (kit/domain.ts), each with its
// arguments' validator, compiled once by the one Ajv that checks /info bodies. A bad argument becomes a message
// naming it, as a bad field does on REST.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { CALL_CREDITS } from '../access/costs.ts';
import { DOMAIN_LIST } from '../domains.ts';
import type { McpTool } from '../kit/domain.ts';
import { ARGUMENT_NAME } from '../kit/mcp-tool.ts';
import { argumentFieldError, infoAjv, type JsonSchema } from '../kit/request-schema.ts';
import { FieldError } from '../platform/fields.ts';
import { EncodedList } from '../platform/json-text.ts';
import { capabilityTools } from './capability-tools.ts';

export interface CatalogTool {
  tool: McpTool;
  /** The tool's input schema as listed: unknown arguments refused, whatever the domain wrote. */
  input: JsonSchema;
  /**
   * The arguments read once: what the tool's `credits` and `call` get, or their first fault (`coin: is required,
   * ...`).
   */
  read(
    args: Record<string, unknown>,
  ): { args: Record<string, unknown>; fault: null } | { args: null; fault: FieldError };
  credits(args: Record<string, unknown>): number;
}

/** Arguments as they were sent, once `validate` passed them. */
const checkedBy = (validate: ValidateFunction) => (args: Record<string, unknown>) => {
  if (!validate(args)) throw argumentFieldError((validate.errors as ErrorObject[])[0] as ErrorObject);
  return args;
};

/** A reading that throws a FieldError, as CatalogTool.read answers it. */
const readBy =
  (read: (args: Record<string, unknown>) => Record<string, unknown>): CatalogTool['read'] =>
  (args) => {
    try {
      return { args: read(args), fault: null };
    } catch (err) {
      if (err instanceof FieldError) return { args: null, fault: err };
      throw err;
    }
  };

const NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;

/**
 * What breaks the catalog's one convention in a tool's arguments: each named camelCase (as /info's fields are) and
 * described for a model (what it is, its unit, default and bounds).
 */
export function argumentFaults(tool: McpTool): string[] {
  const properties = (tool.input.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([name, schema]) => [
    ...(ARGUMENT_NAME.test(name) ? [] : [`argument ${name}: must be camelCase`]),
    ...(typeof schema.description === 'string' && schema.description.length >= 10
      ? []
      : [`argument ${name}: needs a description`]),
  ]);
}

/** Every listed domain's tools: those its capabilities declare, and those written by hand. */
export const domainTools = (): McpTool[] =>
  DOMAIN_LIST.flatMap((d) => [
    ...(d.capabilities ? capabilityTools(d.name, d.capabilities) : []),
    ...(d.mcpTools ?? []),
  ]);

/** The catalog of `tools` (default: every listed domain's), refusing a bad or duplicate name at start. */
export function toolCatalog(tools: readonly McpTool[] = domainTools()) {
  const catalog = new Map<string, CatalogTool>();
  for (const tool of tools) {
    if (!NAME.test(tool.name)) throw new Error(`MCP tool name ${tool.name}: must be snake_case <domain>_<capability>`);
    if (catalog.has(tool.name)) throw new Error(`MCP tool ${tool.name} is declared twice`);
    if (tool.input.type !== 'object') throw new Error(`MCP tool ${tool.name}: its input schema must be an object`);
    const faults = argumentFaults(tool);
    if (faults.length) throw new Error(`MCP tool ${tool.name}: ${faults.join('; ')}`);
    const input: JsonSchema = { ...tool.input, additionalProperties: false };
    catalog.set(tool.name, {
      tool,
      input,
      read: tool.read ? readBy(tool.read) : readBy(checkedBy(infoAjv.compile(input))),
      credits: (args) => tool.credits?.(args) ?? CALL_CREDITS,
    });
  }
  return catalog;
}

export type ToolCatalog = ReturnType<typeof toolCatalog>;

/** A short text beside a structured answer: its scalar fields, and how many items each list holds. */
export function defaultSummary(result: Record<string, unknown>): string {
  const parts = Object.entries(result).map(([key, value]) => {
    if (Array.isArray(value) || value instanceof EncodedList)
      return `${key}: ${value.length} item${value.length === 1 ? '' : 's'}`;
    if (value !== null && typeof value === 'object') return `${key}: ${Object.keys(value).length} entries`;
    return `${key}: ${JSON.stringify(value)}`;
  });
  const text = parts.join('; ');
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}
