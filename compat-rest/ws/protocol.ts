// The exchange's WebSocket protocol on path /ws of an existing http.Server: upgrade authentication and the set of
// live connections; channels (the data) are plugged in by other modules, the per-connection protocol is session.ts.
import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Channel } from '../../kit/channel.ts';
import { type ErrorCode, errorBody, statusOf } from '../../platform/error-codes.ts';
import { replayChannel } from './resume.ts';
import { WsSession } from './session.ts';
import type { WsAuth, WsRefusal, WsServerOptions } from './types.ts';

export const WS_PATH = '/ws';

/** Subscribes with a snapshot read from storage, per connection: 60 at once, then one a second. */
export const STORED_SNAPSHOTS = { burst: 60, perMinute: 60 };

/** Client frames are small JSON requests; anything bigger is a misbehaving client (ws closes it with 1009). */
const MAX_CLIENT_FRAME_BYTES = 1024 * 1024;

/**
 * Attaches to an existing node http.Server (fastify's `app.server`) and handles upgrades on path /ws; other paths'
 * upgrades are refused with 404.
 */
export function attachWsServer(
  server: Server,
  opts: WsServerOptions,
): { close(): Promise<void>; connections(): number; subscriptions(): Map<string, number> } {
  const channels = new Map<string, Channel>();
  for (const channel of opts.channels) {
    if (channels.has(channel.type)) throw new Error(`ws: two channels for subscription type ${channel.type}`);
    channels.set(channel.type, channel);
  }
  if (opts.replay) channels.set('replay', replayChannel(channels, opts.replay));
  const log = opts.log ?? (() => {});
  const settings = {
    channels,
    info: opts.info,
    maxSubscriptions: opts.maxSubscriptionsPerConnection ?? 1000,
    idleTimeoutMs: opts.idleTimeoutMs ?? 60_000,
    maxBufferedBytes: opts.maxBufferedBytes ?? 8 * 1024 * 1024,
    admitSubscribe: opts.admitSubscribe ?? (async () => ({ ok: true as const, refund: async () => {} })),
    storedSnapshots: opts.storedSnapshots ?? STORED_SNAPSHOTS,
    log,
  };
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    perMessageDeflate: false,
    maxPayload: MAX_CLIENT_FRAME_BYTES,
  });
  const sessions = new Set<WsSession>();
  let closing = false;

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // Node hands the raw socket over without an error listener; a client reset while we authenticate would
    // otherwise be an uncaught exception.
    const onSocketError = (err: Error) => log(`ws: upgrade socket error: ${err.message}`);
    socket.on('error', onSocketError);
    if (pathOf(req) !== WS_PATH) return refuse(socket, 'not_found', 'not found');
    if (closing) return refuse(socket, 'shutting_down', 'server is shutting down');
    let outcome: WsAuth | WsRefusal;
    try {
      outcome = await opts.authenticate(req);
    } catch (err) {
      log(`ws: authenticate failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      return refuse(socket, 'internal_error', 'internal error');
    }
    if (socket.destroyed) return;
    if ('error' in outcome) return refuse(socket, outcome.code, outcome.error, outcome.retryAfter);
    if (closing) return refuse(socket, 'shutting_down', 'server is shutting down');
    const auth: WsAuth = { key: outcome.key };
    // ws installs its own error handling for the handshake and the connection.
    socket.off('error', onSocketError);
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new WsSession(ws, auth, settings);
      sessions.add(session);
      void session.finished.then(() => sessions.delete(session));
    });
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgrade(req, socket, head).catch((err: unknown) => {
      log(`ws: upgrade failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      socket.destroy();
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    async close() {
      closing = true;
      await Promise.all([...sessions].map((session) => session.shutdown()));
      server.off('upgrade', onUpgrade);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
    connections: () => sessions.size,
    subscriptions() {
      const counts = new Map<string, number>();
      for (const s of sessions)
        for (const channel of s.liveChannels()) counts.set(channel, (counts.get(channel) ?? 0) + 1);
      return counts;
    },
  };
}

function pathOf(req: IncomingMessage): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

/** Answers the upgrade request with a plain HTTP error, the same error body as the REST routes. */
function refuse(socket: Duplex, code: ErrorCode, error: string, retryAfter?: number): void {
  if (socket.destroyed) return;
  const status = statusOf(code);
  const body = JSON.stringify(errorBody(code, error));
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Connection: close',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(retryAfter === undefined ? [] : [`Retry-After: ${retryAfter}`]),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
