// The router thread's entry (opened by router/thread.ts): loads the gateway, serves the router when told to listen,
// and asks the main thread about API keys.
import { parentPort } from 'node:worker_threads';
import { type AuthOutcome, type KeyChecker, presentedKey } from '../access/auth.ts';
import type { ChargeOutcome } from '../access/credits.ts';
import type { LocalReply } from '../kit/serve.ts';
import { shutdownTracing, startTracing, tracing } from '../platform/tracing.ts';
import type { LocalSubgraphs } from './pass-through.ts';
import { startRouter } from './server.ts';
import type { FromRouterThread, ToRouterThread } from './thread.ts';

const main = parentPort;
if (!main) throw new Error('router/worker.ts runs as a worker thread (router/thread.ts opens it)');
const post = (m: FromRouterThread) => main.postMessage(m);

let nextId = 0;
const asked = new Map<number, { resolve: (o: AuthOutcome) => void; reject: (err: Error) => void }>();
const charges = new Map<number, { resolve: (o: ChargeOutcome) => void; reject: (err: Error) => void }>();
const remoteAuth: KeyChecker = {
  check(req, surface) {
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      asked.set(id, { resolve, reject });
      post({ type: 'auth', id, key: presentedKey(req), surface });
    });
  },
  charge(key, credits, endpoint) {
    // No key, nothing to charge: not worth a trip to the main thread on every operation.
    if (key === null) return Promise.resolve({ ok: true, remaining: null });
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      charges.set(id, { resolve, reject });
      post({ type: 'charge', id, key, credits, endpoint });
    });
  },
};

const answers = new Map<number, { resolve: (r: LocalReply) => void; reject: (err: Error) => void }>();
/** The main thread's subgraphs named in `local`, asked over the port; none while tracing runs (HTTP carries spans). */
function localSubgraphs(local: readonly string[]): LocalSubgraphs | undefined {
  if (!local.length || tracing()) return undefined;
  const here = new Set(local);
  return (subgraph, request) => {
    if (!here.has(subgraph)) return null;
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      answers.set(id, { resolve, reject });
      post({ type: 'answer', id, subgraph, request });
    });
  };
}

let router: ReturnType<typeof startRouter> | null = null;

main.on('message', (m: ToRouterThread) => {
  switch (m.type) {
    case 'listen': {
      const { type: _, authenticate, local, ...opts } = m;
      // The thread's own tracer providers, before the router installs its hooks (none while tracing is off).
      router = startTracing().then(() =>
        startRouter({ ...opts, auth: authenticate ? remoteAuth : undefined, local: localSubgraphs(local) }),
      );
      router.then(
        (r) => post({ type: 'listening', url: r.url }),
        (err: unknown) => post({ type: 'failed', error: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    case 'auth': {
      const waiting = asked.get(m.id);
      asked.delete(m.id);
      if ('outcome' in m) waiting?.resolve(m.outcome);
      else waiting?.reject(new Error(m.error));
      return;
    }
    case 'charged': {
      const waiting = charges.get(m.id);
      charges.delete(m.id);
      if ('outcome' in m) waiting?.resolve(m.outcome);
      else waiting?.reject(new Error(m.error));
      return;
    }
    case 'answered': {
      const waiting = answers.get(m.id);
      answers.delete(m.id);
      if ('reply' in m) waiting?.resolve(m.reply);
      else waiting?.reject(new Error(m.error));
      return;
    }
    case 'stats':
      if (!router) return post({ type: 'stats', id: m.id, stats: { streams: 0, subscribers: 0 } });
      router.then(
        (r) => post({ type: 'stats', id: m.id, stats: r.subscriptions() }),
        () => post({ type: 'stats', id: m.id, stats: { streams: 0, subscribers: 0 } }),
      );
      return;
    case 'close':
      Promise.resolve(router)
        .then((r) => r?.close())
        .catch(() => {})
        // The spans of the last requests are sent before the thread ends.
        .then(() => shutdownTracing())
        .catch(() => {})
        .finally(() => {
          post({ type: 'closed' });
          main.close();
        });
      return;
  }
});
