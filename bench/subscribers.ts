// Live subscribers in a worker thread: N /ws or graphql-ws clients with one trades subscription each, recording for
// every trade received its delay since publication. The publish time travels in the trade's hash (stampHash).
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { type RawData, WebSocket } from 'ws';
import { startThread, type Thread } from '../platform/threads.ts';
import { type HistogramData, LatencyHistogram } from './stats.ts';

export type SubscriberProtocol = 'ws' | 'graphql-ws';

/** Wall-clock milliseconds with sub-millisecond precision, comparable between the threads of one process. */
export const wallMs = () => performance.timeOrigin + performance.now();

/**
 * A 66-character hash like a real one ("0x" + 64 characters): a phase digit (0 warm-up, 1 measured), then the
 * publish time in microseconds, zero-padded. Only measured trades are counted.
 */
export function stampHash(measured: boolean, publishedAtMs: number): string {
  return `0x${measured ? 1 : 0}${String(Math.round(publishedAtMs * 1000)).padStart(63, '0')}`;
}

const MARKER = Buffer.from('"hash":"0x');
const TID = Buffer.from('"tid":');

/** Zeros a stamp starts with after its phase digit (a time in µs has 16 digits of 63): a real hash has none so. */
const STAMP_ZEROS = 20;

/** The publish stamp at `start` (64 bytes): its phase and publish time in ms; a real hash (a trade read from the
 * store, or sent before the bench stamped them) is neither phase. */
function decodeStamp(frame: Buffer, start: number): { measured: boolean; publishedAtMs: number } {
  for (let i = start + 1; i <= start + STAMP_ZEROS; i++)
    if (frame[i] !== 48) return { measured: false, publishedAtMs: 0 };
  let micros = 0;
  for (let i = start + 1; i < start + 64; i++) micros = micros * 10 + ((frame[i] as number) - 48);
  return { measured: frame[start] === 49, publishedAtMs: micros / 1000 };
}

/** The trade id after `"tid":` at `at` (a JSON number, or a string as GraphQL sends it), or -1. */
function tidAt(frame: Buffer, at: number): number {
  if (at < 0) return -1;
  let i = at + TID.length;
  if (frame[i] === 34) i++;
  let tid = 0;
  const from = i;
  for (; i < frame.length && (frame[i] as number) >= 48 && (frame[i] as number) <= 57; i++)
    tid = tid * 10 + ((frame[i] as number) - 48);
  return i > from ? tid : -1;
}

/**
 * Calls `onStamps` with the trades found in a raw frame: their phase, publish time (ms) and number; returns the
 * number. The clients share the machine with the server they measure, so they do not scan every trade: a frame is
 * one block, whose trades share their stamp and have consecutive ids; the first and last trade tell the stamp and
 * the count. A frame whose first and last stamps differ, or any frame when `scan` (real trades: their ids are not
 * consecutive in a coin's frame), is scanned trade by trade.
 */
function readStamps(
  frame: Buffer,
  onStamps: (measured: boolean, publishedAtMs: number, count: number) => void,
  scan = false,
): number {
  const first = frame.indexOf(MARKER);
  if (first < 0 || first + MARKER.length + 64 > frame.length) return 0;
  const last = frame.lastIndexOf(MARKER);
  const firstTid = tidAt(frame, frame.indexOf(TID));
  const lastTid = tidAt(frame, frame.lastIndexOf(TID));
  const sameStamp =
    frame.compare(
      frame,
      first + MARKER.length,
      first + MARKER.length + 64,
      last + MARKER.length,
      last + MARKER.length + 64,
    ) === 0;
  if (!scan && sameStamp && firstTid >= 0 && lastTid >= firstTid) {
    const { measured, publishedAtMs } = decodeStamp(frame, first + MARKER.length);
    const count = lastTid - firstTid + 1;
    onStamps(measured, publishedAtMs, count);
    return count;
  }
  let found = 0;
  for (let at = first; at >= 0; at = frame.indexOf(MARKER, at + MARKER.length)) {
    const start = at + MARKER.length;
    if (start + 64 > frame.length) break;
    const { measured, publishedAtMs } = decodeStamp(frame, start);
    onStamps(measured, publishedAtMs, 1);
    found++;
  }
  return found;
}

interface Job {
  role: 'subscribers';
  protocol: SubscriberProtocol;
  /** The server; an array gives client i its i-th entry (clients spread over several instances). */
  url: string | readonly string[];
  count: number;
  /** This thread's first client's number among all the clients (it picks the subscription of an array). */
  first: number;
  /** The /ws subscription object, or the GraphQL subscription document; an array gives client i its i-th entry. */
  subscription: unknown;
  /** Count a frame's trades one by one (readStamps). */
  scan: boolean;
}

export interface SubscriberResult extends HistogramData {
  /** Fewest measured trades one client received. */
  minPerClient: number;
  /** Connections closed (or subscriptions ended) before stop. */
  lost: number;
  /** Share of the measured phase this client thread was busy (its event-loop utilization): near 1, the clients lag. */
  clientBusy: number;
  errors: string[];
}

type ToMain =
  | { type: 'subscribed' }
  | { type: 'progress'; live: number; received: number }
  | ({ type: 'result' } & SubscriberResult)
  | { type: 'failed'; error: string };

type FromMain = { type: 'stop' };

/** Subscribers spread over several threads, so that reading frames does not queue in one client thread. */
export class Subscribers {
  private constructor(
    readonly protocol: SubscriberProtocol,
    readonly count: number,
    private readonly threads: SubscriberThread[],
  ) {}

  /** Connects `count` clients over `threads` worker threads; resolves once every one has subscribed. */
  static async start(
    protocol: SubscriberProtocol,
    url: string | readonly string[],
    count: number,
    subscription: unknown,
    timeoutMs: number,
    threads = 1,
    scan = false,
  ): Promise<Subscribers> {
    const n = Math.max(1, Math.min(threads, count));
    const starting = Array.from({ length: n }, (_, t) => {
      const first = Math.floor((count * t) / n);
      const share = Math.floor((count * (t + 1)) / n) - first;
      return SubscriberThread.start(
        { role: 'subscribers', protocol, url, count: share, first, subscription, scan },
        timeoutMs,
      );
    });
    const settled = await Promise.allSettled(starting);
    const started = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failure = settled.find((r) => r.status === 'rejected');
    if (failure) {
      await Promise.all(started.map((t) => t.stop(1000).catch(() => {})));
      throw failure.reason;
    }
    return new Subscribers(protocol, count, started);
  }

  /** Clients that have received at least one trade. */
  get live(): number {
    return this.threads.reduce((sum, t) => sum + t.live, 0);
  }

  /** Measured trades received, over all clients. */
  get received(): number {
    return this.threads.reduce((sum, t) => sum + t.received, 0);
  }

  get failed(): Error | null {
    return this.threads.find((t) => t.failed)?.failed ?? null;
  }

  /** Closes every client and returns what they measured, merged over the threads. */
  async stop(timeoutMs = 10_000): Promise<SubscriberResult> {
    const results = await Promise.all(this.threads.map((t) => t.stop(timeoutMs)));
    const merged = new LatencyHistogram();
    for (const r of results) merged.merge(r);
    return {
      counts: merged.counts,
      overflow: merged.overflow,
      max: merged.max,
      total: merged.total,
      minPerClient: Math.min(...results.map((r) => r.minPerClient)),
      lost: results.reduce((sum, r) => sum + r.lost, 0),
      clientBusy: Math.max(...results.map((r) => r.clientBusy)),
      errors: results.flatMap((r) => r.errors).slice(0, 5),
    };
  }
}

/** The main-thread side of one client thread: its subscribers, with their latest progress report. */
class SubscriberThread {
  /** Clients that have received at least one trade. */
  live = 0;
  /** Measured trades received, over all clients. */
  received = 0;
  private failure: Error | null = null;
  private result: ((r: SubscriberResult) => void) | null = null;

  private constructor(
    readonly protocol: SubscriberProtocol,
    private readonly worker: Thread<FromMain>,
  ) {}

  /** Connects the job's clients and subscribes each; resolves once every subscription is sent and acknowledged. */
  static async start(job: Job, timeoutMs: number): Promise<SubscriberThread> {
    const protocol = job.protocol;
    let subscribed: (() => void) | null = null;
    let failed: ((e: Error) => void) | null = null;
    const ready = new Promise<void>((resolve, reject) => {
      subscribed = resolve;
      failed = reject;
    });
    let self: SubscriberThread | null = null;
    const onFailure = (err: Error) => {
      if (self) self.failure ??= err;
      failed?.(err);
    };
    const worker = startThread<FromMain, ToMain>(
      new URL(import.meta.url),
      job,
      (m) => {
        if (m.type === 'subscribed') subscribed?.();
        else if (m.type === 'progress' && self) {
          self.live = m.live;
          self.received = m.received;
        } else if (m.type === 'result') self?.result?.(m);
        else if (m.type === 'failed') onFailure(new Error(`${protocol} subscribers: ${m.error}`));
      },
      onFailure,
    );
    self = new SubscriberThread(protocol, worker);
    const timer = setTimeout(
      () => onFailure(new Error(`${protocol} subscribers: not ready in ${timeoutMs} ms`)),
      timeoutMs,
    );
    try {
      await ready;
      return self;
    } catch (err) {
      await worker.terminate();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  get failed(): Error | null {
    return this.failure;
  }

  private stopped: Promise<SubscriberResult> | null = null;

  /** Closes every client and returns what they measured; later calls return the same outcome. */
  stop(timeoutMs = 10_000): Promise<SubscriberResult> {
    this.stopped ??= this.collect(timeoutMs);
    return this.stopped;
  }

  private async collect(timeoutMs: number): Promise<SubscriberResult> {
    try {
      if (this.failure) throw this.failure;
      return await new Promise<SubscriberResult>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${this.protocol} subscribers: no result`)), timeoutMs);
        this.result = (r) => {
          clearTimeout(timer);
          resolve(r);
        };
        this.worker.post({ type: 'stop' });
      });
    } finally {
      await this.worker.terminate();
    }
  }
}

// ---- worker side ----

function frameBuffer(raw: RawData): Buffer {
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
}

async function runSubscribers(job: Job): Promise<void> {
  const port = parentPort;
  if (!port) return;
  const send = (m: ToMain) => port.postMessage(m);
  const histogram = new LatencyHistogram();
  const perClient = new Uint32Array(job.count);
  const errors: string[] = [];
  const note = (e: string) => {
    if (errors.length < 5) errors.push(e);
  };
  let received = 0;
  let live = 0;
  let subscribed = 0;
  let stopping = false;
  let lost = 0;
  let measuring: ReturnType<typeof performance.eventLoopUtilization> | null = null;
  const sockets: WebSocket[] = [];
  const allSubscribed = new Promise<void>((resolve) => {
    const oneMore = () => {
      if (++subscribed === job.count) resolve();
    };

    const open = (i: number) => {
      const graphql = job.protocol === 'graphql-ws';
      const subscription = Array.isArray(job.subscription)
        ? job.subscription[(job.first + i) % job.subscription.length]
        : job.subscription;
      const url = typeof job.url === 'string' ? job.url : (job.url[(job.first + i) % job.url.length] as string);
      const ws = new WebSocket(url, graphql ? ['graphql-transport-ws'] : [], {
        perMessageDeflate: false,
        // The clients only look for stamps; validating 100+ MB/s of UTF-8 would slow them, not the server.
        skipUTF8Validation: true,
      });
      sockets.push(ws);
      let seen = false;
      ws.on('open', () => {
        ws.send(JSON.stringify(graphql ? { type: 'connection_init' } : { method: 'subscribe', subscription }));
      });
      ws.on('message', (raw) => {
        const now = wallMs();
        const frame = frameBuffer(raw);
        const stamps = readStamps(
          frame,
          (measured, publishedAtMs, count) => {
            if (!measured) return;
            measuring ??= performance.eventLoopUtilization();
            histogram.add(now - publishedAtMs, count);
            perClient[i] = (perClient[i] ?? 0) + count;
            received += count;
          },
          job.scan,
        );
        if (stamps > 0) {
          if (!seen) live++;
          seen = true;
          return;
        }
        // Control frames are rare: parse them properly.
        const text = frame.toString('utf8');
        let msg: { type?: string; channel?: string } = {};
        try {
          msg = JSON.parse(text) as typeof msg;
        } catch {
          // kept as an error note below
        }
        if (graphql && msg.type === 'connection_ack') {
          ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: subscription } }));
          // graphql-ws does not acknowledge a subscription; the warm-up trades show when it is live.
          oneMore();
        } else if (graphql && msg.type === 'ping') ws.send('{"type":"pong"}');
        else if (!graphql && msg.channel === 'subscriptionResponse') oneMore();
        else if (msg.type !== 'pong') note(text.slice(0, 300));
      });
      ws.on('error', (err) => note(`client ${i}: ${err.message}`));
      ws.on('close', (code) => {
        if (stopping) return;
        lost++;
        note(`client ${i} closed (${code})`);
        // Before every client is subscribed, a lost one means the start can never complete.
        if (subscribed < job.count) send({ type: 'failed', error: errors.join('; ') });
      });
    };
    // Connect in waves so the listen backlog is never the bottleneck.
    let next = 0;
    const wave = () => {
      for (const end = Math.min(job.count, next + 100); next < end; next++) open(next);
      if (next < job.count) setTimeout(wave, 50);
    };
    wave();
  });
  const progress = setInterval(() => send({ type: 'progress', live, received }), 100);
  port.on('message', (m: FromMain) => {
    if (m.type !== 'stop') return;
    stopping = true;
    clearInterval(progress);
    for (const ws of sockets) ws.terminate();
    const result: SubscriberResult = {
      counts: histogram.counts,
      overflow: histogram.overflow,
      max: histogram.max,
      total: histogram.total,
      minPerClient: perClient.reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY),
      lost,
      clientBusy: measuring ? performance.eventLoopUtilization(measuring).utilization : 0,
      errors,
    };
    send({ type: 'result', ...result });
  });
  await allSubscribed;
  send({ type: 'subscribed' });
}

if (!isMainThread && (workerData as Partial<Job> | null)?.role === 'subscribers') {
  runSubscribers(workerData as Job).catch((err: unknown) =>
    parentPort?.postMessage({
      type: 'failed',
      error: err instanceof Error ? err.message : String(err),
    } satisfies ToMain),
  );
}
