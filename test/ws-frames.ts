// The /ws resume tests' shared setup: a client that keeps every frame it got and waits for the ones a test names, and
// blocks of fills written as node files and loaded by the real ingest pipeline.
import WebSocket from 'ws';
import type { Pool } from '../db/pool.ts';
import type { InProcessBus } from '../events/bus.ts';
import { Ingest } from '../ingest/pipeline.ts';
import type { FillEvent } from '../wire/node-lines.ts';
import { appendBlocks, block } from './node-files.ts';

export type Frame = Record<string, unknown>;

export interface FrameClient {
  socket: WebSocket;
  /** Every frame received, in order. */
  frames: Frame[];
  /** The first frame after the last one `next` gave that matches `pred` (waiting up to `timeoutMs` for it). */
  next(pred: (f: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Resolves once any frame received, earlier or later, matches `pred` (within 10 s). */
  until(pred: (f: Frame) => boolean): Promise<void>;
}

/** A /ws client of `url` that keeps every frame it got. */
export async function frameClient(url: string): Promise<FrameClient> {
  const socket = new WebSocket(url);
  const frames: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  let seen = 0;
  socket.on('message', (raw) => {
    const frame = JSON.parse(raw.toString()) as Frame;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.pred(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  const wait = (pred: (f: Frame) => boolean, timeoutMs: number) =>
    new Promise<Frame>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no such frame; got ${JSON.stringify(frames)}`)), timeoutMs);
      waiters.push({
        pred,
        resolve: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
    });
  return {
    socket,
    frames,
    async next(pred, timeoutMs = 10_000) {
      const found = frames.slice(seen).find(pred) ?? (await wait(pred, timeoutMs));
      seen = frames.indexOf(found) + 1;
      return found;
    },
    async until(pred) {
      if (!frames.some(pred)) await wait(pred, 10_000);
    },
  };
}

/** Sends a /ws subscribe of `subscription`. */
export const subscribe = (socket: WebSocket, subscription: Record<string, unknown>) =>
  socket.send(JSON.stringify({ method: 'subscribe', subscription }));

/**
 * Writes blocks `from..to` of node_fills_by_block (block n at `timeOf(n)`, holding `fillsOf(n)`) into `dataDir` and
 * loads them with the real pipeline, publishing on `bus`.
 */
export async function ingestFillBlocks(
  to: { dataDir: string; pool: Pool; bus: InProcessBus },
  from: number,
  until: number,
  timeOf: (n: number) => number,
  fillsOf: (n: number) => FillEvent[],
): Promise<void> {
  const blocks = [];
  for (let n = from; n <= until; n++) blocks.push(block(n, timeOf(n), fillsOf(n)));
  await appendBlocks(to.dataDir, 'node_fills_by_block', blocks);
  await new Ingest({
    dataDir: to.dataDir,
    pool: to.pool,
    bus: to.bus,
    streams: ['node_fills_by_block'],
    log: () => {},
  }).run();
}
