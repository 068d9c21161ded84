// compat-rest alone for tests of its contract (400 messages, envelopes, paging headers): the fastify app and the
// domain services over a database of the file's own, answering through `app.inject()`; no router, no subgraph
// servers, no simulator running in real time. The simulated history is loaded once per run into a template
// (test/stack-template.ts, shared with the 20-minute test stacks).
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Authenticator } from '../access/auth.ts';
import { buildCompatApp } from '../compat-rest/app.ts';
import { startCompatServer } from '../compat-rest/server.ts';
import type { AccountsService } from '../domains/accounts/service/index.ts';
import type { MarketsService } from '../domains/markets/service/index.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { InProcessBus } from '../events/bus.ts';
import { type DomainServices, startDomainServices } from '../kit/domain.ts';
import type { CompatServices } from '../kit/info.ts';
import { Upstream } from '../platform/upstream.ts';
import { compatServicesOf } from '../stack.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { simulatedNode, templateHistoryMs } from './stack.ts';
import { loadedStackTemplate } from './stack-template.ts';

/** The loaded template with 20 minutes of simulated history (unless asked for more), a 20-minute test stack's. */
const SEED = 7;
const HISTORY_MS = 20 * 60_000;

export interface CompatAppOptions {
  /** `simulated` (default): a clone of the template with 20 minutes of history; `empty`: only the migrations. */
  data?: 'simulated' | 'empty';
  /** With `simulated`: at least this much history (default 20 minutes), rounded up as a test stack's (test/stack.ts). */
  historyMs?: number;
  /**
   * `simulated` (default): a simulated node with the same listings; `down`: a port nothing listens on; `{url}`: the
   * node /info URL a test serves itself.
   */
  node?: 'simulated' | 'down' | { url: string };
  /** Also listen on a port, with /ws (urls.compat, urls.ws), for tests that need a socket. */
  listen?: boolean;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  type: string | undefined;
  /** The parsed JSON body, or null when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field, as `res.json()` gives them
  body: any;
  text: string;
}

export interface TestCompatApp {
  app: FastifyInstance;
  db: TestDatabase;
  markets: MarketsService;
  accounts: AccountsService;
  /** Every domain's service by name, as the compat handlers and the MCP tools get them. */
  services: CompatServices;
  auth: Authenticator;
  /** The bus the services follow: nothing publishes on it but a test (loading node files through ingest, say). */
  bus: InProcessBus;
  /** Set with `listen`. */
  urls: { compat: string; ws: string };
  get(path: string): Promise<Answer>;
  /** POST /info with `body` as JSON, or `raw` as it is. */
  info(body: unknown, headers?: Record<string, string>, raw?: string): Promise<Answer>;
  close(): Promise<void>;
}

/** The /info URL of a node that is down: a port nothing listens on. */
async function deadNodeUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}/info`;
}

function answer(res: { statusCode: number; headers: Answer['headers']; body: string }): Answer {
  let body: unknown = null;
  try {
    body = JSON.parse(res.body);
  } catch {
    // not JSON: `text` has it
  }
  const type = res.headers['content-type'];
  return {
    status: res.statusCode,
    headers: res.headers,
    type: type === undefined ? undefined : String(type),
    body,
    text: res.body,
  };
}

export async function startCompatApp(opts: CompatAppOptions = {}): Promise<TestCompatApp> {
  const closers: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const template =
      opts.data === 'empty'
        ? undefined
        : (await loadedStackTemplate(SEED, templateHistoryMs(opts.historyMs ?? HISTORY_MS))).database;
    const db = await createTestDatabase(template);
    closers.push(db.drop);
    let nodeUrl = typeof opts.node === 'object' ? opts.node.url : await deadNodeUrl();
    if (opts.node === undefined || opts.node === 'simulated') {
      const node = await simulatedNode(SEED);
      closers.push(node.close);
      nodeUrl = node.url;
    }
    const upstream = new Upstream(nodeUrl, { timeoutMs: 1000 });
    const auth = new Authenticator(db.pool, { alwaysRequireKey: false });
    // A bus only a test publishes on: no ingest follows the node here.
    const bus = new InProcessBus();
    const started = await startDomainServices(DOMAIN_LIST, { pool: db.pool, upstream, bus, now: Date.now });
    closers.push(started.stop);
    const { markets, accounts } = started.services as unknown as DomainServices;
    const services = compatServicesOf(started.services as unknown as DomainServices, upstream, db.pool);
    const urls = { compat: '', ws: '' };
    let app: FastifyInstance;
    if (opts.listen) {
      const server = await startCompatServer({ services, auth, pool: db.pool, port: 0, log: () => {} });
      closers.push(server.close);
      app = server.app;
      urls.compat = server.url;
      urls.ws = server.wsUrl;
    } else {
      app = await buildCompatApp({ services, auth, pool: db.pool, log: () => {} });
      closers.push(() => app.close());
    }
    return {
      app,
      db,
      markets,
      accounts,
      services,
      auth,
      bus,
      urls,
      get: async (path) => answer(await app.inject({ method: 'GET', url: path })),
      info: async (body, headers = {}, raw) =>
        answer(
          await app.inject({
            method: 'POST',
            url: '/info',
            headers: { 'content-type': 'application/json', ...headers },
            payload: raw ?? JSON.stringify(body),
          }),
        ),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
