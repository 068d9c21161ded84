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

export interface Config {
  /** Project root; relative data paths resolve against it. */
  root: string;
  /** External Postgres; when unset the embedded cluster is used. */
  databaseUrl: string | undefined;
  pgDataDir: string;
  pgPort: number;
  /** A real node's data dir (`~/hl/data`); when set, the simulator does not run. */
  hlDataDir: string | undefined;
  /** Where the simulator writes its node files. */
  simDataDir: string;
  simPort: number;
  simSeed: number;
  /** History the simulator writes before real time, on a fresh data dir. */
  simHistory: string;
  /** The simulator's fills per second in real time (and the history's last 5 minutes). */
  simFillsPerSecond: number;
  /** The simulator's fills per second in the history before that (and in the gap a restart fills). */
  simHistoryFillsPerSecond: number;
  upstreamInfoUrl: string;
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
  return {
    root,
    databaseUrl: str('DATABASE_URL'),
    pgDataDir: path.resolve(root, str('PG_DATA_DIR') ?? '.data/pg'),
    pgPort: int('PG_PORT', 54329),
    hlDataDir: str('HL_DATA_DIR'),
    simDataDir: path.resolve(root, str('SIM_DATA_DIR') ?? '.data/hl/data'),
    simPort,
    simSeed: int('SIM_SEED', 42),
    simHistory: str('SIM_HISTORY') ?? '6h',
    // The simulator's DEFAULT_FILLS_PER_SECOND and DEFAULT_HISTORY_FILLS_PER_SECOND (ingest/simulator/timeline.ts).
    simFillsPerSecond: rate('SIM_FILLS_PER_SECOND', 40),
    simHistoryFillsPerSecond: rate('SIM_HISTORY_FILLS_PER_SECOND', 1),
    upstreamInfoUrl: str('UPSTREAM_INFO_URL') ?? `http://127.0.0.1:${simPort}/info`,
    host: str('HOST') ?? '127.0.0.1',
    allowAnonymous: flag('ALLOW_ANONYMOUS'),
    portOffset,
    compatPort: port('COMPAT_PORT', 8080),
    routerPort: port('ROUTER_PORT', 4000),
    mcpPort: port('MCP_PORT', 8090),
    mcpAllowedHosts: (str('MCP_ALLOWED_HOSTS') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean),
    subgraphPort: (name, defaultPort) => port(portVariable(name), defaultPort),
  };
}

/** `7d`, `36h`, `90m`, `30s` or `0` → milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const m = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${JSON.stringify(text)} (expected e.g. 7d, 36h, 90m, 0)`);
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
