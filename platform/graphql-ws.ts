// graphql-ws (the graphql-transport-ws protocol) on a `ws` server, for the router and the subgraphs alike: the
// protocol is graphql-ws's own `makeServer`; this file connects it to sockets, keeps connections alive with pings,
// and encodes each result once however many subscribers it goes to.
//
// A result shared by many subscribers (see shared-subscriptions.ts) would otherwise be serialized once per
// subscriber: 500 clients of one BTC trades stream spent 40 % of a core in JSON.stringify. `onNext` replaces the
// result with a stand-in whose JSON is a marker; graphql-ws serializes the message and hands it to `send` in the
// same synchronous step, where the marker is swapped for the result's text, computed once per result object.
//
// Messages are bounded as HTTP bodies are (platform/http-body.ts): 1 MiB, JSON nested at most 64 deep.
import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type ServerOptions } from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import { graphqlCode } from './error-codes.ts';
import { jsonNestedDeeperThan, MAX_BODY_BYTES, MAX_JSON_DEPTH, TOO_DEEP } from './http-body.ts';
import { jsonBytes } from './json-text.ts';

/** Operations one client connection may hold at once: the exchange's own limit, which compat's `/ws` applies too. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;

export interface GraphqlWsExtra {
  socket: WebSocket;
  request: IncomingMessage;
}

const MARKER = '\u0000';
/** How the message ends when its payload is the stand-in: `..."payload":"\u0000"}`. */
const MARKED_END = `"payload":${JSON.stringify(MARKER)}}`;

const CLOSE = Buffer.from('}');

/** Result objects → their JSON as UTF-8, shared by every subscriber the same object reaches. */
const encoded = new WeakMap<object, Buffer>();
/** The bytes of the stand-in being serialized right now (set by its toJSON, taken by the send that follows). */
let pendingBytes: Buffer | null = null;

class EncodedResult {
  constructor(private readonly bytes: Buffer) {}
  toJSON(): string {
    pendingBytes = this.bytes;
    return MARKER;
  }
}

function encodeOnce(result: object): EncodedResult {
  let bytes = encoded.get(result);
  if (bytes === undefined) {
    bytes = jsonBytes(result);
    encoded.set(result, bytes);
  }
  return new EncodedResult(bytes);
}

/** The message as sent: the stand-in's marker replaced by the result's bytes (copied, never re-encoded). */
function expand(data: string): string | Buffer {
  const bytes = pendingBytes;
  pendingBytes = null;
  if (bytes === null || !data.endsWith(MARKED_END)) return data;
  const head = Buffer.from(`${data.slice(0, data.length - MARKED_END.length)}"payload":`);
  return Buffer.concat([head, bytes, CLOSE], head.length + bytes.length + 1);
}

export function serveGraphqlWs<P extends Record<string, unknown> | undefined>(opts: {
  server: Server;
  path: string;
  options: ServerOptions<P, GraphqlWsExtra>;
  keepAliveMs?: number;
  /**
   * Subscriptions (and queries in flight) one connection may hold at once; the next is refused with an error naming
   * the cap, the connection staying open. Unset: no cap (a subgraph, whose client is the router, which holds every
   * distinct subscription of its clients on one connection).
   */
  maxSubscriptionsPerConnection?: number;
}): { dispose(): Promise<void> } {
  const { onNext, onSubscribe } = opts.options;
  const max = opts.maxSubscriptionsPerConnection;
  const protocol = makeServer<P, GraphqlWsExtra>({
    ...opts.options,
    async onNext(ctx, id, payload, args, result) {
      const replaced = (await onNext?.(ctx, id, payload, args, result)) ?? result;
      return encodeOnce(replaced) as unknown as typeof replaced;
    },
    onSubscribe(ctx, id, payload) {
      // graphql-ws holds the new operation's id in ctx.subscriptions already.
      if (max !== undefined && Object.keys(ctx.subscriptions).length > max) {
        return [
          new GraphQLError(`Too many subscriptions: at most ${max} per connection`, {
            extensions: { code: graphqlCode('too_many_subscriptions') },
          }),
        ];
      }
      return onSubscribe?.(ctx, id, payload);
    },
  });
  const wss = new WebSocketServer({
    server: opts.server,
    path: opts.path,
    handleProtocols,
    maxPayload: MAX_BODY_BYTES,
  });
  // ws re-emits the HTTP server's errors here (a port already in use, say); the server's own listen reports them to
  // whoever starts it, so this one must not be an uncaught 'error' event that kills the process first.
  wss.on('error', () => {});
  const keepAliveMs = opts.keepAliveMs ?? 12_000;

  wss.on('connection', (socket, request) => {
    socket.once('error', (err) => {
      socket.close(CloseCode.InternalServerError, 'Internal server error');
      console.error(`graphql-ws: socket error: ${err.message}`);
    });
    // A client that does not answer a ping within one interval is gone: drop it.
    let alive = true;
    socket.on('pong', () => {
      alive = true;
    });
    const pings = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, keepAliveMs);
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            const message = expand(data);
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(message, { binary: false }, (err) => (err ? reject(err) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (raw) => {
            try {
              const bytes = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
              if (jsonNestedDeeperThan(bytes, MAX_JSON_DEPTH)) return socket.close(CloseCode.BadRequest, TOO_DEEP);
              await handle(bytes.toString());
            } catch (err) {
              console.error(`graphql-ws: ${err instanceof Error ? err.message : String(err)}`);
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearInterval(pings);
      void closed(code, String(reason));
    });
  });

  return {
    async dispose() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
