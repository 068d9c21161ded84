// The servers of the service wired together over one database and one event bus: the domain services, the
// subgraphs, the router, compat-rest and the MCP tool server. `npm start` runs it on the configured ports; tests run it on ephemeral
// ones against their own database.
import type pg from 'pg';
import { Authenticator, isLoopbackHost } from './access/auth.ts';
import { startCompatServer } from './compat-rest/server.ts';
import { runOnce, type StartupStep } from './db/startup.ts';
import { DOMAIN_LIST, subgraphPlatform } from './domains.ts';
import { type EventBus, InProcessBus } from './events/bus.ts';
import type { DomainName, DomainServices } from './kit/domain.ts';
import { type Domain, type DomainService, serveDomain, startDomainServices } from './kit/domain.ts';
import type { CompatServices } from './kit/info.ts';
import type { RunningServer } from './kit/serve.ts';
import { startMcpServer } from './mcp/server.ts';
import type { Config } from './platform/config.ts';
import { watchPool } from './platform/metrics.ts';
import type { SubscriptionStats } from './platform/shared-subscriptions.ts';
import { flushTracing, startTracing } from './platform/tracing.ts';
import { Upstream } from './platform/upstream.ts';
import { composeSupergraph } from './router/compose.ts';
import type { RouterLimits } from './router/server.ts';
import { openRouterThread, type RouterThread, type RouterThreadOptions } from './router/thread.ts';

/** A port for compat-rest, the router, the MCP tool server and each domain's subgraph (0: an ephemeral one). */
export type StackPorts = { compat: number; router: number; mcp: number } & Record<DomainName, number>;

/** The ports configured (platform/config.ts): compat, router, MCP, and each domain's subgraph from its name. */
export function configuredPorts(
  config: Pick<Config, 'compatPort' | 'routerPort' | 'mcpPort' | 'subgraphPort'>,
): StackPorts {
  return {
    compat: config.compatPort,
    router: config.routerPort,
    mcp: config.mcpPort,
    ...Object.fromEntries(DOMAIN_LIST.map((d) => [d.name, config.subgraphPort(d.name, d.port)])),
  } as StackPorts;
}

/** Every server on an ephemeral port (tests, bench). */
export const EPHEMERAL_PORTS = configuredPorts({ compatPort: 0, routerPort: 0, mcpPort: 0, subgraphPort: () => 0 });

export interface StackOptions {
  /** The primary (writes: keys, credits, usage, candles, history samples). */
  pool: pg.Pool;
  /** A read replica for the query paths that tolerate its lag (SharedDeps.readPool); unset: `pool`. */
  readPool?: pg.Pool;
  bus?: EventBus;
  upstreamInfoUrl: string;
  ports: StackPorts;
  host?: string;
  /** Beyond loopback, serve without a key while none is configured (ALLOW_ANONYMOUS); otherwise one is required. */
  allowAnonymous?: boolean;
  routerLimits?: RouterLimits;
  /** Origins the router allows credentials for (CORS_ORIGINS); any other gets `*` without. */
  corsOrigins?: readonly string[];
  /** Host names the MCP server's Host/Origin check accepts besides loopback's and `host` (MCP_ALLOWED_HOSTS). */
  mcpAllowedHosts?: readonly string[];
  upstreamTimeoutMs?: number;
  /** The services' clock (windows ending now, live state's times); a test over dated data sets it. Default: Date.now. */
  now?: () => number;
  log?: (line: string) => void;
  /** A server failed after start (the router's thread); the default logs it. */
  onFailure?: (err: Error) => void;
  /**
   * The services start (rebuilding their state from storage and the node) once this resolves, and the servers after
   * them; the router's thread loads meanwhile. `npm start`: the simulator's present.
   */
  startsAt?: Promise<unknown>;
  /** Runs the services' start, which reads Postgres: `npm start` retries it while Postgres is slow (db/startup.ts). */
  retry?: StartupStep;
  /**
   * Called once the services have started, before the router, compat-rest and MCP listen: `npm start` frees their
   * ports, held answering 503 while its start retried.
   */
  beforeListen?: () => Promise<void>;
  /** Opens the router: by default in a thread of its own (router/thread.ts); tests may run it in theirs. */
  openRouter?: (opts: RouterThreadOptions) => RouterThread;
}

type StackParts = {
  /** Each domain's service by name; each is also the stack's own property of that name (`stack.markets`). */
  services: DomainServices;
  /** What compat-rest's handlers get (the services, the node relay, dataCoverage), for tests building the app. */
  compatServices: CompatServices;
  auth: Authenticator;
  upstream: Upstream;
  /** compat-rest, its /ws, the router, the MCP server's /mcp, and each domain's subgraph by name (`urls.markets`). */
  urls: { compat: string; ws: string; router: string; mcp: string } & Record<DomainName, string>;
  /** GraphQL subscription executions running in each server (the router, each subgraph), and their subscribers. */
  subscriptions: Record<'router' | DomainName, () => Promise<SubscriptionStats>>;
  /** The router thread's event-loop utilization (the other servers share the main thread's). */
  routerEventLoop: RouterThread['eventLoopUtilization'];
  /** Requests the subgraphs answered the router without a socket so far (router/thread.ts). */
  routerAnsweredInProcess: RouterThread['answeredInProcess'];
  close(): Promise<void>;
};

type Clash = Extract<DomainName, keyof StackParts | 'compat' | 'router' | 'ws' | 'mcp'>;
/** What compat-rest's handlers see: the domains' services by name, the node relay and `dataCoverage` over the list. */
export function compatServicesOf(services: DomainServices, upstream: Upstream, pool: pg.Pool): CompatServices {
  return { ...services, upstream, coverage: subgraphPlatform(pool).coverage };
}

/** Compile-time: a domain named like one of the stack's own properties (`auth`, `router`) would hide it. */
export const NO_DOMAIN_NAMED_LIKE_A_STACK_PART: [Clash] extends [never] ? true : Clash = true;

export type Stack = StackParts & DomainServices;

export async function startStack(opts: StackOptions): Promise<Stack> {
  const host = opts.host ?? '127.0.0.1';
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    // Before any server starts: each installs its span hooks only while tracing runs (off without an endpoint).
    await startTracing();
    // The very last: the spans of the last requests are sent.
    closers.push(flushTracing);
    const upstream = new Upstream(opts.upstreamInfoUrl, { timeoutMs: opts.upstreamTimeoutMs ?? 5000 });
    const auth = new Authenticator(opts.pool, {
      alwaysRequireKey: !isLoopbackHost(host) && !opts.allowAnonymous,
    });
    // Last to stop: the usage counted in memory is written.
    closers.push(() => auth.close());
    // The router runs in a thread of its own (router/thread.ts), which loads while the services start here.
    const router = (opts.openRouter ?? openRouterThread)({ auth, onFailure: opts.onFailure });
    closers.push(router.close);
    const bus = opts.bus ?? new InProcessBus();
    const unwatchPool = watchPool('main', opts.pool);
    closers.push(async () => unwatchPool());
    await opts.startsAt;
    // Retried whole: a start that fails stops the services it started, and each try creates them anew.
    const started = await (opts.retry ?? runOnce)('domain services', () =>
      startDomainServices(DOMAIN_LIST, {
        pool: opts.pool,
        ...(opts.readPool ? { readPool: opts.readPool } : {}),
        upstream,
        bus,
        now: opts.now ?? Date.now,
      }),
    );
    closers.push(started.stop);
    // Every listed domain, so every DomainServices entry (EVERY_DOMAIN_LISTED in domains.ts).
    const services = started.services as unknown as DomainServices;

    // The subgraphs listen on loopback whatever `host` is (serveDomain).
    const subgraphs: { domain: Domain; subgraph: RunningServer }[] = [];
    for (const domain of DOMAIN_LIST) {
      const service = started.services[domain.name] as DomainService;
      const port = opts.ports[domain.name as DomainName];
      const subgraph = await serveDomain(domain, service, port, subgraphPlatform(opts.pool));
      closers.push(subgraph.close);
      subgraphs.push({ domain, subgraph });
    }
    await opts.beforeListen?.();
    const routerUrl = await router.listen(
      {
        supergraphSdl: composeSupergraph(
          subgraphs.map(({ domain, subgraph }) => ({ name: domain.name, url: subgraph.url, schema: domain.schema })),
        ),
        port: opts.ports.router,
        host,
        limits: opts.routerLimits,
        corsOrigins: opts.corsOrigins,
        deduplicateInflightRequests: Object.fromEntries(
          DOMAIN_LIST.map((d) => [d.name, d.router.deduplicateInflightRequests]),
        ),
      },
      // Every subgraph here is this process's: a query sent to one whole is answered without a socket.
      Object.fromEntries(subgraphs.map(({ domain, subgraph }) => [domain.name, subgraph.answer])),
    );
    // Once it serves, the router stops before the subgraphs it reads from.
    closers.splice(closers.indexOf(router.close), 1);
    closers.push(router.close);
    const compatServices = compatServicesOf(services, upstream, opts.pool);
    const compat = await startCompatServer({
      services: compatServices,
      auth,
      pool: opts.pool,
      port: opts.ports.compat,
      host,
      log: opts.log,
      graphqlUrl: routerUrl,
    });
    closers.push(compat.close);
    const mcp = await startMcpServer({
      services: compatServices,
      auth,
      port: opts.ports.mcp,
      host,
      allowedHosts: opts.mcpAllowedHosts,
      log: opts.log,
    });
    closers.push(mcp.close);
    const byDomain = <T>(of: (subgraph: RunningServer) => T) =>
      Object.fromEntries(subgraphs.map(({ domain, subgraph }) => [domain.name, of(subgraph)])) as Record<DomainName, T>;
    return {
      ...services,
      services,
      compatServices,
      auth,
      upstream,
      urls: { compat: compat.url, ws: compat.wsUrl, router: routerUrl, mcp: mcp.url, ...byDomain((s) => s.url) },
      subscriptions: { router: router.subscriptions, ...byDomain((s) => async () => s.subscriptions()) },
      routerEventLoop: router.eventLoopUtilization,
      routerAnsweredInProcess: router.answeredInProcess,
      close,
    } as Stack;
  } catch (err) {
    await close();
    throw err;
  }
}
