// The domain module: everything one data domain (markets, accounts, ...) brings to the service, declared once in
// `domains/<name>/domain.ts` and listed once in `domains.ts`. The stack, the standalone subgraph start, the
// router's composition, compat-rest, dataCoverage and the tests read these definitions and name no domain.
import type { FastifyPluginAsync } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type pg from 'pg';
import type { EventBus, Topic, Topics } from '../events/bus.ts';
import type { TopicKey } from '../events/subjects.ts';
import type { Coverage, Dataset } from '../platform/coverage.ts';
import type { WriterProgress } from '../platform/metrics.ts';
import type { Upstream } from '../platform/upstream.ts';
import type { StreamName } from '../wire/node-lines.ts';
import type { Capabilities } from './capability.ts';
import type { CompatServices } from './info.ts';
import type { JsonSchema } from './request-schema.ts';
import { type RunningServer, serveSubgraph } from './serve.ts';

/**
 * Each domain's service under the domain's name, as compat handlers and the stack see them (`{ markets }`). Each
 * domain adds its own entry in its domain.ts (`declare module '../domain.ts' { interface DomainServices { ... } }`):
 * derived from the list instead, the type of a handler written inside a definition would be part of the list's own
 * type, a cycle TypeScript cannot infer. domains.ts checks that the entries and the list name the same domains.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each domain's declaration merging
export interface DomainServices {}

/** A registered domain's name (`markets`). */
export type DomainName = keyof DomainServices & string;

/** What the stack asks of a domain service: an optional start (rebuilding live state) and a stop. */
export interface DomainService {
  start?(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** What every domain service is built from: shared by all domains of one process. */
export interface SharedDeps {
  /** The primary: every write, and the state a service rebuilds at start to continue from the bus without a gap. */
  pool: pg.Pool;
  /**
   * A read replica (`DATABASE_READ_URL`) for query paths that tolerate its lag: the markets queries and the analytics
   * service. Unset: the primary.
   */
  readPool?: pg.Pool;
  /** The ingest bus: in-process, or JetStream between the roles (events/open.ts). */
  bus: EventBus;
  /** The node's /info, for what the service relays or loads from the node. */
  upstream: Upstream;
  now: () => number;
}

/** A service factory's input: the shared deps, and the services of the earlier domains it `needs`. */
export interface DomainDeps<Needs extends object> extends SharedDeps {
  readPool: pg.Pool;
  services: Needs;
}

/** A group of path endpoints: a fastify plugin registered under its prefix (`/market`). */
export interface CompatRoutes {
  prefix: string;
  plugin: FastifyPluginAsync<{ services: CompatServices }>;
}

/** What a tool's `call` gets: every domain's service by name (as compat handlers do), and the call's abort signal. */
export interface McpToolContext {
  services: CompatServices;
  /** Aborted when the caller goes away or the server stops: live tools stop collecting. */
  signal: AbortSignal;
}

/**
 * An MCP tool of the domain: one capability of its service as the tool server (mcp/) lists and calls it. The tool
 * server checks the arguments against `input` (one Ajv, bad arguments → a tool error naming the argument) and
 * charges the key `credits(args)` (access/costs.ts; 1 when absent) before `call` runs.
 */
export interface McpTool {
  /** snake_case, prefixed with the domain: `markets_all_mids`, `hip4_questions`. */
  name: string;
  /** A short human title. */
  title: string;
  /** What it answers and when to choose it, written for a model choosing among tools. */
  description: string;
  /** JSON Schema of the arguments: an object, every field typed and bounded by the spec's limits. */
  input: JsonSchema;
  /**
   * Reads the arguments once, by the capability's input definition (a FieldError refuses them, worded as the
   * catalog words a refusal): what it returns is what `credits` and `call` get. Without it the catalog checks the
   * arguments against `input`, and the tool gets them as sent.
   */
  read?(args: Record<string, unknown>): Record<string, unknown>;
  /** Credits the call costs (the cost table is access/costs.ts); 1 when absent. */
  credits?(args: Record<string, unknown>): number;
  /** The answer as structured content (an object). */
  call(args: Record<string, unknown>, context: McpToolContext): Promise<Record<string, unknown>>;
  /** A one-line text summary of an answer, sent beside the structured content. */
  summary?(result: Record<string, unknown>): string;
}

export interface Domain<
  Name extends string = string,
  S extends DomainService = DomainService,
  Context extends object = object,
  Needs extends object = object,
> {
  /** The subgraph's name in the supergraph, the key of its service (`services.markets`) and of its port setting. */
  name: Name;
  /** The subgraph's default port (`<NAME>_PORT` overrides it; `PORT_OFFSET` shifts it). */
  port: number;
  /** Domains whose services the factory takes (`services.markets`); they must be listed before this one. */
  needs?: readonly (keyof Needs & string)[];
  /** The domain service, built once per process and shared by the subgraph and compat-rest. */
  create(deps: DomainDeps<Needs>): S;
  /** The Pothos subgraph schema. */
  schema: GraphQLSchema;
  /** The GraphQL context the schema's resolvers get, over the service and what the platform assembles. */
  context(service: S, platform: SubgraphPlatform): Context;
  /** What it reports to `dataCoverage`: dataset name → the table and time column (names unique across domains). */
  datasets: Readonly<Record<string, Dataset>>;
  router: {
    /**
     * Whether the router merges identical in-flight requests to this subgraph: worth it where answers are the same
     * for everyone (market data); not where they are per caller, since the executor clones every merged answer.
     */
    deduplicateInflightRequests: boolean;
  };
  /**
   * Its capabilities, each declared once (kit/capability.ts): the transports make their doors from the list (path
   * routes under its prefix, MCP tools, the subgraph's Query fields).
   */
  capabilities?: Capabilities<S>;
  /** The domain's tools on the MCP server written by hand (those its capabilities do not declare). */
  mcpTools?: readonly McpTool[];
  /**
   * The bus topics the domain's writer publishes, each with its key (what a subscriber follows one of: an address,
   * a coin); merged with ingest's topics when the bus opens. Their item types: the domain adds them to
   * `DomainTopics` (events/bus.ts) by declaration merging.
   */
  topics?: Readonly<Record<string, TopicKey>>;
  /**
   * The module of the domain's writer (it exports `startWriter`, a `WriterModule`): what fills the domain's tables
   * from what ingest stored, run on the writer thread of the role that ingests. A URL, not an import, so that it
   * crosses to that thread and an api role (which reads the definitions) never loads writer code.
   */
  writer?: URL;
}

/** What a domain's writer module exports (`Domain.writer`). */
export interface WriterModule {
  startWriter(deps: WriterDeps): DomainWriter;
  /**
   * Brings the domain's tables up to everything stored, then returns: what `npm run import` runs when no service
   * writes beside it. Progress goes to `out` (a bar on a terminal, lines otherwise).
   */
  catchUp?(deps: WriterDeps, out?: NodeJS.WriteStream): Promise<void>;
}

/** What the writer thread gives a domain's writer. */
export interface WriterDeps {
  /** A pool of the writer thread's own (the primary). */
  pool: pg.Pool;
  log(line: string): void;
  /** The backfill lane loading older node files behind the present, if one runs: a writer derives only what it has. */
  backfill: BackfillView;
  /**
   * The lane following the node's files (the present): a writer derives only what it has committed. Unset: no
   * ingest writes beside the writer (a test, a bench over a loaded database), and everything stored counts.
   */
  present?: LaneView;
  /**
   * The complete backfills whose events no writer followed as they loaded (an archive import), oldest first: a writer
   * includes what they added, however old (unset: none).
   */
  imports?(): Promise<readonly ImportedBackfill[]>;
  /**
   * Whether a backfill lane is loading older rows behind the present: this role's own, or another process's (an
   * archive import beside the service). A writer may hold back work those rows would undo (unset: none loads).
   */
  backfillLoading?(): Promise<boolean>;
  /** Publishes on the bus (the domain's own `topics`), from the writer thread through the role's bus. */
  publish<T extends Topic>(topic: T, items: readonly Topics[T][]): void;
}

/** A complete backfill that loaded events no writer followed: the oldest of them, and when it completed (epoch ms). */
export interface ImportedBackfill {
  lane: string;
  loadedFromMs: number;
  completedAt: number;
}

/** An ingest lane as a writer sees it. */
export interface LaneView {
  /**
   * Every row of these ingest streams before this time is committed (null: none yet, or no lane). A stream with
   * nothing more to say does not hold the others back (ingest/options.ts committedUntil).
   */
  loadedUntil(streams: readonly StreamName[]): number | null;
}

/** The backfill lane as a writer sees it. */
export interface BackfillView extends LaneView {
  /** Every backfill row is loaded (true at once without a lane). */
  complete(): boolean;
}

/** A domain's writer as the writer thread runs it. */
export interface DomainWriter {
  /** Runs until stopped; rejects only on a bug (a storage outage is ridden out). */
  run(): Promise<void>;
  stop(): Promise<void>;
  /** Its checkpoint and how much it has written, for the metrics (reported a few times a second). */
  progress(): WriterProgress;
}

/** What a subgraph's context may use beside its service: what is assembled over every domain. */
export interface SubgraphPlatform {
  /** dataCoverage over every domain's datasets. */
  coverage(now: number): Promise<Coverage>;
}

/** Declares a domain (the identity function, for the types it infers: name, service, context, needs). */
export function defineDomain<
  Name extends string,
  S extends DomainService,
  Context extends object,
  Needs extends object,
>(domain: Domain<Name, S, Context, Needs>): Domain<Name, S, Context, Needs> {
  return domain;
}

/** Services created and started, by domain name, and their stop (in reverse order). */
export interface StartedServices {
  services: Record<string, DomainService>;
  stop(): Promise<void>;
}

/**
 * Creates and starts the services of `domains` in their order, each factory given the earlier services it needs.
 * A failed start stops the services already started.
 */
export async function startDomainServices(domains: readonly Domain[], shared: SharedDeps): Promise<StartedServices> {
  const services: Record<string, DomainService> = {};
  const started: DomainService[] = [];
  const stop = async () => {
    for (const service of started.splice(0).reverse()) await service.stop();
  };
  try {
    for (const domain of domains) {
      const needed: Record<string, DomainService> = {};
      for (const need of domain.needs ?? []) {
        const service = services[need];
        if (!service) throw new Error(`domain ${domain.name} needs ${need}: list ${need} before it in domains.ts`);
        needed[need] = service;
      }
      const service = domain.create({ ...shared, readPool: shared.readPool ?? shared.pool, services: needed });
      started.push(service);
      await service.start?.();
      services[domain.name] = service;
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { services, stop };
}

/**
 * Where the subgraphs listen: loopback, whatever `HOST` is. They are the router's: they check no keys and apply none
 * of its operation limits but bounds on size, time and bodies (spec §5 holds at the router and compat-rest, the only
 * public doors).
 */
export const SUBGRAPH_HOST = '127.0.0.1';

/** Serves a domain's subgraph (HTTP and graphql-ws on `/graphql`) over its service, on loopback. */
export function serveDomain(
  domain: Domain,
  service: DomainService,
  port: number,
  platform: SubgraphPlatform,
): Promise<RunningServer> {
  const context = domain.context(service, platform);
  return serveSubgraph(domain.name, domain.schema, { port, host: SUBGRAPH_HOST, context });
}

/**
 * The union of one record per owner (a domain's /info types, its datasets), refusing a key declared twice: the
 * second would silently replace the first.
 */
export function unionOf<T>(
  what: string,
  parts: readonly (readonly [owner: string, part: Readonly<Record<string, T>> | undefined])[],
): Readonly<Record<string, T>> {
  const union: Record<string, T> = {};
  const owners: Record<string, string> = {};
  for (const [owner, part] of parts) {
    for (const [key, value] of Object.entries(part ?? {})) {
      if (Object.hasOwn(union, key)) {
        throw new Error(`${what} ${JSON.stringify(key)} is declared by both ${owners[key]} and ${owner}`);
      }
      union[key] = value;
      owners[key] = owner;
    }
  }
  return union;
}
