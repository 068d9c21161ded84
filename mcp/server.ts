// The MCP tool server (spec §1, §5.4–5.6, §7): JSON-RPC on `POST /mcp` over the SDK's Streamable HTTP transport,
// stateless (no session), answers as JSON: a tools/call the SDK would take is answered by direct.ts, every other
// request by a server and transport of the SDK's built for it; `GET /health` public. Every /mcp
// request needs `Authorization: Bearer <key>` (data and mcp keys alike; there is no anonymous access, whatever the
// other servers allow); requests count in the key's per-minute window, and each tool call is charged its credits
// before it runs. The tools are the domains' (mcp/tools.ts) and call the same services as every other interface.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { type Authenticator, isLoopbackHost } from '../access/auth.ts';
import type { ApiKey } from '../access/keys.ts';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../db/unavailable.ts';
import type { CompatServices } from '../kit/info.ts';
import { infoAjv } from '../kit/request-schema.ts';
import { type ErrorCode, errorBody, statusOf } from '../platform/error-codes.ts';
import { FieldError } from '../platform/fields.ts';
import { nestsDeeper, tooDeep } from '../platform/json-depth.ts';
import { UpstreamError } from '../platform/upstream.ts';
import { directCallId, toolAnswerBytes } from './direct.ts';
import { type CatalogTool, defaultSummary, type ToolCatalog, toolCatalog } from './tools.ts';

export const MCP_SERVER_NAME = 'hl-data-graph';
const VERSION = '0.1.0';
const MAX_BODY_BYTES = 1 << 20;

/** §7: what a /mcp request without a (valid) key is told. */
export const SEND_KEY_MESSAGE = 'Unauthorized: send your API key as "Authorization: Bearer <API_KEY>"';

export interface McpServerOptions {
  services: CompatServices;
  auth: Authenticator;
  port: number;
  host?: string;
  /** Host names (besides loopback's and `host`) a request's Host and Origin may name: MCP_ALLOWED_HOSTS. */
  allowedHosts?: readonly string[];
  /** The tools served (default: every listed domain's). */
  tools?: ToolCatalog;
  log?: (line: string) => void;
}

/**
 * The SDK's JSON Schema validator (it checks elicitation answers) over the one Ajv of the service: by default each
 * SDK server builds an Ajv of its own, which per request (a server per request, stateless) cost more than the call.
 */
const sdkValidator: jsonSchemaValidator = {
  getValidator<T>(schema: object) {
    const validate = infoAjv.compile(schema);
    return (input: unknown) =>
      validate(input)
        ? { valid: true as const, data: input as T, errorMessage: undefined }
        : { valid: false as const, data: undefined, errorMessage: infoAjv.errorsText(validate.errors) };
  },
};

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/**
 * A JSON-RPC error answer (the transport's own shape) to a refusal: the HTTP status of its error code
 * (platform/error-codes.ts), and the code in the error's `data` (`{"code": "rate_limited"}`) for programs to read.
 */
function rpcError(
  res: ServerResponse,
  refused: ErrorCode,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: unknown = null,
) {
  res.writeHead(statusOf(refused), { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message, data: { code: refused } }, id }));
}

/** §7's answer to a request without a (valid) key, exactly as §7 states it: no `data`. */
function sendKeyRefusal(res: ServerResponse) {
  res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: SEND_KEY_MESSAGE }, id: null }));
}

/** The host name of a Host header or an Origin (`example.com:8090` → `example.com`), lowercase. */
function hostName(value: string, isOrigin: boolean): string | null {
  try {
    return new URL(isOrigin ? value : `http://${value}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * DNS rebinding protection: a page on another site that rebinds its name to this machine sends its own Host and
 * Origin. Loopback servers answer only loopback names; others their own name and MCP_ALLOWED_HOSTS (one bound to
 * every interface with none configured cannot know its names, and relies on keys alone).
 */
function hostGuard(host: string, allowed: readonly string[]) {
  const names = new Set([...LOOPBACK_NAMES, ...allowed.map((h) => h.toLowerCase())]);
  if (!WILDCARD.has(host)) names.add(host.toLowerCase());
  const open = WILDCARD.has(host) && allowed.length === 0;
  return (req: IncomingMessage): string | null => {
    if (open) return null;
    const hostHeader = req.headers.host;
    const name = hostHeader ? hostName(hostHeader, false) : null;
    if (!name || !names.has(name)) return `Host ${JSON.stringify(hostHeader ?? '')} is not allowed`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const from = hostName(origin, true);
      if (!from || !names.has(from)) return `Origin ${JSON.stringify(origin)} is not allowed`;
    }
    return null;
  };
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A tool call's arguments as sent (absent: none). */
const argumentsOf = (params: unknown): unknown => (isRecord(params) ? (params.arguments ?? {}) : {});

/** The request id a `notifications/cancelled` message names (undefined: not one). */
function cancelledCall(message: unknown): unknown {
  if (!isRecord(message) || message.method !== 'notifications/cancelled' || !isRecord(message.params)) return undefined;
  return message.params.requestId;
}

/**
 * A tool error result: the model reads the text and may retry with other arguments; a program reads the structured
 * content, the error body of every interface (`{error, code, msg}`, its code from platform/error-codes.ts).
 */
const toolError = (code: ErrorCode, text: string): CallToolResult => ({
  isError: true,
  content: [{ type: 'text', text }],
  structuredContent: errorBody(code, text),
});

/** What a failed call tells the caller: its input's fault, the node's or storage's; our bugs are logged. */
function failedCall(err: unknown, log: (line: string) => void, tool: string): CallToolResult {
  if (err instanceof FieldError) return toolError(err.code, err.message);
  if (err instanceof UpstreamError) return toolError(err.code, err.callerMessage);
  if (isStorageUnavailable(err)) return toolError('storage_unavailable', STORAGE_UNAVAILABLE);
  if (err instanceof Error && err.name === 'AbortError') return toolError('cancelled', 'cancelled');
  log(`mcp: tool ${tool} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return toolError('internal_error', 'internal error');
}

export async function startMcpServer(opts: McpServerOptions) {
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? ((line: string) => console.error(line));
  const catalog = opts.tools ?? toolCatalog();
  const guard = hostGuard(host, opts.allowedHosts ?? []);
  // Every request's controller, aborted when the server stops (live tools stop collecting): a set rather than
  // AbortSignal.any per call, which costs ~50 µs on node 20 (a third of a small answer's budget).
  const inFlight = new Set<AbortController>();
  let stopped = false;
  /** Tool calls in flight by bearer and JSON-RPC id, for `notifications/cancelled` (same key only). */
  const running = new Map<string, AbortController>();
  const listed = [...catalog.values()].map(({ tool, input }) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: input as { type: 'object'; [k: string]: unknown },
    annotations: { title: tool.title, readOnlyHint: true, openWorldHint: false },
  }));

  /** The checked call a request carries, charged before the SDK sees it (null: not a tools/call). */
  interface Prepared {
    entry: CatalogTool | undefined;
    args: Record<string, unknown>;
    fault: FieldError | null;
  }

  function prepare(message: unknown): Prepared | null {
    if (!isRecord(message) || message.method !== 'tools/call' || !isRecord(message.params)) return null;
    const name = message.params.name;
    const entry = typeof name === 'string' ? catalog.get(name) : undefined;
    const raw = argumentsOf(message.params);
    if (!entry) {
      const fault = new FieldError(`unknown tool ${JSON.stringify(name)}: tools/list names them`, 'unknown_type');
      return { entry, args: {}, fault };
    }
    if (!isRecord(raw)) return { entry, args: {}, fault: new FieldError('arguments: must be an object') };
    const read = entry.read(raw);
    return { entry, args: read.args ?? raw, fault: read.fault };
  }

  /** Runs a checked and charged call; one its tool refuses for its input gets the charge back (costs nothing). */
  async function callTool(prepared: Prepared | null, key: ApiKey | null, signal: AbortSignal): Promise<CallToolResult> {
    if (!prepared?.entry || prepared.fault) {
      const fault = prepared?.fault ?? new FieldError('not a tool call');
      return toolError(fault.code, fault.message);
    }
    const { tool } = prepared.entry;
    try {
      const result = await tool.call(prepared.args, { services: opts.services, signal });
      const text = tool.summary?.(result) ?? defaultSummary(result);
      return { content: [{ type: 'text', text }], structuredContent: result };
    } catch (err) {
      if (err instanceof FieldError) await opts.auth.refundKey(key, prepared.entry.credits(prepared.args), 'mcp');
      return failedCall(err, log, tool.name);
    }
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refused = guard(req);
    if (refused) return rpcError(res, 'forbidden', -32000, `Forbidden: ${refused}`);
    if (req.method !== 'POST') {
      // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
      const stateless = 'Method not allowed: this server is stateless, send POST';
      return rpcError(res, 'method_not_allowed', -32000, stateless, { allow: 'POST' });
    }
    // §5.4: the bearer header only, on every request.
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;
    const outcome = bearer ? await opts.auth.checkKey(bearer, 'mcp') : null;
    if (!outcome || (!outcome.ok && outcome.status === 401)) {
      return sendKeyRefusal(res);
    }
    if (!outcome.ok) {
      const headers = outcome.status === 429 ? { 'retry-after': String(outcome.retryAfter) } : undefined;
      return rpcError(res, outcome.code, -32000, outcome.error, headers);
    }
    const key: ApiKey | null = outcome.key;

    const text = await readBody(req);
    if (text === null) {
      return rpcError(res, 'body_too_large', -32600, `Request too large: at most ${MAX_BODY_BYTES} bytes`);
    }
    if (nestsDeeper(text)) return rpcError(res, 'bad_input', -32600, `Invalid Request: ${tooDeep('body')}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return rpcError(res, 'malformed_json', -32700, 'Parse error: the body is not JSON');
    }
    // A tool call is checked and charged here, so that a refusal for credits is the HTTP 402 of every interface;
    // a call with bad arguments is answered as a tool error and costs nothing.
    const prepared = prepare(body);
    if (prepared?.entry && !prepared.fault) {
      const charged = await opts.auth.chargeKey(key, prepared.entry.credits(prepared.args), 'mcp');
      if (!charged.ok) {
        return rpcError(res, charged.code, -32000, charged.error, {}, isRecord(body) ? (body.id ?? null) : null);
      }
    }

    // Cancellation: the caller closing the request, or (what the SDK's client sends when its call is aborted) a
    // `notifications/cancelled` naming the call's id, which arrives as a request of its own in stateless mode.
    const gone = new AbortController();
    if (stopped) gone.abort();
    inFlight.add(gone);
    const call = isRecord(body) && prepared ? `${bearer} ${JSON.stringify(body.id)}` : null;
    if (call) running.set(call, gone);
    const cancelled = cancelledCall(body);
    if (cancelled !== undefined) running.get(`${bearer} ${JSON.stringify(cancelled)}`)?.abort();
    const settle = () => {
      gone.abort();
      inFlight.delete(gone);
      if (call && running.get(call) === gone) running.delete(call);
    };
    // The caller may have gone while the key was charged: 'close' has fired already.
    if (res.destroyed) settle();
    else res.on('close', settle);
    const direct = prepared ? directCallId(req, body) : undefined;
    if (direct !== undefined) {
      const result = await callTool(prepared, key, gone.signal);
      // The caller went away: nobody to answer (as the SDK sends nothing for a call its transport closed).
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(toolAnswerBytes(direct, result));
      return;
    }
    const server = new Server(
      { name: MCP_SERVER_NAME, version: VERSION },
      { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: sdkValidator },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
    server.setRequestHandler(CallToolRequestSchema, async (_request, extra) =>
      callTool(prepared, key, AbortSignal.any([extra.signal, gone.signal])),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/health' && req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, name: MCP_SERVER_NAME, protocol: 'stateless' }));
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(errorBody('not_found', `no such endpoint: ${req.method} ${path}`)));
      return;
    }
    handleMcp(req, res).catch((err: unknown) => {
      const storage = isStorageUnavailable(err);
      if (!storage) log(`mcp: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (res.headersSent) return void res.destroy();
      if (storage) rpcError(res, 'storage_unavailable', -32603, STORAGE_UNAVAILABLE);
      else rpcError(res, 'internal_error', -32603, 'Internal error');
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, host, resolve);
  });
  const { port } = http.address() as AddressInfo;
  const shown = isLoopbackHost(host) || !host.includes(':') ? host : `[${host}]`;
  return {
    url: `http://${shown}:${port}/mcp`,
    tools: catalog,
    async close() {
      stopped = true;
      for (const request of inFlight) request.abort();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}
