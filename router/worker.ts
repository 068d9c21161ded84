// The router thread's entry (opened by router/thread.ts): loads the gateway, serves the router when told to listen,
// and checks API keys itself, with an Authenticator sharing the main thread's rules and state (router/thread.ts).
import { parentPort } from 'node:worker_threads';
import pg from 'pg';
import { Authenticator, type AuthenticatorShare } from '../access/auth.ts';
// Its type parsers (int8 as numbers where safe) for this thread's pool, as the main thread's.
import '../db/pool.ts';
import { shutdownTracing, startTracing } from '../platform/tracing.ts';
import { startRouter } from './server.ts';
import type { FromRouterThread, ToRouterThread } from './thread.ts';

const main = parentPort;
if (!main) throw new Error('router/worker.ts runs as a worker thread (router/thread.ts opens it)');
const post = (m: FromRouterThread) => main.postMessage(m);

/** Key checks and charges need a few statements at a time: a handful of connections of the thread's own. */
const AUTH_POOL_SIZE = 4;

let router: ReturnType<typeof startRouter> | null = null;
let keys: { auth: Authenticator; pool: pg.Pool } | null = null;

function threadAuthenticator(share: AuthenticatorShare): { auth: Authenticator; pool: pg.Pool } {
  const pool = new pg.Pool({ ...share.pool, max: AUTH_POOL_SIZE });
  // An idle client losing its connection must not end the thread: the next statement opens a new one.
  pool.on('error', (err) => console.error(`postgres (router thread): idle client error: ${err.message}`));
  const auth = new Authenticator(pool, {
    alwaysRequireKey: share.alwaysRequireKey,
    cacheMs: share.cacheMs,
    invalidations: share.invalidations,
    onCharged: (endpoint, credits) => post({ type: 'charged', endpoint, credits }),
  });
  return { auth, pool };
}

main.on('message', (m: ToRouterThread) => {
  switch (m.type) {
    case 'listen': {
      const { type: _, auth: share, ...opts } = m;
      keys = share ? threadAuthenticator(share) : null;
      // The thread's own tracer providers, before the router installs its hooks (none while tracing is off).
      router = startTracing().then(() => startRouter({ ...opts, auth: keys?.auth }));
      router.then(
        (r) => post({ type: 'listening', url: r.url }),
        (err: unknown) => post({ type: 'failed', error: err instanceof Error ? err.message : String(err) }),
      );
      return;
    }
    case 'flush-usage':
      Promise.resolve(keys?.auth.flushUsage())
        .catch((err: unknown) => console.error(`router thread: usage not written: ${String(err)}`))
        .finally(() => post({ type: 'usage-flushed', id: m.id }));
      return;
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
        // The usage counted here and the requests admitted since the last sync are written before the thread ends.
        .then(() => keys?.auth.close())
        .then(() => keys?.pool.end())
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
