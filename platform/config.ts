// Every environment variable the service reads, with its default. The README's configuration table mirrors
// this file; keep the two in step.
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function flag(name: string): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new Error(`${name} must be 1 or 0, got ${JSON.stringify(raw)}`);
}

function rate(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a non-negative number, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function str(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

/** A comma-separated list; empty when unset. */
function list(name: string): string[] {
  return (str(name) ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
}

/** An origin as browsers send it (`https://app.example.com`, `http://127.0.0.1:5173`): scheme, host, port if any. */
function origin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || !/^https?:$/.test(url.protocol) || url.origin !== text) {
    throw new Error(`CORS_ORIGINS: ${JSON.stringify(text)} is not an origin (e.g. https://app.example.com, no path)`);
  }
  return text;
}

/** How long each class of day-partitioned rows is kept (db/partitions.ts). */
export interface Retention {
  /** Closed days an order-status day is kept whole (ORDER_STATUSES_FULL_DAYS, default 1). */
  orderStatusesFullDays: number;
  /** Closed days a book-sample day is kept at the sampler's rate (HISTORY_SAMPLES_FULL_DAYS, default 1). */
  samplesFullDays: number;
  /** Days book samples are kept at all; 0: for ever (HISTORY_SAMPLES_KEEP_DAYS, default 90). */
  samplesKeepDays: number;
  /**
   * Closed days an account-snapshot day is kept hourly, then daily (ACCOUNT_SNAPSHOTS_HOURLY_DAYS, default 7: the
   * default equity-history window, `7d`, stays hourly).
   */
  snapshotsHourlyDays: number;
}

export const DEFAULT_RETENTION: Retention = {
  orderStatusesFullDays: 1,
  samplesFullDays: 1,
  samplesKeepDays: 90,
  snapshotsHourlyDays: 7,
};

export interface Config {
  /** Project root; relative data paths resolve against it. */
  root: string;
  /** External Postgres; when unset the embedded cluster is used. */
  databaseUrl: string | undefined;
  /** A read replica of DATABASE_URL for the domain services' reads in the api role (and all): `DATABASE_READ_URL`. */
  databaseReadUrl: string | undefined;
  /** The NATS server whose JetStream carries the events between roles: `NATS_URL`; unset: the in-process bus. */
  natsUrl: string | undefined;
  /**
   * The JetStream stream (`NATS_STREAM`, default HL_EVENTS; its subjects are its name in lower case, `hl_events.>`):
   * deployments sharing a NATS server keep apart by name.
   */
  natsStream: string;
  /** How long the JetStream stream keeps events, what a GraphQL subscriber can resume across: `BUS_RETENTION` (1h). */
  busRetention: string;
  pgDataDir: string;
  pgPort: number;
  /** A real node's data dir (`~/hl/data`); when set, the simulator does not run. */
  hlDataDir: string | undefined;
  /** Where the simulator writes its node files. */
  simDataDir: string;
  /** Where `GET /export/<dataset>/<day>.parquet` writes its files and manifest: `EXPORT_DIR` (`.data/export`). */
  exportDir: string;
  simPort: number;
  simSeed: number;
  /**
   * The simulator's profile, `SIM_PROFILE`: `default` (a light market) or `mainnet` (mainnet's shape, which also
   * changes the defaults of the history and the rates below; ingest/simulator/README.md "The mainnet profile").
   */
  simProfile: 'default' | 'mainnet';
  /** Cascade minutes of the mainnet profile: `SIM_CASCADE_AT`, ISO times or offsets from the start (`+10m`). */
  simCascadeAt: string | undefined;
  /** Order statuses per second of the mainnet profile: `SIM_ORDER_STATUSES_PER_SECOND` (default its own). */
  simOrderStatusesPerSecond: number | undefined;
  /** History the simulator writes before real time, on a fresh data dir (in the background while serving). */
  simHistory: string;
  /** The last part of that history written with every stream; the older part is lean (fills, funding, ledger...). */
  simDetailedHistory: string;
  /** The simulator's fills per second in the lean part of the history. */
  simLeanFillsPerSecond: number;
  /** How long partitioned rows are kept, by class (db/partitions.ts). */
  retention: Retention;
  /** The simulator's fills per second in real time (and the history's last 5 minutes). */
  simFillsPerSecond: number;
  /** The simulator's fills per second in the history before that (and in the gap a restart fills). */
  simHistoryFillsPerSecond: number;
  /** The node's /info: `UPSTREAM_INFO_URL`, else the simulator's on `simPort`. */
  upstreamInfoUrl: string;
  /** Whether `UPSTREAM_INFO_URL` was set (npm start then relays to it, not to its simulator). */
  upstreamInfoUrlSet: boolean;
  /** Address the servers bind to; beyond loopback, a key is required unless `allowAnonymous`. */
  host: string;
  /** Servers bound beyond loopback serve without a key while none is configured (spec §5.2); off by default. */
  allowAnonymous: boolean;
  /** Added to every port this instance listens on (compat, router, subgraphs, the simulator's node): `PORT_OFFSET`. */
  portOffset: number;
  compatPort: number;
  routerPort: number;
  /** The MCP tool server's port: `MCP_PORT` (8090). */
  mcpPort: number;
  /** Host names the MCP server's Host/Origin check accepts besides loopback's and HOST: `MCP_ALLOWED_HOSTS` (a,b). */
  mcpAllowedHosts: string[];
  /** Origins the router answers with CORS credentials allowed: `CORS_ORIGINS` (a,b); others get `*` without. */
  corsOrigins: string[];
  /** A subgraph's port: `<NAME>_PORT` (MARKETS_PORT), else the domain's default; shifted by `portOffset`. */
  subgraphPort(name: string, defaultPort: number): number;
}

/** The environment variable of a domain's subgraph port: `markets` → `MARKETS_PORT`. */
export const portVariable = (name: string) => `${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}_PORT`;

export function loadConfig(): Config {
  const portOffset = int('PORT_OFFSET', 0);
  // An ephemeral port (0) stays ephemeral.
  const port = (name: string, fallback: number) => {
    const value = int(name, fallback);
    if (value === 0) return 0;
    if (value + portOffset > 65_535) throw new Error(`${name} ${value} + PORT_OFFSET ${portOffset} is beyond 65535`);
    return value + portOffset;
  };
  const simPort = port('SIM_PORT', 3001);
  const simProfile = str('SIM_PROFILE') ?? 'default';
  if (simProfile !== 'default' && simProfile !== 'mainnet') {
    throw new Error(`SIM_PROFILE must be default or mainnet, got ${JSON.stringify(simProfile)}`);
  }
  // The mainnet profile's history, detailed part and fill rate (ingest/simulator/profile.ts MAINNET).
  const mainnet = simProfile === 'mainnet';
  const statuses = str('SIM_ORDER_STATUSES_PER_SECOND');
  return {
    root,
    databaseUrl: str('DATABASE_URL'),
    databaseReadUrl: str('DATABASE_READ_URL'),
    natsUrl: str('NATS_URL'),
    natsStream: streamName(str('NATS_STREAM') ?? 'HL_EVENTS'),
    busRetention: str('BUS_RETENTION') ?? '1h',
    pgDataDir: path.resolve(root, str('PG_DATA_DIR') ?? '.data/pg'),
    pgPort: int('PG_PORT', 54329),
    hlDataDir: str('HL_DATA_DIR'),
    simDataDir: path.resolve(root, str('SIM_DATA_DIR') ?? '.data/hl/data'),
    exportDir: path.resolve(root, str('EXPORT_DIR') ?? '.data/export'),
    simPort,
    simSeed: int('SIM_SEED', 42),
    simProfile,
    simCascadeAt: str('SIM_CASCADE_AT'),
    simOrderStatusesPerSecond: statuses === undefined ? undefined : rate('SIM_ORDER_STATUSES_PER_SECOND', 0),
    simHistory: str('SIM_HISTORY') ?? (mainnet ? '1h' : '7d'),
    simDetailedHistory: str('SIM_DETAILED_HISTORY') ?? (mainnet ? '15m' : '6h'),
    // The simulator's DEFAULT_FILLS_PER_SECOND and DEFAULT_HISTORY_FILLS_PER_SECOND (ingest/simulator/timeline.ts).
    simFillsPerSecond: rate('SIM_FILLS_PER_SECOND', mainnet ? 75 : 40),
    simHistoryFillsPerSecond: rate('SIM_HISTORY_FILLS_PER_SECOND', mainnet ? 75 : 1),
    // DEFAULT_LEAN_FILLS_PER_SECOND (ingest/simulator/timeline.ts).
    simLeanFillsPerSecond: rate('SIM_LEAN_FILLS_PER_SECOND', mainnet ? 75 : 0.5),
    retention: {
      orderStatusesFullDays: int('ORDER_STATUSES_FULL_DAYS', DEFAULT_RETENTION.orderStatusesFullDays),
      samplesFullDays: int('HISTORY_SAMPLES_FULL_DAYS', DEFAULT_RETENTION.samplesFullDays),
      samplesKeepDays: int('HISTORY_SAMPLES_KEEP_DAYS', DEFAULT_RETENTION.samplesKeepDays),
      snapshotsHourlyDays: int('ACCOUNT_SNAPSHOTS_HOURLY_DAYS', DEFAULT_RETENTION.snapshotsHourlyDays),
    },
    upstreamInfoUrl: str('UPSTREAM_INFO_URL') ?? `http://127.0.0.1:${simPort}/info`,
    upstreamInfoUrlSet: str('UPSTREAM_INFO_URL') !== undefined,
    host: str('HOST') ?? '127.0.0.1',
    allowAnonymous: flag('ALLOW_ANONYMOUS'),
    portOffset,
    compatPort: port('COMPAT_PORT', 8080),
    routerPort: port('ROUTER_PORT', 4000),
    mcpPort: port('MCP_PORT', 8090),
    mcpAllowedHosts: list('MCP_ALLOWED_HOSTS'),
    corsOrigins: list('CORS_ORIGINS').map(origin),
    subgraphPort: (name, defaultPort) => port(portVariable(name), defaultPort),
  };
}

/**
 * What a `npm start` process runs: `all` (everything in one process, the default), `ingest` (the one writer: the
 * feed, ingest, the analytics derivation; publishes events) or `api` (any number: compat, router, subgraphs, MCP).
 */
export const ROLES = ['all', 'ingest', 'api'] as const;
export type Role = (typeof ROLES)[number];

const START_USAGE = `usage: npm start [-- --role ${ROLES.join('|')}]`;

/** `start.ts`'s arguments: `--role <role>` or `--role=<role>` (default `all`); anything else is an error. */
export function parseStartArgs(argv: readonly string[]): { role: Role } {
  let role: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const inline = /^--role=(.*)$/.exec(arg);
    if (arg !== '--role' && !inline) throw new Error(`unknown argument ${JSON.stringify(arg)} (${START_USAGE})`);
    if (role !== undefined) throw new Error(`--role given twice (${START_USAGE})`);
    role = inline ? inline[1] : argv[++i];
    if (role === undefined || role === '') throw new Error(`--role needs a value (${START_USAGE})`);
  }
  role ??= 'all';
  if (!(ROLES as readonly string[]).includes(role)) {
    throw new Error(`unknown role ${JSON.stringify(role)}: expected one of ${ROLES.join(', ')} (${START_USAGE})`);
  }
  return { role: role as Role };
}

export type StartConfig = Config & { role: Role };

/**
 * `npm start`'s configuration: the environment (loadConfig) and the role from `argv`, refused with the variable to set
 * when the role cannot work without it. An api role never starts an embedded Postgres nor runs the simulator, so it
 * needs the shared database, the events and the node's /info named; the ingest role's events must go somewhere.
 */
export function loadStartConfig(argv: readonly string[]): StartConfig {
  const { role } = parseStartArgs(argv);
  const config = loadConfig();
  const missing = (name: string, why: string) => new Error(`--role ${role} needs ${name}: ${why}`);
  if (role === 'ingest' && !config.natsUrl) {
    throw missing(
      'NATS_URL',
      'it publishes its events on NATS JetStream for the api instances; without it no api instance would receive ' +
        'them (e.g. NATS_URL=nats://127.0.0.1:4222; `npm start` alone runs every part in one process)',
    );
  }
  if (role === 'api') {
    if (!config.databaseUrl) {
      throw missing('DATABASE_URL', 'the shared Postgres the ingest role writes (an api instance never embeds one)');
    }
    if (!config.natsUrl) throw missing('NATS_URL', 'the NATS server the ingest role publishes its events on');
    if (!config.upstreamInfoUrlSet) {
      throw missing(
        'UPSTREAM_INFO_URL',
        "the node's /info (the ingest role's simulator serves one on its SIM_PORT + PORT_OFFSET, e.g. " +
          'http://127.0.0.1:3001/info)',
      );
    }
  }
  if (config.databaseReadUrl && !config.databaseUrl) {
    throw new Error('DATABASE_READ_URL is a replica of DATABASE_URL: set DATABASE_URL too');
  }
  return { ...config, role };
}

/** `7d`, `36h`, `90m`, `30s` or `0` → milliseconds. */
/** A JetStream stream name: letters, digits, `_` and `-` (the server refuses `.`, `*`, `>` and spaces). */
function streamName(name: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new Error(`NATS_STREAM ${JSON.stringify(name)}: must be 1 to 64 letters, digits, "_" or "-"`);
  }
  return name;
}

export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const m = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)} (expected e.g. 7d, 36h, 90m, 0)`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
