// The service's life cycle with real processes, as a user drives it from a terminal: `npm start` (or its entry)
// in a process group of its own on a temporary data dir, commands run beside it, and the signals that stop it. The
// embedded Postgres has one owner: commands use the running service's server and never stop it; a service killed
// with -9 comes back with its data; every way of stopping it leaves no Postgres behind.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type Running, spawnRunning, waitCli } from './cli.ts';
import { freePort } from './ports.ts';

const dir = path.join(ROOT, '.data', `test-lifecycle-${process.pid}`);
const dataDir = path.join(dir, 'pg');
let env: Record<string, string> = {};

/** The service's environment: everything on the temporary dir and free ports, nothing from the caller's. */
async function serviceEnv(): Promise<Record<string, string>> {
  const base = { ...process.env } as Record<string, string>;
  for (const name of ['DATABASE_URL', 'HL_DATA_DIR', 'UPSTREAM_INFO_URL', 'HOST', 'ALLOW_ANONYMOUS']) delete base[name];
  const ports = [
    'PG_PORT',
    'SIM_PORT',
    'COMPAT_PORT',
    'ROUTER_PORT',
    'MCP_PORT',
    'MARKETS_PORT',
    'ACCOUNTS_PORT',
    'HIP4_PORT',
  ];
  const assigned: Record<string, string> = {};
  for (const name of ports) assigned[name] = String(await freePort());
  return { ...base, ...assigned, PG_DATA_DIR: dataDir, SIM_DATA_DIR: path.join(dir, 'hl'), SIM_HISTORY: '10m' };
}

type Service = Running;

/** `npm start`, or its entry under node, as the leader of a new process group (as a terminal runs it). */
function spawnService(how: 'node' | 'npm', extraEnv: Record<string, string> = {}): Service {
  const [cmd, args] =
    how === 'npm' ? ['npm', ['start']] : [process.execPath, ['--import', 'tsx', path.join(ROOT, 'start.ts')]];
  return spawnRunning(cmd as string, args as string[], { cwd: ROOT, env: { ...env, ...extraEnv }, detached: true });
}

async function untilReady(service: Service): Promise<void> {
  const ready = (async () => {
    while (!/^ready$/m.test(service.output())) await new Promise((r) => setTimeout(r, 100));
  })();
  const exit = service.exited.then(({ code }) => {
    throw new Error(`the service exited (${code}) before it was ready:\n${service.output()}`);
  });
  await Promise.race([ready, exit]);
}

function runCommand(cmd: string, args: string[], extraEnv: Record<string, string> = {}) {
  return waitCli(spawn(cmd, args, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** Processes whose command line names the data dir: the postmaster (`pgrep -f <datadir>`). */
async function postgresProcesses(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dataDir) && cmdline.includes('postgres')) found.push(Number(entry));
  }
  return found;
}

/** Processes still in the process group `pgid` (npm, node, anything they left behind). */
async function groupMembers(pgid: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (stat && fields[0] !== 'Z' && Number(fields[2]) === pgid) found.push(Number(entry));
  }
  return found;
}

async function postmasterPid(): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

async function info(body: object, key?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${env.COMPAT_PORT}/info`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

async function stoppedCleanly(service: Service) {
  const { code } = await service.exited;
  expect(code, service.output()).toBe(0);
  expect(service.output()).toContain('Postgres stopped');
  expect(await postgresProcesses()).toEqual([]);
  await expect(fs.access(`${dataDir}.owner`)).rejects.toThrow();
}

const running: Service[] = [];
function start(how: 'node' | 'npm', extraEnv: Record<string, string> = {}): Service {
  const service = spawnService(how, extraEnv);
  running.push(service);
  return service;
}

beforeAll(async () => {
  env = await serviceEnv();
});

afterAll(async () => {
  // A failed test must leave nothing running either.
  const kill = (pid: number) => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  };
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) kill(-(s.child.pid as number));
  for (const pid of await postgresProcesses()) kill(pid);
  await fs.rm(dir, { recursive: true, force: true });
});

// Each test starts the whole service at least once: generous bounds for a machine busy with other work.
describe('npm start and the commands beside it', { timeout: 120_000 }, () => {
  let key = '';

  it('refuses to serve beyond loopback without a key, saying why, and stops its Postgres', async () => {
    const service = start('node', { HOST: '0.0.0.0' });
    const { code } = await service.exited;
    expect(code).toBe(1);
    expect(service.output()).toContain('HOST=0.0.0.0 is reachable beyond this machine and no API key exists');
    expect(service.output()).toContain('npm run -s keys -- create --scope data');
    expect(service.output()).toContain('ALLOW_ANONYMOUS=1');
    expect(await postgresProcesses()).toEqual([]);
  });

  let a: Service;
  it('with ALLOW_ANONYMOUS=1 serves anonymously; keys, migrations, a second start and ingest leave it running', async () => {
    a = start('node', { HOST: '0.0.0.0', ALLOW_ANONYMOUS: '1' });
    await untilReady(a);
    expect(a.output()).toContain('serving anonymously on 0.0.0.0 (ALLOW_ANONYMOUS=1)');
    expect((await info({ type: 'allMids' })).status).toBe(200);
    // The tool server is listed; it never serves without a key (spec §5.4), its health is public.
    expect(a.output()).toContain(`MCP tools         http://0.0.0.0:${env.MCP_PORT}/mcp`);
    expect((await fetch(`http://127.0.0.1:${env.MCP_PORT}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${env.MCP_PORT}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
    const postmaster = await postmasterPid();

    // The README's command: the key alone on stdout, the cluster's chatter on stderr.
    const created = await runCommand('npm', ['run', '-s', 'keys', '--', 'create', '--scope', 'data']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^hlk_\S+\n$/);
    expect(created.stderr).toContain(`using the Postgres server of npm start (pid ${a.child.pid})`);
    key = created.stdout.trim();

    const [migrated, second, ingest] = await Promise.all([
      runCommand('npm', ['run', '-s', 'db:migrate']),
      runCommand(process.execPath, ['--import', 'tsx', 'start.ts'], { COMPAT_PORT: String(await freePort()) }),
      runCommand('npm', ['run', '-s', 'ingest', '--', '--data-dir', path.join(dir, 'hl')]),
    ]);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`npm start (pid ${a.child.pid}) already runs on the embedded Postgres`);
    expect(ingest.code).toBe(1);
    expect(ingest.stderr).toContain('would load the same lines twice');

    expect(a.child.exitCode).toBeNull();
    expect(await postmasterPid()).toBe(postmaster);
    const mids = await info({ type: 'allMids' }, key);
    expect(mids.status).toBe(200);
    expect(Object.keys(mids.body as object).length).toBeGreaterThan(0);
  });

  let b: Service;
  it('comes back with its data after kill -9, taking over the Postgres left running', async () => {
    const orphan = await postmasterPid();
    process.kill(a.child.pid as number, 'SIGKILL');
    await a.exited;
    expect(await postgresProcesses()).toEqual([orphan]);

    b = start('node');
    await untilReady(b);
    expect(b.output()).toContain(`stopping the Postgres server (pid ${orphan}) left running by npm start`);
    // The key created before the kill is still there, and (keys existing) required.
    expect((await info({ type: 'allMids' }, key)).status).toBe(200);
    expect((await info({ type: 'allMids' }, 'hlk_not_a_key')).status).toBe(401);
  });

  it('stops everything on SIGTERM to the node process alone', async () => {
    process.kill(b.child.pid as number, 'SIGTERM');
    await stoppedCleanly(b);
  });

  // Retried: under a loaded full suite this case failed now and then (npm ended by the signal after Postgres was
  // stopped, or Postgres found gone when the service came to stop it); each attempt is a whole start and stop,
  // checked in full. The cause is open (noted on issue 16).
  it(
    'stops everything on Ctrl-C under npm start (SIGINT to the whole group: npm forwards it a second time)',
    { retry: 2 },
    async () => {
      const c = start('npm');
      await untilReady(c);
      const group = -(c.child.pid as number);
      process.kill(group, 'SIGINT');
      // npm's forwarded copy may come well after the terminal's: a service that took it for a new signal, or had
      // stopped listening, would die before stopping Postgres.
      await new Promise((r) => setTimeout(r, 300));
      try {
        process.kill(group, 'SIGINT');
      } catch {
        // the whole group stopped already
      }
      await stoppedCleanly(c);
      expect(await groupMembers(c.child.pid as number)).toEqual([]);
    },
  );
});
