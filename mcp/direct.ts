// The tool server's own path for the one request it answers most: a single `tools/call` the SDK's transport would
// accept is answered here, its JSON-RPC response written as bytes around the answer's JSON (fields the service had
// already encoded, e.g. the shared mids map or an EncodedList of fills, are copied, not parsed and encoded again), without building the SDK's
// server and transport for it. Anything else (initialize, tools/list, notifications, batches, a request the SDK
// would refuse) still goes through the SDK, which answers it as before.
import type { IncomingMessage } from 'node:http';
import { mediaTypeEssence } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { knownJson } from '../kit/info.ts';
import { EncodedList } from '../platform/json-text.ts';

/**
 * The id of the `tools/call` request `body` is when the SDK's Streamable HTTP transport and server would take it as
 * it is (the checks its `handlePostRequest` and its tools/call validation make), else undefined: that request goes
 * to the SDK, and its refusal (406, 415, 400, invalid params) stays the SDK's own. A task-augmented call goes there
 * too (this server has no tasks; the SDK says so).
 */
export function directCallId(req: IncomingMessage, body: unknown): string | number | undefined {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (mediaTypeEssence(req.headers['content-type']) !== 'application/json') return undefined;
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && (typeof version !== 'string' || !SUPPORTED_PROTOCOL_VERSIONS.includes(version))) {
    return undefined;
  }
  if (!JSONRPCRequestSchema.safeParse(body).success) return undefined;
  const call = CallToolRequestSchema.safeParse(body);
  if (!call.success || call.data.params.task !== undefined) return undefined;
  return (body as { id: string | number }).id;
}

const RESULT_OPEN = Buffer.from('{"result":{"content":');

/**
 * The JSON-RPC response to call `id` with `result`, as the SDK writes it (`{"result":…,"jsonrpc":"2.0","id":…}`):
 * each field of the structured content the service already encoded (kit/info.ts `knownJson`) is copied as it is.
 */
export function toolAnswerBytes(id: string | number, result: CallToolResult): Buffer {
  const parts: Buffer[] = [RESULT_OPEN, Buffer.from(JSON.stringify(result.content))];
  if (result.structuredContent) {
    let sep = ',"structuredContent":{';
    for (const [name, value] of Object.entries(result.structuredContent)) {
      if (value === undefined) continue;
      const known =
        value instanceof EncodedList
          ? value.json
          : typeof value === 'object' && value !== null
            ? knownJson(value)
            : undefined;
      parts.push(Buffer.from(`${sep}${JSON.stringify(name)}:`), known ?? Buffer.from(JSON.stringify(value)));
      sep = ',';
    }
    parts.push(Buffer.from(sep === ',' ? '}' : `${sep}}`));
  }
  if (result.isError !== undefined) parts.push(Buffer.from(`,"isError":${result.isError}`));
  parts.push(Buffer.from(`},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`));
  return Buffer.concat(parts);
}
