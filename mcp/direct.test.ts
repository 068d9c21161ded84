// The tool server's own tools/call path: which requests it takes (only those the SDK's transport and server would
// take as they are), and that the bytes it writes are the JSON-RPC response the SDK's types accept, with fields the
// service had already encoded copied in place.
import type { IncomingMessage } from 'node:http';
import {
  type CallToolResult,
  CallToolResultSchema,
  JSONRPCResultResponseSchema,
  LATEST_PROTOCOL_VERSION,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { shared } from '../kit/info.ts';
import { EncodedList } from '../platform/json-text.ts';
import { directCallId, toolAnswerBytes } from './direct.ts';
import { defaultSummary } from './tools.ts';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const request = (headers: Record<string, string | undefined> = HEADERS) => ({ headers }) as unknown as IncomingMessage;
const CALL = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'markets_all_mids', arguments: {} } };

/** The answer as the SDK's client reads it: a JSON-RPC result response whose result is a CallToolResult. */
function parsed(bytes: Buffer) {
  const message = JSONRPCResultResponseSchema.parse(JSON.parse(bytes.toString('utf8')));
  return { id: message.id, result: CallToolResultSchema.parse(message.result) };
}

describe('directCallId', () => {
  it('takes a single tools/call with the headers the transport asks for, with or without a protocol version', () => {
    expect(directCallId(request(), CALL)).toBe(7);
    expect(directCallId(request(), { ...CALL, id: 'a' })).toBe('a');
    expect(directCallId(request({ ...HEADERS, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }), CALL)).toBe(7);
    expect(directCallId(request({ ...HEADERS, 'content-type': 'application/json; charset=utf-8' }), CALL)).toBe(7);
  });

  it('leaves to the SDK what it refuses or answers otherwise', () => {
    const refused: [string, IncomingMessage, unknown][] = [
      ['Accept without event-stream (406)', request({ ...HEADERS, accept: 'application/json' }), CALL],
      ['no Accept (406)', request({ 'content-type': 'application/json' }), CALL],
      ['a text body (415)', request({ ...HEADERS, 'content-type': 'text/plain' }), CALL],
      ['an unknown protocol version (400)', request({ ...HEADERS, 'mcp-protocol-version': '1999-01-01' }), CALL],
      ['a batch', request(), [CALL]],
      ['a notification (202)', request(), { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} }],
      ['another method', request(), { ...CALL, method: 'tools/list', params: {} }],
      ['a name that is not text (invalid params)', request(), { ...CALL, params: { name: 5 } }],
      ['not JSON-RPC 2.0', request(), { ...CALL, jsonrpc: '1.0' }],
      ['a task-augmented call', request(), { ...CALL, params: { ...CALL.params, task: { ttl: 1000 } } }],
    ];
    for (const [what, req, body] of refused) expect(directCallId(req, body), what).toBeUndefined();
  });
});

describe('toolAnswerBytes', () => {
  it('writes the response the SDK would: the same JSON as the result object, read back by its schemas', () => {
    const result: CallToolResult = {
      content: [{ type: 'text', text: '2 mid prices, "quoted" \u2713' }],
      structuredContent: { mids: { BTC: '90000.5', 'PURR/USDC': '0.1' }, note: 'a "note"', count: 2, none: null },
    };
    for (const id of [7, 'call-1', 0]) {
      const bytes = toolAnswerBytes(id, result);
      expect(JSON.parse(bytes.toString('utf8'))).toEqual({ jsonrpc: '2.0', id, result });
      expect(parsed(bytes)).toEqual({ id, result });
    }
  });

  it('copies the JSON the service encoded for a shared answer object', () => {
    const mids = shared({ BTC: '90000.5', ETH: '3000.1' });
    const bytes = toolAnswerBytes(1, {
      content: [{ type: 'text', text: '2 mid prices' }],
      structuredContent: { mids },
    });
    expect(bytes.toString('utf8')).toContain(`"structuredContent":{"mids":${JSON.stringify(mids)}}`);
    expect(parsed(bytes).result.structuredContent).toEqual({ mids });
  });

  it('copies an EncodedList as its array, which JSON.stringify (the SDK path) writes the same', () => {
    const fills = [
      { coin: 'BTC', px: '90000.5', tid: 1 },
      { coin: 'ETH', px: '3000.1', tid: 2 },
    ];
    const list = new EncodedList(Buffer.from(JSON.stringify(fills)), fills.length);
    const result = {
      content: [{ type: 'text' as const, text: defaultSummary({ fills: list }) }],
      structuredContent: { fills: list },
    };
    expect(result.content[0]?.text).toBe('fills: 2 items');
    const bytes = toolAnswerBytes(5, result);
    expect(parsed(bytes).result.structuredContent).toEqual({ fills });
    expect(JSON.parse(JSON.stringify(result.structuredContent))).toEqual({ fills });
  });

  it('writes tool errors, empty structured content and skips undefined fields as JSON.stringify does', () => {
    const error: CallToolResult = { isError: true, content: [{ type: 'text', text: 'user: must be a 0x address' }] };
    expect(parsed(toolAnswerBytes(2, error))).toEqual({ id: 2, result: error });
    const empty: CallToolResult = { content: [], structuredContent: {} };
    expect(parsed(toolAnswerBytes(3, empty))).toEqual({ id: 3, result: empty });
    const sparse = { content: [], structuredContent: { a: undefined, b: 1 } };
    expect(JSON.parse(toolAnswerBytes(4, sparse).toString('utf8')).result).toEqual(JSON.parse(JSON.stringify(sparse)));
  });
});
