// The roles of `npm start` for scale-out (issue 23): the arguments and what each role refuses to start without, the
// api role's read-only schema check, the market-history sampler writing one sample per interval however many
// processes run it, and one ingest and one api process on a shared Postgres and NATS (the api started while Postgres
// is too slow for its start: it retries, answering 503 meanwhile, issue 38).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { awaitSchema } from '../db/pool.ts';
import type { BookDiffRow } from '../db/rows/markets.ts';
import { takeWriterLock } from '../db/writer-lock.ts';
import { OrderBooks } from '../domains/markets/service/book.ts';
import { HistorySampler } from '../domains/markets/service/history.ts';
import { loadStartConfig, parseStartArgs } from '../platform/config.ts';
import type { Stack } from '../stack.ts';
import { ROOT, type Running, spawnRunning, stopRunning, untilReady } from './cli.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { freePort } from './ports.ts';
import { startStackWithoutNode } from './stack.ts';
import { openSocket } from './ws-client.ts';

describe('npm start arguments', () => {
  it('take a role, all by default, as --role <role> or --role=<role>', () => {
    expect(parseStartArgs([])).toEqual({ role: 'all' });
    expect(parseStartArgs(['--role', 'ingest'])).toEqual({ role: 'ingest' });
    expect(parseStartArgs(['--role=api'])).toEqual({ role: 'api' });
    expect(parseStartArgs(['--role', 'all'])).toEqual({ role: 'all' });
  });

  it('refuse an unknown role or argument, naming it and the usage', () => {
    expect(() => parseStartArgs(['--role', 'writer'])).toThrow(
      'unknown role "writer": expected one of all, ingest, api (usage: npm start [-- --role all|ingest|api])',
    );
    expect(() => parseStartArgs(['--roles', 'api'])).toThrow('unknown argument "--roles"');
    expect(() => parseStartArgs(['api'])).toThrow('unknown argument "api"');
    expect(() => parseStartArgs(['--role'])).toThrow('--role needs a value');
    expect(() => parseStartArgs(['--role', 'api', '--role', 'ingest'])).toThrow('--role given twice');
  });
});

describe('what a role needs', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const ROLE_VARIABLES = ['DATABASE_URL', 'DATABASE_READ_URL', 'NATS_URL', 'UPSTREAM_INFO_URL', 'PORT_OFFSET'];
  function withEnv(env: Record<string, string>) {
    for (const name of ROLE_VARIABLES) delete process.env[name];
    Object.assign(process.env, env);
  }
  const API_ENV = {
    DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/hl',
    NATS_URL: 'nats://127.0.0.1:4222',
    UPSTREAM_INFO_URL: 'http://127.0.0.1:3001/info',
  };

  it('all: nothing (the embedded default)', () => {
    withEnv({});
    expect(loadStartConfig([])).toMatchObject({ role: 'all', databaseUrl: undefined, natsUrl: undefined });
  });

  it('ingest: NATS_URL, since nobody would receive its events otherwise', () => {
    withEnv({});
    expect(() => loadStartConfig(['--role', 'ingest'])).toThrow(
      /--role ingest needs NATS_URL: .*without it no api instance would receive them/,
    );
    withEnv({ NATS_URL: API_ENV.NATS_URL });
    expect(loadStartConfig(['--role', 'ingest'])).toMatchObject({ role: 'ingest', natsUrl: API_ENV.NATS_URL });
  });

  it('api: DATABASE_URL, NATS_URL and UPSTREAM_INFO_URL, each named when missing', () => {
    for (const name of ['DATABASE_URL', 'NATS_URL', 'UPSTREAM_INFO_URL'] as const) {
      const env: Record<string, string> = { ...API_ENV };
      delete env[name];
      withEnv(env);
      expect(() => loadStartConfig(['--role', 'api'])).toThrow(`--role api needs ${name}: `);
    }
    withEnv({ ...API_ENV, DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:5433/hl', PORT_OFFSET: '100' });
    expect(loadStartConfig(['--role=api'])).toMatchObject({
      role: 'api',
      databaseReadUrl: 'postgres://postgres@127.0.0.1:5433/hl',
      upstreamInfoUrl: API_ENV.UPSTREAM_INFO_URL,
      compatPort: 8180,
      routerPort: 4100,
      mcpPort: 8190,
      simPort: 3101,
    });
  });

  it('a read replica only beside its primary', () => {
    withEnv({ DATABASE_READ_URL: 'postgres://postgres@127.0.0.1:5433/hl' });
    expect(() => loadStartConfig([])).toThrow('DATABASE_READ_URL is a replica of DATABASE_URL: set DATABASE_URL too');
  });
});

describe('the api role checks the schema, never migrates it', () => {
  let migrated: TestDatabase;
  let empty: TestDatabase;
  beforeAll(async () => {
    [migrated, empty] = await Promise.all([createTestDatabase(), createTestDatabase('template1')]);
  });
  afterAll(async () => {
    await Promise.all([migrated?.drop(), empty?.drop()]);
  });

  it('passes on a current schema and names what is pending on another, writing nothing', async () => {
    await awaitSchema(migrated.pool, 0, () => {});
    await expect(awaitSchema(empty.pool, 0, () => {})).rejects.toThrow(
      /the database schema is not current \(pending: platform\/0001_.*\.sql, .*start the ingest role/,
    );
    const { rows } = await empty.pool.query(`SELECT to_regclass('platform.schema_migrations') AS t`);
    expect(rows[0].t).toBeNull();
  });
});

describe('DATABASE_READ_URL', () => {
  let primary: TestDatabase;
  let replica: TestDatabase;
  let stack: Stack | undefined;
  beforeAll(async () => {
    [primary, replica] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  });
  afterAll(async () => {
    await stack?.close();
    await Promise.all([primary?.drop(), replica?.drop()]);
  });

  it("serves the markets queries from the replica's pool, and writes no candle there", async () => {
    // Two databases stand for the primary and its replica: a trade only the replica holds tells which one a query read.
    await replica.pool.query(
      `INSERT INTO markets.trades (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES (1, 0, $1, 'BTC', 'B', '90000.0', '0.5', '0xabc', 7, '0xb', '0xs', '0')`,
      // Five minutes ago: its minute is closed, so a start backfilling candles from this database would write them.
      [Date.now() - 300_000],
    );
    stack = await startStackWithoutNode(primary.pool, { readPool: replica.pool });
    expect(await stack.markets.recentTrades('BTC')).toMatchObject([{ coin: 'BTC', px: '90000.0', tid: 7 }]);
    const { rows } = await replica.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM markets.candles');
    expect(rows[0]?.n).toBe(0);
  });
});

describe('the writer lock', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('is held by one process per database: a second is refused naming the holder, until the first releases it', async () => {
    const opts = { log: () => {}, onLost: (reason: string) => expect.fail(reason) };
    const first = await takeWriterLock(db.url, opts);
    await expect(takeWriterLock(db.url, opts)).rejects.toThrow(
      /^another process already ingests into this database \(it holds the writer lock: .*backend pid \d+.*start the others with --role api$/,
    );
    await first.release();
    const second = await takeWriterLock(db.url, opts);
    await second.release();
  });
});

describe('the market-history sampler in several processes', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  const order = (oid: number, coin: string, side: 'A' | 'B', px: string): BookDiffRow => ({
    block_number: 1,
    time: 1_000,
    address: '0xu',
    oid,
    coin,
    side,
    px,
    kind: 'new',
    sz: '2.0',
    orig_sz: null,
  });

  it('writes one sample per interval: concurrent ones and ones out of phase skip', async () => {
    const INTERVAL = 1000;
    // Each process has its own books from the same events.
    const booksOf = () => {
      const books = new OrderBooks();
      books.loadSnapshot([], 0, 0);
      books.applyDiffs([
        order(1, 'BTC', 'B', '100'),
        order(2, 'BTC', 'A', '101'),
        order(3, 'ETH', 'B', '10'),
        order(4, 'ETH', 'A', '11'),
      ]);
      return books;
    };
    let clock = 1_700_000_000_000;
    const [a, b] = [0, 1].map(() => new HistorySampler(db.pool, booksOf(), INTERVAL, () => clock));
    if (!a || !b) throw new Error('unreachable');
    const sampleTimes = async () =>
      (await db.pool.query<{ time: number }>('SELECT DISTINCT time FROM markets.history_depth ORDER BY time')).rows.map(
        (r) => r.time,
      );

    // Both at the same moment: one writes (the other finds the lock taken, or the sample written).
    const start = clock;
    expect((await Promise.all([a.tick(), b.tick()])).sort()).toEqual([0, 2]);
    // Out of phase by 0.6 interval, over four more intervals: A's timer every interval (one firing 5 ms early, as
    // timers do), B's 600 ms after each.
    const written: number[] = [];
    for (let i = 0; i < 4; i++) {
      clock += 600;
      expect(await b.tick()).toBe(0);
      clock += i === 1 ? 395 : 400;
      if (await a.tick()) written.push(clock);
    }
    expect(written.length).toBe(4);
    expect(await sampleTimes()).toEqual([start, ...written]);
    const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM markets.history_bbo');
    expect(rows[0]?.n).toBe(5 * 2);
  });
});

// ---- one ingest and one api process on the local Postgres and NATS ----

const LOCAL_PG = 'postgres://postgres@127.0.0.1:5432';
const LOCAL_NATS = 'nats://127.0.0.1:4222';
/**
 * A NATS server of the test's own where the binary is installed: the machine's serves other tests' ingest roles on
 * the same stream (openEventBus names one, HL_EVENTS), whose events an api instance here would follow too.
 */
const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find(existsSync);

async function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

async function localPostgres(): Promise<boolean> {
  const client = new pg.Client({ connectionString: `${LOCAL_PG}/postgres`, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const [havePostgres, haveNats] = await Promise.all([localPostgres(), reachable('127.0.0.1', 4222)]);
const missing = [havePostgres ? '' : `Postgres at ${LOCAL_PG}`, haveNats ? '' : `NATS at ${LOCAL_NATS}`].filter(
  Boolean,
);
if (missing.length) console.warn(`roles.test.ts: skipping the process test: no ${missing.join(' and no ')}`);

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Every port of an instance (platform/config.ts's defaults), as PORT_OFFSET shifts them. */
const DEFAULT_PORTS = [8080, 4000, 8090, 4001, 4002, 4003, 4004, 4005, 3001];

/**
 * A PORT_OFFSET under which every default port is free now, and none of `taken`'s. The ports stay below 32 768,
 * where the kernel's ephemeral range starts: the other test files' servers, listening on port 0, take theirs there,
 * and could take one between this check and the child's listen.
 */
async function freeOffset(taken: number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const offset = 10_000 + Math.floor(Math.random() * 140) * 100;
    const ports = DEFAULT_PORTS.map((p) => p + offset);
    if (ports.some((p) => taken.includes(p))) continue;
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) return offset;
  }
  throw new Error('no free PORT_OFFSET found');
}

type Instance = Running;

/** `node --import tsx start.ts --role <role>` with only the given variables beyond the caller's basics. */
function startRole(role: 'ingest' | 'api', env: Record<string, string>): Instance {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name]) base[name] = process.env[name];
  return spawnRunning(process.execPath, ['--import', 'tsx', path.join(ROOT, 'start.ts'), '--role', role], {
    cwd: ROOT,
    env: { ...base, LOG_LEVEL: 'warn', ...env },
  });
}

/** Polls `probe` until it returns a value, or fails with `what` after `timeoutMs`. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.skipIf(missing.length > 0)('one ingest and one api process on a shared Postgres and NATS', () => {
  const dbName = `hl_roles_${randomBytes(5).toString('hex')}`;
  const databaseUrl = `${LOCAL_PG}/${dbName}`;
  /** The simulator's node files and the test NATS server's store. */
  let dir: string;
  let nats: ChildProcess | undefined;
  let natsUrl = LOCAL_NATS;
  let ingest: Instance | undefined;
  let api: Instance | undefined;
  let apiOffset: number;
  /** What the api role's compat port answered while its start waited on the lock below. */
  let whileSlow: { status: number; retryAfter: string | null; body: unknown } | undefined;
  /** `allMids` asked of the api instance's compat REST. */
  const allMids = () =>
    fetch(`http://127.0.0.1:${8080 + apiOffset}/info`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'allMids' }),
    });

  beforeAll(async () => {
    const admin = new pg.Client(`${LOCAL_PG}/postgres`);
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-roles-'));
    if (NATS_SERVER) {
      const port = await freePort();
      nats = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(dir, 'nats')], {
        stdio: 'ignore',
      });
      natsUrl = `nats://127.0.0.1:${port}`;
      await eventually('the test NATS server listening', async () => (await reachable('127.0.0.1', port)) || undefined);
    }
    const ingestOffset = await freeOffset();
    apiOffset = await freeOffset(DEFAULT_PORTS.map((p) => p + ingestOffset));
    ingest = startRole('ingest', {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      PORT_OFFSET: String(ingestOffset),
      SIM_DATA_DIR: path.join(dir, 'hl'),
      SIM_HISTORY: '1m',
    });
    await untilReady(ingest, 'the ingest role');
    expect(ingest.output()).toContain(`PORT_OFFSET ${ingestOffset}`);
    // The api role starts while Postgres is too slow for it (issue 38): as a statement queued behind an ingest
    // role's load, its first start-up read (the schema check, on platform.schema_migrations) waits on a lock this
    // connection holds, until its statement_timeout cancels it (57014). The lock goes once the role has said it
    // retries and its compat port has answered 503; the retry then goes through.
    const slow = new pg.Client(databaseUrl);
    await slow.connect();
    try {
      await slow.query('BEGIN');
      await slow.query('LOCK TABLE platform.schema_migrations IN ACCESS EXCLUSIVE MODE');
      const starting = startRole('api', {
        DATABASE_URL: databaseUrl,
        NATS_URL: natsUrl,
        UPSTREAM_INFO_URL: `http://127.0.0.1:${3001 + ingestOffset}/info`,
        PORT_OFFSET: String(apiOffset),
      });
      api = starting;
      await eventually(
        'the api role retrying its schema check',
        async () => /^postgres: schema check: .*statement timeout.*; retrying in/m.test(starting.output()) || undefined,
        60_000,
      );
      whileSlow = await eventually('a 503 from the starting api role', async () => {
        const res = await allMids();
        return res.status === 503
          ? { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() }
          : undefined;
      });
    } finally {
      await slow.query('ROLLBACK').catch(() => undefined);
      await slow.end();
    }
    await untilReady(api, 'the api role');
  }, 240_000);

  afterAll(async () => {
    await Promise.all([stopRunning(api), stopRunning(ingest)]);
    nats?.kill('SIGKILL');
    const admin = new pg.Client(`${LOCAL_PG}/postgres`);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a second ingest role on the same database refuses to start', async () => {
    const second = startRole('ingest', {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      PORT_OFFSET: String(await freeOffset()),
      SIM_DATA_DIR: path.join(dir, 'hl2'),
    });
    expect((await second.exited).code).toBe(1);
    expect(second.output()).toContain('start failed: another process already ingests into this database');
  });

  it('an api role started while Postgres is slow retries, answers 503 with Retry-After meanwhile, and comes up', async () => {
    // The statement limit, as Postgres cancels it or (on a loaded machine, first) as the client gives up 0.5 s later.
    const TIMEOUT = '(canceling statement due to statement timeout|Query read timeout)';
    expect(whileSlow).toMatchObject({ status: 503, retryAfter: '5', body: { code: 'storage_unavailable' } });
    const { error, msg } = (whileSlow as { body: { error: string; msg: string } }).body;
    expect(error).toMatch(new RegExp(`^starting: storage is slow \\(${TIMEOUT}\\); retrying$`));
    expect(msg).toBe(error);
    expect(api?.output()).toMatch(
      new RegExp(`^postgres: schema check: ${TIMEOUT} \\(Postgres slow or busy\\); retrying in 0\\.5 s$`, 'm'),
    );
    expect(api?.output()).not.toContain('start failed');
    // Up: its real servers took the ports (the next test follows its mids and trades).
    expect((await allMids()).status).toBe(200);
  });

  it('the api instance answers allMids and streams an ingested trade to its /ws trades subscriber', async () => {
    const compat = `http://127.0.0.1:${8080 + apiOffset}`;
    expect(api?.output()).toContain(`${compat}/info`);
    expect(api?.output()).toContain('(schema checked, not migrated)');
    const mids = await eventually('allMids with a mid from the api instance', async () => {
      const res = await allMids();
      if (res.status !== 200) return undefined;
      const body = (await res.json()) as Record<string, string>;
      return Object.keys(body).length ? body : undefined;
    });
    const socket = await openSocket(`ws://127.0.0.1:${8080 + apiOffset}/ws`);
    try {
      for (const coin of Object.keys(mids).filter((c) => !c.startsWith('@'))) {
        socket.send({ method: 'subscribe', subscription: { type: 'trades', coin } });
      }
      const firstTrade = (async () => {
        for (;;) {
          const m = (await socket.next()) as { channel: string; data: { coin: string; tid: number }[] };
          if (m.channel === 'trades') return m.data[0];
        }
      })();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no trade on the api instance /ws within 60 s')), 60_000);
      });
      const trade = await Promise.race([firstTrade, late]).finally(() => clearTimeout(timer));
      expect(trade).toMatchObject({ coin: expect.any(String), tid: expect.any(Number) });
    } finally {
      socket.close();
    }
  });
});
