// GET /export/<dataset>/<day>.parquet and GET /export/manifest.json over compat-rest: a key as every data endpoint,
// a day charged per row (1 credit per 2 000 rows, at least 1) before it runs, a refused dataset or day a 400 naming it
// and costing nothing (another extension than .parquet: no route, 404), a key short of the day's credits 402 with nothing written, a day without rows a file of 0
// rows; the answer is the file the manifest names (sha256 of the bytes received), and reads back in hyparquet.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { readParquet } from '../test/parquet.ts';
import { buildCompatApp } from './app.ts';

const DAY = '2026-06-01';
const START = Date.UTC(2026, 5, 1);
const FILLS = 4001;

let compat: TestCompatApp;
let app: FastifyInstance;
let dir: string;

beforeAll(async () => {
  compat = await startCompatApp({ data: 'empty', node: 'down' });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-export-route-'));
  app = await buildCompatApp({
    services: compat.services,
    auth: compat.auth,
    pool: compat.db.pool,
    exportDir: dir,
    log: () => {},
  });
  await compat.db.pool.query(
    `INSERT INTO accounts.fills (time, block_number, event_index, tid, address, coin, px, sz, side, start_position,
       dir, closed_pnl, hash, oid, crossed, fee, fee_token)
     SELECT $1::bigint + g * 1000, g, 0, g, '0x' || lpad(to_hex(g % 9), 40, '0'), 'BTC', 65000 + g, 0.001, 'B', 0,
       'Open Long', 0, '0x' || md5(g::text), g, true, 0.01, 'USDC'
     FROM generate_series(0, ${FILLS - 1}) g`,
    [START],
  );
}, 180_000);
afterAll(async () => {
  await app?.close();
  await compat?.close();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

async function newKey(credits: number) {
  const { key, record } = await createKey(compat.db.pool, { scope: 'data', rateLimitPerMin: 100_000, credits });
  compat.auth.invalidate();
  return { headers: { authorization: `Bearer ${key}` }, id: record.id };
}

const creditsLeft = async (id: number) =>
  Number((await compat.db.pool.query('SELECT credits FROM platform.api_keys WHERE id = $1', [id])).rows[0].credits);

const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

describe('GET /export', () => {
  it("streams a day's file, charged a credit per 2 000 rows, and the manifest names it", async () => {
    const { headers, id } = await newKey(100);
    const res = await get(`/export/fills/${DAY}.parquet`, headers);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    expect(res.headers['x-export-rows']).toBe(String(FILLS));
    const body = res.rawPayload;
    const sha256 = createHash('sha256').update(body).digest('hex');
    expect(res.headers['x-export-sha256']).toBe(sha256);
    // 4 001 rows: 3 credits.
    expect(await creditsLeft(id)).toBe(97);

    const received = path.join(dir, 'received.parquet');
    await fs.writeFile(received, body);
    const { rows } = await readParquet(received);
    expect(rows).toHaveLength(FILLS);
    expect(rows.map((r) => [r.time, r.tid, r.px])).toEqual(
      Array.from({ length: FILLS }, (_, g) => [START + g * 1000, String(g), String(65000 + g)]),
    );

    const manifest = await get('/export/manifest.json', headers);
    expect(manifest.statusCode).toBe(200);
    expect(manifest.json().files).toEqual([
      expect.objectContaining({
        dataset: 'fills',
        day: DAY,
        path: `fills/${DAY}.parquet`,
        rows: FILLS,
        bytes: body.length,
        sha256,
        schemaVersion: 1,
        positions: {
          key: ['time', 'block_number', 'event_index', 'tid', 'address'],
          first: `${START}:0:0:0:0x${'0'.repeat(40)}`,
          last: `${START + (FILLS - 1) * 1000}:4000:0:4000:0x${'0'.repeat(39)}4`,
        },
      }),
    ]);
    expect(await creditsLeft(id)).toBe(96);
  });

  it('a day with no rows is a file of 0 rows, for 1 credit', async () => {
    const { headers, id } = await newKey(10);
    const res = await get('/export/trades/2026-06-02.parquet', headers);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-export-rows']).toBe('0');
    const file = path.join(dir, 'empty.parquet');
    await fs.writeFile(file, res.rawPayload);
    expect((await readParquet(file)).rows).toEqual([]);
    expect(await creditsLeft(id)).toBe(9);
  });

  it('refuses a bad dataset or day with a 400 naming it, at no charge', async () => {
    const { headers, id } = await newKey(5);
    const refusals: [string, string][] = [
      [
        `/export/orders/${DAY}.parquet`,
        'dataset: must be one of fills, trades, candles, funding, ledger, books, got "orders"',
      ],
      ['/export/fills/2026-13-01.parquet', 'day: must be a UTC day YYYY-MM-DD from 2000-01-01, got "2026-13-01"'],
      ['/export/fills/yesterday.parquet', 'day: must be a UTC day YYYY-MM-DD from 2000-01-01, got "yesterday"'],
      [`/export/fills/${DAY}.parquet?limit=5`, 'limit: unknown parameter; it takes none'],
    ];
    for (const [url, error] of refusals) {
      const res = await get(url, headers);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toBe(error);
    }
    // Another extension is no route.
    const csv = await get(`/export/fills/${DAY}.csv`, headers);
    expect(csv.statusCode).toBe(404);
    expect(csv.json().error).toBe(`no such endpoint: GET /export/fills/${DAY}.csv`);
    expect(await creditsLeft(id)).toBe(5);
  });

  it('asks for a key, and refuses a key short of the rows with 402, exporting nothing', async () => {
    await newKey(1);
    expect((await get(`/export/fills/${DAY}.parquet`)).statusCode).toBe(401);
    expect((await get('/export/manifest.json')).statusCode).toBe(401);

    const before = (await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')).toString();
    const { headers, id } = await newKey(2);
    const res = await get(`/export/fills/${DAY}.parquet`, headers);
    expect(res.statusCode).toBe(402);
    expect(res.json().code).toBe('insufficient_credits');
    expect(await creditsLeft(id)).toBe(2);
    expect(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')).toBe(before);
  });
});
