// The router in a worker thread of its own, so that its work (planning, parsing subgraph answers, projecting and
// encoding results, fanning subscription events out to clients) runs on a second core beside compat-rest, the
// subgraphs and ingest. It serves its port itself and reaches the subgraphs over HTTP and graphql-ws as before.
// The thread checks API keys and charges credits itself, with an Authenticator of its own over a pool of its own
// (router/worker.ts): no request waits for a trip to the main thread. Its state is the main one's wherever that
// matters: credits are taken by the one conditional UPDATE in Postgres, rate windows are shared through Postgres as
// between api instances (access/rate-windows.ts), the main Authenticator's `invalidate()` reaches it through a shared
// counter, its charges count in the main thread's metrics, and the main `flushUsage()` writes its usage too.
//
// The thread is opened first and told to listen once the subgraphs' URLs are known: loading the gateway in a fresh
// thread takes a few seconds, spent while the main thread starts the services.
import type { Authenticator, AuthenticatorShare, Endpoint } from '../access/auth.ts';
import { creditsCharged } from '../platform/metrics.ts';
import type { SubscriptionStats } from '../platform/shared-subscriptions.ts';
import { startThread, type Thread } from '../platform/threads.ts';
import type { RouterOptions } from './server.ts';

export type RouterListenOptions = Pick<
  RouterOptions,
  'supergraphSdl' | 'port' | 'host' | 'limits' | 'deduplicateInflightRequests' | 'passThrough' | 'corsOrigins'
>;

export type ToRouterThread =
  | ({ type: 'listen'; auth: AuthenticatorShare | null } & RouterListenOptions)
  | { type: 'flush-usage'; id: number }
  | { type: 'stats'; id: number }
  | { type: 'close' };

export type FromRouterThread =
  | { type: 'listening'; url: string }
  | { type: 'failed'; error: string }
  | { type: 'charged'; endpoint: Endpoint; credits: number }
  | { type: 'usage-flushed'; id: number }
  | { type: 'stats'; id: number; stats: SubscriptionStats }
  | { type: 'closed' };

export interface RouterThreadOptions {
  /** Requests are checked against API keys with this authenticator's rules and state (none: no checks). */
  auth?: Authenticator;
  /** The thread failed after it started listening (it no longer serves). The default logs it. */
  onFailure?: (err: Error) => void;
}

export interface RouterThread {
  /** Starts the router on the composed supergraph; resolves with its URL. */
  listen(opts: RouterListenOptions): Promise<string>;
  subscriptions(): Promise<SubscriptionStats>;
  /** Stops the router (if it listens) and ends the thread. */
  close(): Promise<void>;
  /** How busy the thread is (performance.eventLoopUtilization, diffs alike): the bench reports it. */
  eventLoopUtilization: Thread<ToRouterThread>['eventLoopUtilization'];
}

const CLOSE_TIMEOUT_MS = 10_000;

export function openRouterThread(opts: RouterThreadOptions = {}): RouterThread {
  const auth = opts.auth;
  let listening: { resolve: (url: string) => void; reject: (err: Error) => void } | null = null;
  let serving = false;
  let closed!: () => void;
  const closing = new Promise<void>((resolve) => {
    closed = resolve;
  });
  let nextId = 0;
  const statsAsked = new Map<number, (stats: SubscriptionStats) => void>();
  const flushesAsked = new Map<number, () => void>();
  const flushUsage = () => {
    if (!serving) return Promise.resolve();
    const id = ++nextId;
    return new Promise<void>((resolve) => {
      flushesAsked.set(id, resolve);
      thread.post({ type: 'flush-usage', id });
    });
  };
  const stopFlushing = auth?.flushUsageWith(flushUsage);

  const onMessage = (m: FromRouterThread) => {
    switch (m.type) {
      case 'listening':
        serving = true;
        return listening?.resolve(m.url);
      case 'failed':
        return listening?.reject(new Error(m.error));
      case 'charged':
        creditsCharged.inc({ endpoint: m.endpoint }, m.credits);
        return;
      case 'usage-flushed':
        flushesAsked.get(m.id)?.();
        flushesAsked.delete(m.id);
        return;
      case 'stats':
        statsAsked.get(m.id)?.(m.stats);
        statsAsked.delete(m.id);
        return;
      case 'closed':
        for (const done of flushesAsked.values()) done();
        flushesAsked.clear();
        return closed();
    }
  };
  let failure: Error | null = null;
  const onFailure = (err: Error) => {
    failure = err;
    for (const done of flushesAsked.values()) done();
    flushesAsked.clear();
    if (!serving) return listening?.reject(err);
    serving = false;
    (opts.onFailure ?? ((e: Error) => console.error(`router thread failed: ${e.message}`)))(err);
  };
  const thread = startThread<ToRouterThread, FromRouterThread>(
    new URL('./worker.ts', import.meta.url),
    null,
    onMessage,
    onFailure,
  );

  return {
    listen(listen) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        listening = { resolve, reject };
        thread.post({ type: 'listen', auth: auth?.threadShare() ?? null, ...listen });
      });
    },
    eventLoopUtilization: (a, b) => thread.eventLoopUtilization(a, b),
    subscriptions() {
      const id = ++nextId;
      return new Promise((resolve) => {
        statsAsked.set(id, resolve);
        thread.post({ type: 'stats', id });
      });
    },
    async close() {
      serving = false;
      stopFlushing?.();
      thread.post({ type: 'close' });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        closing,
        thread.exited,
        new Promise((r) => {
          timer = setTimeout(r, CLOSE_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
      await thread.terminate();
    },
  };
}
