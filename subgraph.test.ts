// `npm run subgraph -- <domain>`: one subgraph started alone, as a user would, over a database of its own; queried
// over HTTP, then stopped with SIGTERM.
import type { ChildProcess } from 'node:child_process';
import { printSubgraphSchema } from '@apollo/subgraph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_LIST } from './domains.ts';
import { startCli, waitCli } from './test/cli.ts';
import { createTestDatabase, type TestDatabase } from './test/db.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** Starts the subgraph; resolves with its URL once it printed `ready`. */
async function startSubgraph(name: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = startCli('subgraph.ts', [name], {
    DATABASE_URL: db.url,
    // Nothing listens there: a service that needs the node at its start says so and goes on without it.
    UPSTREAM_INFO_URL: 'http://127.0.0.1:9/info',
    [`${name.toUpperCase()}_PORT`]: '0',
  });
  let output = '';
  const done = waitCli(child);
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      output += d;
      const m = new RegExp(`^${name} subgraph (\\S+) .*\\n(?:.*\\n)*ready$`, 'm').exec(output);
      if (m?.[1]) resolve(m[1]);
    });
    void done.then((r) => reject(new Error(`exited ${r.code} before ready:\n${output}${r.stderr}`)));
  });
  return { child, url, output: () => output };
}

async function query(url: string, text: string) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: text }),
  });
  return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; errors?: unknown } };
}

describe('npm run subgraph', () => {
  it.each(DOMAIN_LIST.map((d) => d.name))(
    '%s: serves its own schema over HTTP, and stops on SIGTERM',
    async (name) => {
      const domain = DOMAIN_LIST.find((d) => d.name === name);
      const { child, url, output } = await startSubgraph(name);
      try {
        expect(new URL(url).hostname).toBe('127.0.0.1');
        expect(output()).toContain('no live events');
        const sdl = await query(url, '{ _service { sdl } }');
        expect(sdl.status).toBe(200);
        expect((sdl.body.data?._service as { sdl: string }).sdl).toBe(printSubgraphSchema(domain?.schema as never));
        // Accounts reads its database, with the markets service it needs started beside it.
        if (name === 'accounts') {
          const user = '0x0000000000000000000000000000000000000001';
          const answer = await query(
            url,
            `{ user(address: "${user}") { address fills(first: 1) { edges { node { tid } } } } }`,
          );
          expect(answer.body).toEqual({ data: { user: { address: user, fills: { edges: [] } } } });
        }
      } finally {
        const exited = waitCli(child);
        child.kill('SIGTERM');
        expect((await exited).code).toBe(0);
      }
    },
    60_000,
  );

  it('refuses a domain that is not registered, naming those that are', async () => {
    const { code, stderr } = await waitCli(startCli('subgraph.ts', ['nope'], { DATABASE_URL: db.url }));
    expect(code).toBe(2);
    expect(stderr).toContain(DOMAIN_LIST.map((d) => d.name).join(', '));
  });
});
