// The embedded launcher's ownership of a cluster: a live owner's server is joined by guests and never stopped by
// them, a second owner is refused; a server whose owner was killed with -9 is taken over; a server that dies under
// its owner is restarted; and the server never runs as root.
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startCli } from '../test/cli.ts';
import { startEmbedded } from './embedded.ts';

const dataDir = path.join(ROOT, '.data', `test-embedded-${process.pid}`);
const port = 55000 + (process.pid % 1000);

afterAll(async () => {
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(`${dataDir}.owner`, { force: true });
});

async function postmasterPid(): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function selectOne(url: string): Promise<unknown> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query('SELECT 1 AS ok')).rows;
  } finally {
    await client.end();
  }
}

describe('embedded Postgres', () => {
  it('lets guests use a live owner’s server, refuses a second owner, and takes over from an owner killed with -9', async () => {
    const holder = startCli('test/fixtures/hold-cluster.ts', [dataDir, String(port), 'service']);
    await new Promise<void>((resolve, reject) => {
      holder.stdout?.on('data', (d) => String(d).includes('ready') && resolve());
      holder.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
    });
    const ownersPid = await postmasterPid();

    // A guest (given another port: it uses the owner's) runs its queries and leaves the server running.
    const logs: string[] = [];
    const guest = await startEmbedded({ dataDir, port: port + 1, mode: 'guest', log: (l) => logs.push(l) });
    expect(guest.owned).toBe(false);
    expect(guest.port).toBe(port);
    expect(await selectOne(guest.url())).toEqual([{ ok: 1 }]);
    await guest.stop();
    expect(logs.join('\n')).toContain(`using the Postgres server of hold-cluster (pid ${holder.pid})`);
    expect(isRunning(ownersPid)).toBe(true);
    expect(await postmasterPid()).toBe(ownersPid);

    // A second owner is refused while the service runs, and touches nothing.
    await expect(startEmbedded({ dataDir, port, command: 'npm start' })).rejects.toThrow(
      `hold-cluster (pid ${holder.pid}) already runs on the embedded Postgres in ${dataDir}`,
    );
    expect(isRunning(ownersPid)).toBe(true);

    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    // The orphaned server still holds the data dir and the port.
    expect(isRunning(ownersPid)).toBe(true);

    logs.length = 0;
    const cluster = await startEmbedded({ dataDir, port, log: (l) => logs.push(l) });
    try {
      expect(cluster.owned).toBe(true);
      expect(logs.join('\n')).toContain(
        `stopping the Postgres server (pid ${ownersPid}) left running by hold-cluster (pid ${holder.pid}), which is gone`,
      );
      expect(await selectOne(cluster.url())).toEqual([{ ok: 1 }]);
      const pid = await postmasterPid();
      expect(pid).not.toBe(ownersPid);
      if (process.getuid?.() === 0) {
        // Postgres refuses root; the launcher runs it as the unprivileged `postgres` user.
        const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
        const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
        expect(uid).not.toBe(0);
      }

      // The watchdog: a server killed under its owner is started again, on the same port.
      const up = new Promise<void>((resolve) => cluster.watch({ onUp: resolve }));
      process.kill(pid, 'SIGKILL');
      await up;
      expect(await postmasterPid()).not.toBe(pid);
      expect(await selectOne(cluster.url())).toEqual([{ ok: 1 }]);
    } finally {
      await cluster.stop();
    }
    await expect(fs.access(path.join(dataDir, 'postmaster.pid'))).rejects.toThrow();
    await expect(fs.access(`${dataDir}.owner`)).rejects.toThrow();
  });
});
