// `npm run subgraph -- <domain>`: one domain's subgraph alone (ARCHITECTURE.md: every part can also start alone),
// over the configured database (DATABASE_URL, or the embedded cluster: a running `npm start`'s as a guest) and the
// node's /info (UPSTREAM_INFO_URL), on its port (<NAME>_PORT, PORT_OFFSET). With NATS_URL it follows the JetStream
// stream an ingest role publishes on (live events); without, its bus is in-process with no ingest behind it, so it
// serves stored history and live state as of its start. The services of the domains it needs start with it, unserved.
import { openDatabase } from './db/pool.ts';
import { DOMAIN_LIST, subgraphPlatform } from './domains.ts';
import { openConfiguredBus } from './events/open.ts';
import { type Domain, serveDomain, startDomainServices } from './kit/domain.ts';
import { loadConfig } from './platform/config.ts';
import { shutdownTracing, startTracing } from './platform/tracing.ts';
import { Upstream } from './platform/upstream.ts';

const log = (line: string) => console.log(line);
const names = DOMAIN_LIST.map((d) => d.name);
const [name] = process.argv.slice(2);
const domain = DOMAIN_LIST.find((d) => d.name === name);
if (!domain) {
  console.error(`usage: npm run subgraph -- <domain>  (one of: ${names.join(', ')})`);
  process.exit(2);
}

/** The domain and, before it, every domain it needs (transitively), in the registry's order. */
function withNeeds(target: Domain): Domain[] {
  const wanted = new Set<string>([target.name]);
  for (const d of [...DOMAIN_LIST].reverse()) if (wanted.has(d.name)) for (const n of d.needs ?? []) wanted.add(n);
  return DOMAIN_LIST.filter((d) => wanted.has(d.name));
}

const stops: (() => Promise<void> | void)[] = [];
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  for (const stop of stops.reverse()) {
    try {
      await stop();
    } catch (err) {
      console.error(`while stopping: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));

try {
  const config = loadConfig();
  const db = await openDatabase(config, log, { command: `npm run subgraph -- ${domain.name}`, mode: 'guest' });
  stops.push(() => db.close());
  // Traced when an OTLP endpoint is configured (platform/tracing.ts); the last spans are sent before the database
  // closes.
  await startTracing();
  stops.push(shutdownTracing);
  const upstream = new Upstream(config.upstreamInfoUrl, { timeoutMs: 5000 });
  const bus = await openConfiguredBus(config, log);
  stops.push(() => bus.close());
  const started = await startDomainServices(withNeeds(domain), {
    pool: db.pool,
    bus,
    upstream,
    now: Date.now,
  });
  stops.push(started.stop);
  const service = started.services[domain.name];
  if (!service) throw new Error(`no ${domain.name} service started`);
  const server = await serveDomain(
    domain,
    service,
    config.subgraphPort(domain.name, domain.port),
    subgraphPlatform(db.pool),
  );
  stops.push(server.close);
  log(
    `${domain.name} subgraph ${server.url} (node /info ${config.upstreamInfoUrl}; events: ${bus.describe}` +
      `${config.natsUrl ? '' : ', no ingest behind it: no live events'})`,
  );
  log('ready');
} catch (err) {
  console.error(`subgraph failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
}
