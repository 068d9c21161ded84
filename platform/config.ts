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
  simHistory: string | undefined;
  upstreamInfoUrl: string;
}

export function loadConfig(): Config {
  const simPort = int('SIM_PORT', 3001);
  return {
    root,
    databaseUrl: str('DATABASE_URL'),
    pgDataDir: path.resolve(root, str('PG_DATA_DIR') ?? '.data/pg'),
    pgPort: int('PG_PORT', 54329),
    hlDataDir: str('HL_DATA_DIR'),
    simDataDir: path.resolve(root, str('SIM_DATA_DIR') ?? '.data/hl/data'),
    simPort,
    simSeed: int('SIM_SEED', 42),
    simHistory: str('SIM_HISTORY'),
    upstreamInfoUrl: str('UPSTREAM_INFO_URL') ?? `http://127.0.0.1:${simPort}/info`,
  };
}
