// The router in a worker thread of its own, so that its work (planning, parsing subgraph answers, projecting and
// encoding results, fanning subscription events out to clients) runs on a second core beside compat-rest, the
// subgraphs and ingest. It serves its port itself and reaches the subgraphs over HTTP and graphql-ws as before.
// API keys stay with the main thread's Authenticator: one set of per-key rate-limit windows for the whole process.
// The thread asks it about each request's key (router/worker.ts) over the thread's message port.
//
// Subgraphs served by this process (kit/serve.ts `answer`) are asked over the same port where the router sends a
// query to one of them whole (router/pass-through.ts): one message each way instead of a loopback HTTP exchange.
// The subgraph still listens on its port, for every other fetch, for subscriptions and for routers elsewhere.
//
// The thread is opened first and told to listen once the subgraphs' URLs are known: loading the gateway in a fresh
// thread takes a few seconds, spent while the main thread starts the services.
import type { Authenticator, AuthOutcome, Surface } from '../access/auth.ts';
import type { ChargeOutcome, Endpoint } from '../access/credits.ts';
import type { LocalReply, LocalRequest } from '../kit/serve.ts';
import type { SubscriptionStats } from '../platform/shared-subscriptions.ts';
import { startThread, type Thread } from '../platform/threads.ts';
import type { RouterOptions } from './server.ts';

export type RouterListenOptions = Pick<
  RouterOptions,
  'supergraphSdl' | 'port' | 'host' | 'limits' | 'deduplicateInflightRequests' | 'passThrough' | 'corsOrigins'
>;

export type ToRouterThread =
  | ({ type: 'listen'; authenticate: boolean; local: string[] } & RouterListenOptions)
  | { type: 'answered'; id: number; reply: LocalReply }
  | { type: 'answered'; id: number; error: string }
  | { type: 'auth'; id: number; outcome: AuthOutcome }
  | { type: 'auth'; id: number; error: string }
  | { type: 'charged'; id: number; outcome: ChargeOutcome }
  | { type: 'charged'; id: number; error: string }
  | { type: 'stats'; id: number }
  | { type: 'close' };

export type FromRouterThread =
  | { type: 'listening'; url: string }
  | { type: 'failed'; error: string }
  | { type: 'auth'; id: number; key: string | null; surface: Surface }
  | { type: 'charge'; id: number; key: string | null; credits: number; endpoint: Endpoint }
  | { type: 'answer'; id: number; subgraph: string; request: LocalRequest }
  | { type: 'stats'; id: number; stats: SubscriptionStats }
  | { type: 'closed' };

export interface RouterThreadOptions {
  /** Requests are checked against API keys by this authenticator (none: no checks). */
  auth?: Authenticator;
  /** The thread failed after it started listening (it no longer serves). The default logs it. */
  onFailure?: (err: Error) => void;
}

/** Subgraphs served in this process, by name: each answers a router's request without a socket (kit/serve.ts). */
export type LocalSubgraphAnswers = Readonly<Record<string, (request: LocalRequest) => Promise<LocalReply> | null>>;

export interface RouterThread {
  /**
   * Starts the router on the composed supergraph; resolves with its URL. `local`: the subgraphs of this process,
   * asked without a socket where a query goes to one of them whole.
   */
  listen(opts: RouterListenOptions, local?: LocalSubgraphAnswers): Promise<string>;
  subscriptions(): Promise<SubscriptionStats>;
  /** Requests this process's subgraphs answered the router without a socket so far (tests, diagnostics). */
  answeredInProcess(): number;
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
  let local: LocalSubgraphAnswers = {};
  let answeredInProcess = 0;

  const onMessage = (m: FromRouterThread) => {
    switch (m.type) {
      case 'listening':
        serving = true;
        return listening?.resolve(m.url);
      case 'failed':
        return listening?.reject(new Error(m.error));
      case 'auth':
        if (!auth) return thread.post({ type: 'auth', id: m.id, error: 'no authenticator' });
        auth.checkKey(m.key, m.surface).then(
          (outcome) => thread.post({ type: 'auth', id: m.id, outcome }),
          (err: unknown) => thread.post({ type: 'auth', id: m.id, error: String(err) }),
        );
        return;
      case 'charge':
        if (!auth) return thread.post({ type: 'charged', id: m.id, outcome: { ok: true, remaining: null } });
        auth.charge(m.key, m.credits, m.endpoint).then(
          (outcome) => thread.post({ type: 'charged', id: m.id, outcome }),
          (err: unknown) => thread.post({ type: 'charged', id: m.id, error: String(err) }),
        );
        return;
      case 'answer': {
        const answering = local[m.subgraph]?.(m.request);
        if (!answering) return thread.post({ type: 'answered', id: m.id, error: `${m.subgraph}: not answered here` });
        answering.then(
          (reply) => {
            answeredInProcess++;
            thread.post({ type: 'answered', id: m.id, reply });
          },
          (err: unknown) => thread.post({ type: 'answered', id: m.id, error: String(err) }),
        );
        return;
      }
      case 'stats':
        statsAsked.get(m.id)?.(m.stats);
        statsAsked.delete(m.id);
        return;
      case 'closed':
        return closed();
    }
  };
  let failure: Error | null = null;
  const onFailure = (err: Error) => {
    failure = err;
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
    listen(listen, answers = {}) {
      if (failure) return Promise.reject(failure);
      local = answers;
      return new Promise((resolve, reject) => {
        listening = { resolve, reject };
        thread.post({ type: 'listen', authenticate: auth !== undefined, local: Object.keys(answers), ...listen });
      });
    },
    eventLoopUtilization: (a, b) => thread.eventLoopUtilization(a, b),
    answeredInProcess: () => answeredInProcess,
    subscriptions() {
      const id = ++nextId;
      return new Promise((resolve) => {
        statsAsked.set(id, resolve);
        thread.post({ type: 'stats', id });
      });
    },
    async close() {
      serving = false;
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
