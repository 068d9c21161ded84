// The servers of the service wired together over one database and one event bus: the domain services, the
// subgraphs, the router and compat-rest. `npm start` runs it on the configured ports; tests run it on ephemeral
// ones against their own database.
import type pg from 'pg';
import { Authenticator, isLoopbackHost } from './access/auth.ts';
import { startCompatServer } from './compat-rest/server.ts';
import { type EventBus, InProcessBus } from './events/bus.ts';
import type { SubscriptionStats } from './platform/shared-subscriptions.ts';
import { Upstream } from './platform/upstream.ts';
import { composeSupergraph } from './router/compose.ts';
import type { RouterLimits } from './router/server.ts';
import { openRouterThread, type RouterThread } from './router/thread.ts';
import { accountsSchema } from './subgraphs/accounts/schema/index.ts';
import { startAccountsSubgraph } from './subgraphs/accounts/server.ts';
import { AccountsService } from './subgraphs/accounts/service/index.ts';
import { marketsSchema } from './subgraphs/markets/schema/index.ts';
import { startMarketsSubgraph } from './subgraphs/markets/server.ts';
import { MarketsService } from './subgraphs/markets/service/index.ts';

export interface StackPorts {
  compat: number;
  router: number;
  markets: number;
  accounts: number;
}

export interface StackOptions {
  pool: pg.Pool;
  bus?: EventBus;
  upstreamInfoUrl: string;
  ports: StackPorts;
  host?: string;
  /** Beyond loopback, serve without a key while none is configured (ALLOW_ANONYMOUS); otherwise one is required. */
  allowAnonymous?: boolean;
  routerLimits?: RouterLimits;
  upstreamTimeoutMs?: number;
  log?: (line: string) => void;
  /** A server failed after start (the router's thread); the default logs it. */
  onFailure?: (err: Error) => void;
}

export interface Stack {
  markets: MarketsService;
  accounts: AccountsService;
  auth: Authenticator;
  upstream: Upstream;
  urls: { compat: string; ws: string; router: string; markets: string; accounts: string };
  /** GraphQL subscription executions running in each server, and their subscribers. */
  subscriptions: Record<'router' | 'markets' | 'accounts', () => Promise<SubscriptionStats>>;
  /** The router thread's event-loop utilization (the other servers share the main thread's). */
  routerEventLoop: RouterThread['eventLoopUtilization'];
  close(): Promise<void>;
}

/** Where the subgraphs listen: reachable by the router (same machine), never from outside. */
export const SUBGRAPH_HOST = '127.0.0.1';

export async function startStack(opts: StackOptions): Promise<Stack> {
  const host = opts.host ?? '127.0.0.1';
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const upstream = new Upstream(opts.upstreamInfoUrl, { timeoutMs: opts.upstreamTimeoutMs ?? 5000 });
    const auth = new Authenticator(opts.pool, {
      alwaysRequireKey: !isLoopbackHost(host) && !opts.allowAnonymous,
    });
    // The router runs in a thread of its own (router/thread.ts), which loads while the services start here.
    const router = openRouterThread({ auth, onFailure: opts.onFailure });
    closers.push(router.close);
    const bus = opts.bus ?? new InProcessBus();
    const markets = new MarketsService({ pool: opts.pool, upstream, bus });
    await markets.start();
    closers.push(() => markets.stop());
    const accounts = new AccountsService({ pool: opts.pool, upstream, bus, markPx: (coin) => markets.mid(coin) });
    closers.push(() => accounts.stop());

    // The subgraphs are the router's: they check no keys and apply no operation limits, so they listen on loopback
    // whatever `host` is (spec §5 holds at the router and compat-rest, the only public doors).
    const marketsSubgraph = await startMarketsSubgraph(markets, { port: opts.ports.markets, host: SUBGRAPH_HOST });
    closers.push(marketsSubgraph.close);
    const accountsSubgraph = await startAccountsSubgraph(accounts, { port: opts.ports.accounts, host: SUBGRAPH_HOST });
    closers.push(accountsSubgraph.close);
    const routerUrl = await router.listen({
      supergraphSdl: composeSupergraph([
        { name: 'markets', url: marketsSubgraph.url, schema: marketsSchema },
        { name: 'accounts', url: accountsSubgraph.url, schema: accountsSchema },
      ]),
      port: opts.ports.router,
      host,
      limits: opts.routerLimits,
      // Market data is the same for every client, so identical requests meet; accounts answers are per user, where
      // merging rarely saves a call and its clone of each answer costs ~5 ms on 2 000 fills (npm run bench).
      deduplicateInflightRequests: { markets: true, accounts: false },
    });
    // Once it serves, the router stops before the subgraphs it reads from.
    closers.splice(closers.indexOf(router.close), 1);
    closers.push(router.close);
    const compat = await startCompatServer({
      services: { markets, accounts, upstream },
      auth,
      pool: opts.pool,
      port: opts.ports.compat,
      host,
      log: opts.log,
    });
    closers.push(compat.close);
    return {
      markets,
      accounts,
      auth,
      upstream,
      urls: {
        compat: compat.url,
        ws: compat.wsUrl,
        router: routerUrl,
        markets: marketsSubgraph.url,
        accounts: accountsSubgraph.url,
      },
      subscriptions: {
        router: router.subscriptions,
        markets: async () => marketsSubgraph.subscriptions(),
        accounts: async () => accountsSubgraph.subscriptions(),
      },
      routerEventLoop: router.eventLoopUtilization,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
