// The embedded launcher recovers from a server left running by a process killed with -9, and never runs the
// server as root.
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
});

async function postmasterPid(): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
}

describe('embedded Postgres', () => {
  it('takes over from a server whose owner was killed with -9', async () => {
    const holder = startCli('test/fixtures/hold-cluster.ts', [dataDir, String(port)]);
    await new Promise<void>((resolve, reject) => {
      holder.stdout?.on('data', (d) => String(d).includes('ready') && resolve());
      holder.on('exit', (code) => reject(new Error(`holder exited with ${code}`)));
    });
    const stalePid = await postmasterPid();
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    // The orphaned server still holds the data dir and the port.
    expect(() => process.kill(stalePid, 0)).not.toThrow();

    const logs: string[] = [];
    const cluster = await startEmbedded({ dataDir, port, log: (l) => logs.push(l) });
    try {
      expect(logs.join('\n')).toContain(`stopping a Postgres server left running by an earlier run (pid ${stalePid})`);
      const client = new pg.Client(cluster.url());
      await client.connect();
      const { rows } = await client.query('SELECT 1 AS ok');
      await client.end();
      expect(rows).toEqual([{ ok: 1 }]);
      const pid = await postmasterPid();
      expect(pid).not.toBe(stalePid);
      if (process.getuid?.() === 0) {
        // Postgres refuses root; the launcher runs it as the unprivileged `postgres` user.
        const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
        const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
        expect(uid).not.toBe(0);
      }
    } finally {
      await cluster.stop();
    }
    await expect(fs.access(path.join(dataDir, 'postmaster.pid'))).rejects.toThrow();
  });
});
