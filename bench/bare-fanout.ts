// The floor under the trade-latency figures: the same frames, written to the same number of clients by the same
// number of threads, with nothing in between. A plain `ws` server on the main thread writes each block as the /ws
// trades frame; another, in a worker thread (as the router is), writes it as the graphql-ws `next` message of the
// bench's subscription. The worker gets each block before the main thread starts writing, so the two fan-outs run
// at once: the best case of this two-thread layout. The bench runs the same clients against it in the same run.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type WebSocket, WebSocketServer } from 'ws';
import { encodeFrame } from '../compat-rest/ws/frames.ts';
import type { WireTrade } from '../domains/markets/service/market-data.ts';
import { startThread, type Thread } from '../platform/threads.ts';

/** The fields the bench's graphql-ws subscription selects, as the router sends them (tid as a string: an ID). */
const graphqlTrade = (t: WireTrade) => ({ px: t.px, time: t.time, hash: t.hash, tid: String(t.tid) });

interface BareServer {
  url: string;
  broadcast(frame: Buffer): void;
  close(): Promise<void>;
}

/**
 * A ws server that acknowledges what a client sends the way the real one does (a /ws `subscribe`, or graphql-ws's
 * `connection_init`), then sends it every broadcast.
 */
async function serveBare(protocol: 'ws' | 'graphql-ws'): Promise<BareServer> {
  const server = createServer();
  const wss = new WebSocketServer({
    server,
    perMessageDeflate: false,
    handleProtocols: protocol === 'graphql-ws' ? () => 'graphql-transport-ws' : undefined,
  });
  const subscribed = new Set<WebSocket>();
  wss.on('connection', (socket) => {
    socket.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { method?: string; type?: string };
      if (msg.method === 'subscribe') {
        socket.send(JSON.stringify({ channel: 'subscriptionResponse', data: msg }));
        subscribed.add(socket);
      } else if (msg.type === 'connection_init') socket.send('{"type":"connection_ack"}');
      else if (msg.type === 'subscribe') subscribed.add(socket);
    });
    socket.on('close', () => subscribed.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    broadcast(frame) {
      for (const socket of subscribed) socket.send(frame, { binary: false });
    },
    async close() {
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type ToWorker = { type: 'block'; trades: WireTrade[] } | { type: 'close' };
type FromWorker = { type: 'listening'; url: string } | { type: 'closed' };

export interface BareFanout {
  /** The /ws-like server (main thread). */
  wsUrl: string;
  /** The graphql-ws-like server (worker thread). */
  graphqlWsUrl: string;
  /** Hands the block to the worker, then writes it to the main thread's clients. */
  publish(trades: WireTrade[]): void;
  close(): Promise<void>;
}

export async function startBareFanout(): Promise<BareFanout> {
  const ws = await serveBare('ws');
  let listening!: (url: string) => void;
  let closed!: () => void;
  let failed!: (err: Error) => void;
  const url = new Promise<string>((resolve, reject) => {
    listening = resolve;
    failed = reject;
  });
  const done = new Promise<void>((resolve) => {
    closed = resolve;
  });
  const worker: Thread<ToWorker> = startThread<ToWorker, FromWorker>(
    new URL(import.meta.url),
    { role: 'bare-graphql-ws' },
    (m) => (m.type === 'listening' ? listening(m.url) : closed()),
    (err) => failed(err),
  );
  let graphqlWsUrl: string;
  try {
    graphqlWsUrl = await url;
  } catch (err) {
    await Promise.all([ws.close(), worker.terminate()]);
    throw err;
  }
  return {
    wsUrl: ws.url,
    graphqlWsUrl,
    publish(trades) {
      worker.post({ type: 'block', trades });
      ws.broadcast(encodeFrame('trades', trades));
    },
    async close() {
      worker.post({ type: 'close' });
      await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
      await Promise.all([ws.close(), worker.terminate()]);
    },
  };
}

// ---- worker side ----

async function runGraphqlWsWorker(): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const server = await serveBare('graphql-ws');
  port.on('message', (m: ToWorker) => {
    if (m.type === 'block') {
      const payload = { data: { trades: m.trades.map(graphqlTrade) } };
      server.broadcast(Buffer.from(JSON.stringify({ id: '1', type: 'next', payload })));
    } else void server.close().finally(() => port.postMessage({ type: 'closed' } satisfies FromWorker));
  });
  port.postMessage({ type: 'listening', url: server.url } satisfies FromWorker);
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'bare-graphql-ws') void runGraphqlWsWorker();
