// `npm run import -- --archive DIR` (issue 31) run as a user runs it, a child process against a database of its
// own, on test/fixtures/archive (see its README: three real recorded BTC books of the public archive and two real
// blocks of mainnet fills and a funding block; asset contexts built from the documented format). Every expected
// value is read from those lines by hand.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { compressFrameSync } from 'lz4-napi';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../db/embedded.ts';
import { EMBEDDED_DATABASE } from '../db/pool.ts';
import { importArchive as runImport } from '../ingest/archive/import.ts';
import { Ingest } from '../ingest/pipeline.ts';
import { type CliResult, ROOT, runCli, startCli } from './cli.ts';
import { startCompatApp, type TestCompatApp } from './compat-app.ts';
import { freePort } from './ports.ts';

const ARCHIVE = path.join(ROOT, 'test', 'fixtures', 'archive');
const DAY = '2024-01-01';
/** Progress written nowhere (not a terminal: a line per 10 s at most). */
const devNull = Object.assign(new Writable({ write: (_c, _e, done) => done() }), {
  isTTY: false,
}) as unknown as NodeJS.WriteStream;
const TAKER = '0x31ca8395cf837de08b24da3f660e77761dfb974b';
const A1 = `0x${'a1'.padStart(40, '0')}`;

let app: TestCompatApp;
let first: CliResult;

const importArchive = (dir = ARCHIVE) =>
  runCli('ingest/archive/cli.ts', ['--archive', dir], { DATABASE_URL: app.db.url, LOG_FORMAT: 'json' });

async function counts(): Promise<Record<string, number>> {
  const tables = [
    'accounts.fills',
    'markets.trades',
    'accounts.funding_payments',
    'markets.history_book',
    'markets.history_bbo',
    'markets.history_depth',
    'markets.history_slippage',
    'markets.asset_ctxs',
    'markets.funding_rates',
  ];
  const { rows } = await app.db.pool.query<{ t: string; n: number }>(
    tables.map((t, i) => `SELECT $${i + 1}::text AS t, count(*)::int AS n FROM ${t}`).join(' UNION ALL '),
    tables,
  );
  return Object.fromEntries(rows.map((r) => [r.t, r.n]));
}

beforeAll(async () => {
  app = await startCompatApp({ data: 'empty', node: 'down' });
  first = await importArchive();
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('npm run import -- --archive DIR', () => {
  it('loads both buckets and says how far it came', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('import: 2 node-data files (2 days), 2 market-data files (1 days)');
    expect(first.stderr).toMatch(/import: 4\/4 files, [\d,]+ rows in \d+ s \([\d,]+ rows\/s\), 0 files loaded before/);
  });

  it('answers /market/bbo, /market/spread and /market/book for the recorded day', async () => {
    const window = `start_time=${DAY}T00:00:00&end_time=${DAY}T23:59:59`;
    const bbo = await app.get(`/market/bbo/BTC?${window}`);
    expect(bbo.status).toBe(200);
    // Newest first: raw.data.time of the third, second and first line.
    expect(bbo.body.data).toEqual([
      {
        time: '2024-01-01T12:00:03.158',
        bid_px: '42728.0',
        bid_sz: '0.015',
        bid_n: 1,
        ask_px: '42733.0',
        ask_sz: '1.82331',
        ask_n: 1,
      },
      {
        time: '2024-01-01T12:00:00.367',
        bid_px: '42723.0',
        bid_sz: '0.17828',
        bid_n: 1,
        ask_px: '42729.0',
        ask_sz: '3.83257',
        ask_n: 2,
      },
      {
        time: '2024-01-01T11:59:59.915',
        bid_px: '42727.0',
        bid_sz: '0.02265',
        bid_n: 1,
        ask_px: '42729.0',
        ask_sz: '3.83257',
        ask_n: 2,
      },
    ]);
    const spread = await app.get(`/market/spread/BTC?${window}`);
    // (ask - bid) / ((ask + bid) / 2) × 10 000: 5/42730.5, 6/42726, 2/42728.
    expect(spread.body.data.map((r: { spread: string; spread_bps: string }) => [r.spread, r.spread_bps])).toEqual([
      ['5.0', '1.1701'],
      ['6.0', '1.4043'],
      ['2.0', '0.4681'],
    ]);
    const book = await app.get(`/market/book/BTC?${window}&limit=1`);
    const [bids, asks] = book.body.data[0].levels;
    expect(bids).toHaveLength(20);
    expect(asks).toHaveLength(20);
    expect(bids.slice(0, 3)).toEqual([
      { px: '42728.0', sz: '0.015', n: 1 },
      { px: '42727.0', sz: '0.075', n: 1 },
      { px: '42724.0', sz: '0.15144', n: 2 },
    ]);
    expect(book.body.has_more).toBe(true);
  });

  it('measures slippage and the liquidity report from the recorded levels', async () => {
    const window = `start_time=${DAY}T00:00:00&end_time=${DAY}T12:00:00`;
    const slippage = await app.get(`/market/slippage/BTC?${window}`);
    // Only the first line is before 12:00. A 1 000 USD buy fills at the best ask, 42729.0: 1/42728 × 10 000 = 0.2340
    // bps (4 decimals, trailing zeros dropped).
    const buy1000 = slippage.body.data.find((r: { notional: string }) => r.notional === '1000');
    expect(buy1000.buy_bps).toBe('0.234');
    const report = await app.get(`/market/liquidity-report/BTC?start_time=${DAY}T00:00:00&end_time=${DAY}T23:59:59`);
    expect(report.body.data.samples).toBe(3);
    // mean of 2/42728, 6/42726, 5/42730.5 (× 10 000), median the last, max the second.
    expect(report.body.data.spread_bps).toEqual({ avg: '1.0142', median: '1.1701', max: '1.4043' });
  });

  it('lists the imported days in availableDates, for the books, the contexts and the node data', async () => {
    const btc = await app.info({ type: 'availableDates', coin: 'BTC' });
    expect(btc.status).toBe(200);
    expect(btc.body.result.BTC).toMatchObject({
      l2Book: [DAY],
      bbo: [DAY],
      depth: [DAY],
      slippage: [DAY],
      assetCtxs: [DAY],
      fundingRates: [DAY],
      trades: [],
      candles: [],
    });
    const stbl = await app.info({ type: 'availableDates', coin: 'STBL', dataset: 'trades' });
    expect(stbl.body.result.STBL).toEqual({ trades: ['2026-03-15'] });
    const eth = await app.info({ type: 'availableDates', coin: 'ETH', dataset: 'assetCtxs' });
    expect(eth.body.result.ETH).toEqual({ assetCtxs: [DAY] });
  });

  it('loads the asset contexts into the funding history', async () => {
    const start = Date.UTC(2024, 0, 1);
    const funding = await app.info({
      type: 'fundingHistory',
      coin: 'BTC',
      startTime: start,
      endTime: start + 3_600_000,
    });
    expect(funding.status).toBe(200);
    // The 00:00 row (the sample on the hour); the 00:01 one is a context sample only.
    expect(funding.body).toEqual([{ coin: 'BTC', fundingRate: '0.0000125', premium: '0.00023361', time: start }]);
    const { rows } = await app.db.pool.query(
      `SELECT coin, time, mark_px::text, oracle_px::text, mid_px::text, impact_bid_px::text
       FROM markets.asset_ctxs ORDER BY coin, time`,
    );
    expect(rows).toEqual([
      {
        coin: 'BTC',
        time: start,
        mark_px: '42330.0',
        oracle_px: '42284.0',
        mid_px: '42331.5',
        impact_bid_px: '42327.1',
      },
      {
        coin: 'BTC',
        time: start + 60_000,
        mark_px: '42331.0',
        oracle_px: '42285.0',
        mid_px: '42332.5',
        impact_bid_px: '42328.3',
      },
      // Empty cells are no value.
      { coin: 'ETH', time: start, mark_px: '2284.6', oracle_px: '2282.0', mid_px: null, impact_bid_px: null },
    ]);
  });

  it('loads the node data into the tables live ingest fills, with the closed candles of its trades', async () => {
    // The real lines' fills of 0x31ca…974b: the taker's side of every trade in blocks 923950861 and 923950864.
    const fills = await app.info({ type: 'userFillsByTime', user: TAKER, startTime: Date.UTC(2026, 2, 15) });
    expect(fills.status).toBe(200);
    const shown = fills.body.map((f: Record<string, unknown>) => [f.coin, f.px, f.sz, f.side, f.dir, f.tid]);
    expect(shown).toHaveLength(4);
    expect(shown).toEqual(
      expect.arrayContaining([
        ['BERA', '0.63584', '371.7', 'A', 'Close Long', 214385502000240],
        ['WCT', '0.05781', '278.0', 'A', 'Close Long', 964687378208572],
        ['STBL', '0.035758', '2953.0', 'B', 'Open Long', 343963163474556],
        ['STBL', '0.035759', '11076.0', 'B', 'Open Long', 940707099910354],
      ]),
    );
    const minute = { interval: '1m', startTime: Date.UTC(2026, 2, 15), endTime: Date.UTC(2026, 2, 15, 0, 1) };
    const stbl = await app.info({ type: 'candleSnapshot', req: { coin: 'STBL', ...minute } });
    // Two STBL trades in 00:00: 2953.0 at 0.035758, then 11076.0 at 0.035759.
    expect(stbl.body).toMatchObject([
      { o: '0.035758', h: '0.035759', l: '0.035758', c: '0.035759', v: '14029.0', n: 2 },
    ]);
    const bera = await app.info({ type: 'candleSnapshot', req: { coin: 'BERA', ...minute } });
    expect(bera.body).toMatchObject([{ o: '0.63584', h: '0.63584', l: '0.63584', c: '0.63584', v: '371.7', n: 1 }]);
    // The real Funding event of block 1030773830 (2026-06-11 01:00): the ZEC delta of 0x…0dfd47…e984.
    const funding = await app.info({
      type: 'userFunding',
      user: '0x00000000000dfd47d200dc26e4e5c79b7e6de984',
      startTime: Date.UTC(2026, 5, 11),
    });
    expect(funding.status).toBe(200);
    expect(funding.body).toMatchObject([
      {
        time: Date.parse('2026-06-11T01:00:00.039Z'),
        delta: { coin: 'ZEC', usdc: '9.330246', szi: '280.0', fundingRate: '-0.0000810249' },
      },
    ]);
  });

  it('derives what it imported with no other command: the trader is in the leaderboard and has a performance', async () => {
    // No service writes to this database: the command derived the imported fills itself before it ended.
    expect(first.stderr).toMatch(/derive the analytics tables up to 2026-06-11T01:00:00\.040Z: \d+ fills/);
    const board = await app.get('/users/leaderboard?window=all&by=volume&limit=500');
    expect(board.status).toBe(200);
    // The taker's four fills above: 0.63584 × 371.7 + 0.05781 × 278 + 0.035758 × 2953 + 0.035759 × 11076
    // = 236.341728 + 16.07118 + 105.593374 + 396.066684 = 754.072966.
    const row = board.body.data.find((r: { address: string }) => r.address === TAKER);
    expect(row).toMatchObject({ fills: 4, volume: '754.072966' });
    const performance = await app.get(`/users/${TAKER}/performance?window=all`);
    expect(performance.status).toBe(200);
    expect(performance.body.data).toMatchObject({ volume: '754.072966' });
  });

  it('reports the imported days in dataCoverage, and no backfill still loading', async () => {
    const coverage = await app.info({ type: 'dataCoverage' });
    expect(coverage.status).toBe(200);
    const { result } = coverage.body;
    expect(JSON.stringify(result)).toContain('marketHistory');
    const datasets = result.datasets ?? result;
    // The imported day is held (`earliest`), but the book archive is complete only from its documented start
    // (spec §8: continuous from 2026-09-23), which `start` keeps.
    expect(datasets.marketHistory).toMatchObject({
      earliest: 1704110399915,
      latest: 1704110403158,
      start: Date.UTC(2026, 8, 23),
    });
    expect(datasets.assetCtxs).toMatchObject({
      start: Date.UTC(2024, 0, 1),
      earliest: Date.UTC(2024, 0, 1),
      latest: Date.UTC(2024, 0, 1, 0, 1),
    });
    expect(result.backfills ?? []).toEqual([]);
  });

  it('loads nothing twice: a second run finds every file loaded', async () => {
    const before = await counts();
    expect(before).toMatchObject({
      'accounts.fills': 8,
      'markets.trades': 4,
      'accounts.funding_payments': 2,
      'markets.history_book': 3,
      'markets.history_bbo': 3,
      'markets.history_depth': 3,
      'markets.history_slippage': 9,
      'markets.asset_ctxs': 3,
      'markets.funding_rates': 2,
    });
    const again = await importArchive();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('4/4 files, 0 rows');
    expect(again.stderr).toContain('2 files loaded before');
    expect(await counts()).toEqual(before);
  });

  it('loads a day added to the copy later, older than those loaded, and it alone', async () => {
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-archive-copy-'));
    try {
      await fs.cp(ARCHIVE, copy, { recursive: true });
      // One more block of the documented format, on the day before the node data loaded: its own lane.
      const t = Date.UTC(2025, 6, 31, 23, 59, 58, 500);
      const side = (user: string, sideOf: 'A' | 'B', oid: number, crossed: boolean, fee: string) => [
        user,
        {
          coin: 'ETH',
          px: '3700.5',
          sz: '0.5',
          side: sideOf,
          time: t,
          startPosition: '0.0',
          dir: sideOf === 'B' ? 'Open Long' : 'Open Short',
          closedPnl: '0.0',
          hash: `0x${'ab'.repeat(32)}`,
          oid,
          crossed,
          fee,
          tid: 800001,
          cloid: null,
          feeToken: 'USDC',
          twapId: null,
        },
      ];
      const line = {
        local_time: '2025-07-31T23:59:58.540000000',
        block_time: '2025-07-31T23:59:58.500123456',
        block_number: 689990000,
        events: [
          side(A1, 'B', 21, true, '0.8326125'),
          side(`0x${'b2'.padStart(40, '0')}`, 'A', 22, false, '0.2775375'),
        ],
      };
      const file = path.join(copy, 'hl-mainnet-node-data', 'node_fills_by_block', 'hourly', '20250731', '23.lz4');
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, compressFrameSync(Buffer.from(`${JSON.stringify(line)}\n`)));
      const before = await counts();
      const res = await importArchive(copy);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain('import: 3 node-data files (3 days)');
      expect(await counts()).toEqual({
        ...before,
        'accounts.fills': before['accounts.fills']! + 2,
        'markets.trades': before['markets.trades']! + 1,
      });
      const again = await importArchive(copy);
      expect(again.code, again.stderr).toBe(0);
      expect(await counts()).toEqual({
        ...before,
        'accounts.fills': before['accounts.fills']! + 2,
        'markets.trades': before['markets.trades']! + 1,
      });
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
    }
  });

  it("leaves out an hour the node's own files loaded already, and loads the next", async () => {
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-archive-copy-'));
    const live = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-node-'));
    try {
      const trade = (blockNumber: number, t: number, tid: number) => {
        const side = (user: string, sideOf: 'A' | 'B', oid: number, crossed: boolean, fee: string) => [
          user,
          {
            coin: 'SOL',
            px: '170.25',
            sz: '10.0',
            side: sideOf,
            time: t,
            startPosition: '0.0',
            dir: sideOf === 'B' ? 'Open Long' : 'Open Short',
            closedPnl: '0.0',
            hash: `0x${tid.toString(16).padStart(64, '0')}`,
            oid,
            crossed,
            fee,
            tid,
            cloid: null,
            feeToken: 'USDC',
            twapId: null,
          },
        ];
        const iso = new Date(t).toISOString().slice(0, 23);
        return JSON.stringify({
          local_time: `${iso}500000`,
          block_time: `${iso}000000`,
          block_number: blockNumber,
          events: [
            side(A1, 'B', tid * 2, true, '0.7661250'),
            side(`0x${'b2'.padStart(40, '0')}`, 'A', tid * 2 + 1, false, '0.2553750'),
          ],
        });
      };
      const hour0 = trade(690900000, Date.UTC(2025, 7, 2, 0, 10), 700001);
      const hour1 = trade(690960000, Date.UTC(2025, 7, 2, 1, 10), 700002);
      // The node's own files, loaded by the lane following it, from 00:00 on 2025-08-02.
      const nodeFile = path.join(live, 'node_fills_by_block', 'hourly', '20250802', '0');
      await fs.mkdir(path.dirname(nodeFile), { recursive: true });
      await fs.writeFile(nodeFile, `${hour0}\n`);
      await new Ingest({ dataDir: live, pool: app.db.pool, log: () => {} }).run();
      const before = await counts();
      // The archive holds the same hour, and the next.
      const dir = path.join(copy, 'hl-mainnet-node-data', 'node_fills_by_block', 'hourly', '20250802');
      await fs.mkdir(dir, { recursive: true });
      await fs.writeFile(path.join(dir, '0.lz4'), compressFrameSync(Buffer.from(`${hour0}\n`)));
      await fs.writeFile(path.join(dir, '1.lz4'), compressFrameSync(Buffer.from(`${hour1}\n`)));
      const res = await importArchive(copy);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain(
        'import: left out node_fills_by_block/hourly/20250802/0.lz4: accounts.fills holds rows',
      );
      expect(res.stderr).toContain('1 left out');
      const after = {
        ...before,
        'accounts.fills': before['accounts.fills']! + 2,
        'markets.trades': before['markets.trades']! + 1,
      };
      expect(await counts()).toEqual(after);
      // Once its lane has loaded hour 1, hour 0 is behind it: a rerun neither loads nor checks it again.
      const again = await importArchive(copy);
      expect(again.code, again.stderr).toBe(0);
      expect(await counts()).toEqual(after);
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
      await fs.rm(live, { recursive: true, force: true });
    }
  });

  it("takes a bucket's folders directly as DIR", async () => {
    const res = await importArchive(path.join(ARCHIVE, 'hyperliquid-archive'));
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('import: 0 node-data files (0 days), 2 market-data files (1 days)');
    expect(res.stderr).toContain('2/2 files, 0 rows');
    expect(res.stderr).toContain('2 files loaded before');
  });

  it('stops at a file that is not a whole LZ4 frame, naming it', async () => {
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-archive-copy-'));
    try {
      await fs.cp(ARCHIVE, copy, { recursive: true });
      const whole = await fs.readFile(path.join(copy, 'hyperliquid-archive', 'asset_ctxs', '20240101.csv.lz4'));
      const cut = path.join(copy, 'hyperliquid-archive', 'asset_ctxs', '20240102.csv.lz4');
      await fs.writeFile(cut, whole.subarray(0, 40));
      const res = await importArchive(copy);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(`import failed: ${cut}: not a whole LZ4 frame`);
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
    }
  });

  it('refuses a directory holding neither bucket, naming what it looks for', async () => {
    const res = await importArchive(
      path.join(ROOT, 'test', 'fixtures', 'archive', 'hyperliquid-archive', 'asset_ctxs'),
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('holds neither hyperliquid-archive/ nor hl-mainnet-node-data/');
  });
});

describe('an import cut short', () => {
  it('is listed as a backfill loading in dataCoverage until a rerun completes it', async () => {
    const fresh = await startCompatApp({ data: 'empty', node: 'down' });
    try {
      const stop = new AbortController();
      stop.abort();
      const quiet = { log: () => {}, out: devNull };
      await runImport({ dir: ARCHIVE, pool: fresh.db.pool, signal: stop.signal, ...quiet });
      const loading = await fresh.info({ type: 'dataCoverage' });
      // Its history ends with the newest hour found: misc_events_by_block 2026-06-11 hour 1.
      expect(loading.body.result.backfills).toEqual([
        { lane: 'archive', until: Date.UTC(2026, 5, 11, 2), loadedThrough: {} },
      ]);
      const summary = await runImport({ dir: ARCHIVE, pool: fresh.db.pool, ...quiet });
      expect(summary).toMatchObject({
        files: 4,
        skipped: 0,
        nodeDays: ['20260315', '20260611'],
        marketDays: ['20240101'],
      });
      const done = await fresh.info({ type: 'dataCoverage' });
      expect(done.body.result.backfills).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

describe('--book-every', () => {
  it('keeps the first recorded book of each interval', async () => {
    const fresh = await startCompatApp({ data: 'empty', node: 'down' });
    try {
      const res = await runCli('ingest/archive/cli.ts', ['--archive', ARCHIVE, '--book-every', '10'], {
        DATABASE_URL: fresh.db.url,
      });
      expect(res.code, res.stderr).toBe(0);
      // 11:59:59.915 opens its 10 s; 12:00:00.367 opens the next, which 12:00:03.158 falls in too.
      const bbo = await fresh.get(`/market/bbo/BTC?start_time=${DAY}T00:00:00&end_time=${DAY}T23:59:59`);
      expect(bbo.body.data.map((r: { time: string }) => r.time)).toEqual([
        '2024-01-01T12:00:00.367',
        '2024-01-01T11:59:59.915',
      ]);
      const bad = await runCli('ingest/archive/cli.ts', ['--archive', ARCHIVE, '--book-every', '0.5']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--book-every must be a positive integer (seconds)');
    } finally {
      await fresh.close();
    }
  });
});

describe('npm run import beside a running service', () => {
  const dataDir = path.join(ROOT, '.data', `test-import-${process.pid}`);

  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(`${dataDir}.owner`, { force: true });
  });

  it('loads into the Postgres the service owns and leaves it running', async () => {
    // The embedded cluster held as `npm start` holds it (a service owner: a second owner is refused).
    // A free port (not one derived from the pid, which another server of the run may hold).
    const [port, guestPort] = [await freePort(), await freePort()];
    const holder = startCli('test/fixtures/hold-cluster.ts', [dataDir, String(port), 'service']);
    const exited = new Promise((r) => holder.once('exit', r));
    let said = '';
    holder.stderr?.on('data', (d) => {
      said += String(d);
    });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout?.on('data', (d) => String(d).includes('ready') && resolve());
        holder.on('exit', (code) => reject(new Error(`holder exited with ${code}: ${said.slice(-2000)}`)));
      });
      const res = await runCli('ingest/archive/cli.ts', ['--archive', ARCHIVE], {
        DATABASE_URL: '',
        PG_DATA_DIR: dataDir,
        PG_PORT: String(guestPort),
      });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stderr).toContain(`using the Postgres server of hold-cluster (pid ${holder.pid})`);
      expect(holder.exitCode).toBe(null);
      const guest = await startEmbedded({ dataDir, port: guestPort, mode: 'guest', log: () => {} });
      const client = new pg.Client(guest.url(EMBEDDED_DATABASE));
      await client.connect();
      try {
        const { rows } = await client.query('SELECT count(*)::int AS n FROM markets.history_bbo');
        expect(rows).toEqual([{ n: 3 }]);
      } finally {
        await client.end();
        await guest.stop();
      }
    } finally {
      holder.kill('SIGTERM');
      await exited;
    }
  }, 120_000);
});
