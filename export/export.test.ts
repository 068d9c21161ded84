// `npm run export`'s work (exportDay): each dataset's day, read back by an independent reader (hyparquet), equals the
// store row for row, read here with the test's own SQL; the day's bounds; the manifest's entry (rows, sha256 of the
// bytes, positions worked out by hand from the rows inserted), merged on a re-run; a day with no rows; a decimal
// that would lose digits stops the export and changes nothing.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { plainDecimal, readParquet } from '../test/parquet.ts';
import { exportDay } from './index.ts';
import { readManifest } from './manifest.ts';

const DAY = '2026-06-01';
const START = Date.UTC(2026, 5, 1);
const END = START + 86_400_000;
const A = `0x${'a1'.repeat(20)}`;
const B = `0x${'b2'.repeat(20)}`;
/** Generated fills on the day, beside the hand-made ones. */
const GENERATED = 3000;

let db: TestDatabase;
let dir: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-export-test-'));
  const q = (sql: string, values: unknown[] = []) => db.pool.query(sql, values);
  const fill = `INSERT INTO accounts.fills (time, block_number, event_index, tid, address, coin, px, sz, side,
      start_position, dir, closed_pnl, hash, oid, crossed, fee, fee_token, cloid, twap_id, builder, builder_fee,
      deployer_fee, priority_gas, liquidated_user, liquidation_mark_px, liquidation_method)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23,
      $24, $25, $26)`;
  const plain = (time: number, block: number, index: number, tid: number, address: string) => [
    time,
    block,
    index,
    tid,
    address,
    'BTC',
    '65000.5',
    '0.0012',
    'B',
    '0.0',
    'Open Long',
    '0.0',
    `0x${'c'.repeat(64)}`,
    7,
    true,
    '0.0273',
    'USDC',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ];
  // The day's first millisecond, twice in one block: execution order (event_index) decides.
  await q(fill, plain(START, 100, 1, 6, B));
  await q(fill, plain(START, 100, 0, 5, A));
  // The widest and finest values a DECIMAL(38,18) holds, an integer, a negative, an empty text, every optional field.
  await q(fill, [
    START + 1000,
    101,
    0,
    9_007_199_254_740_993n,
    A,
    'xyz:TSLA',
    '0.000000000000000001',
    '12345678901.123456789',
    'A',
    '-99999999999999999999.999999999999999999',
    '',
    '-12345678901.12345678',
    `0x${'d'.repeat(64)}`,
    2 ** 53 + 1,
    false,
    '7',
    'HYPE',
    '0x0000000000000000000000000000abcd',
    42,
    B,
    '0.001',
    '0.5',
    '0.000001',
    B,
    '64999',
    'market',
  ]);
  // The day's last millisecond, and one either side of the day.
  await q(fill, plain(END - 1, 200, 3, 11, A));
  await q(fill, plain(START - 1, 99, 0, 1, A));
  await q(fill, plain(END, 201, 0, 12, A));
  await q(
    `INSERT INTO accounts.fills (time, block_number, event_index, tid, address, coin, px, sz, side, start_position,
       dir, closed_pnl, hash, oid, crossed, fee, fee_token)
     SELECT $1::bigint + g * 20000, 300 + g, g % 4, 1000 + g, '0x' || lpad(to_hex(g % 50), 40, '0'), 'COIN' || (g % 7),
       round((g * 1.37)::numeric, 3), round((g * 0.0001)::numeric, 4), CASE WHEN g % 2 = 0 THEN 'A' ELSE 'B' END,
       round((g - 1500) * 0.5, 1), 'Close Short', round((g % 13 - 6) * 0.123456, 6), '0x' || md5(g::text), g,
       g % 3 = 0, round(g * 0.000021, 8), 'USDC'
     FROM generate_series(1, ${GENERATED}) g`,
    [START + 2000],
  );

  const trade = `INSERT INTO markets.trades (time, block_number, seq, coin, side, px, sz, hash, tid, buyer, seller, fees)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
  await q(trade, [START + 5, 100, 1, 'ETH', 'A', '3000.1', '2', `0x${'e'.repeat(64)}`, 20, A, B, '0.21']);
  await q(trade, [START + 5, 100, 0, 'BTC', 'B', '65000', '0.5', `0x${'e'.repeat(64)}`, 21, null, B, '-0.0001']);
  await q(trade, [END, 300, 0, 'BTC', 'B', '1', '1', `0x${'e'.repeat(64)}`, 22, A, B, '0']);

  const candle = `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n, closed, reconciled)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
  await q(candle, ['BTC', '1m', START, START + 59_999, '65000', '65010.5', '64990', '65001', '12.345', 40, true, true]);
  await q(candle, [
    'BTC',
    '1h',
    START,
    START + 3_599_999,
    '65000',
    '65100',
    '64900',
    '65050',
    '523.1',
    900,
    true,
    false,
  ]);
  await q(candle, ['ETH', '1m', END - 60_000, END - 1, '3000', '3001', '2999', '3000.5', '0', 0, false, false]);
  await q(candle, ['ETH', '1m', END, END + 59_999, '1', '1', '1', '1', '1', 1, false, false]);

  const payment = `INSERT INTO accounts.funding_payments (time, block_number, address, coin, usdc, szi, funding_rate)
    VALUES ($1, $2, $3, $4, $5, $6, $7)`;
  await q(payment, [START + 3_600_000, 500, B, 'BTC', '-1.234567', '0.5', '0.00001250000']);
  await q(payment, [START + 3_600_000, 500, A, 'BTC', '2.5', '-1', '0.0000125']);
  await q(payment, [START - 3_600_000, 400, A, 'BTC', '1', '1', '0.0000125']);

  const ledger = `INSERT INTO accounts.ledger_updates (time, block_number, hash, address, delta_type, delta)
    VALUES ($1, $2, $3, $4, $5, $6)`;
  const withdraw = { type: 'withdraw', usdc: '2974.41', fee: '1.0', nonce: 1796188379013 };
  await q(ledger, [START + 10, 600, `0x${'f'.repeat(64)}`, A, 'withdraw', JSON.stringify(withdraw)]);
  await q(ledger, [
    START + 10,
    600,
    `0x${'f'.repeat(64)}`,
    A,
    'send',
    JSON.stringify({ type: 'send', usdc: '1', to: B }),
  ]);
  await q(ledger, [END + 10, 601, `0x${'f'.repeat(64)}`, A, 'send', JSON.stringify({ type: 'send', usdc: '2' })]);

  const book = 'INSERT INTO markets.history_book (coin, time, levels) VALUES ($1, $2, $3)';
  const levels = [
    [
      { px: '65000.5', sz: '1.2', n: 3 },
      { px: '64999', sz: '0.00000001', n: 1 },
    ],
    [{ px: '65001', sz: '12345678901.5', n: 2 }],
  ];
  await q(book, ['BTC', START + 10_000, JSON.stringify(levels)]);
  await q(book, ['ETH', START + 10_000, JSON.stringify([[{ px: '3000', sz: '1', n: 1 }], []])]);
  await q(book, ['BTC', END, JSON.stringify(levels)]);
}, 120_000);

afterAll(async () => {
  await db?.drop();
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const exportOf = (dataset: string, day = DAY) => exportDay({ databaseUrl: db.url, dataset, day, dir });

/**
 * The store's rows of the day, read with this test's own SQL: numerics as plain decimal text, times as epoch ms, in
 * the order the file states (time, then the tie-breaks docs/export.md names).
 */
async function storeRows(sql: string, decimals: string[]): Promise<Record<string, unknown>[]> {
  const { rows } = await db.pool.query(sql, [START, END]);
  return rows.map((row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && decimals.includes(k) ? plainDecimal(v) : v]),
    ),
  );
}

const FILL_DECIMALS = [
  'px',
  'sz',
  'start_position',
  'closed_pnl',
  'fee',
  'builder_fee',
  'deployer_fee',
  'priority_gas',
  'liquidation_mark_px',
];

describe('npm run export: a day read back by an independent reader equals the store', () => {
  it('fills: every row and column, in execution order, with the positions of the first and last', async () => {
    const entry = await exportOf('fills');
    const file = path.join(dir, 'fills', `${DAY}.parquet`);
    const { rows, columns } = await readParquet(file);
    const store = await storeRows(
      `SELECT time::int8::float8 AS time, block_number::text, event_index, tid::text, address, coin, px::text,
         sz::text, side, start_position::text, dir, closed_pnl::text, hash, oid::text, crossed, fee::text, fee_token,
         cloid, twap_id::text, builder, builder_fee::text, deployer_fee::text, priority_gas::text, liquidated_user,
         liquidation_mark_px::text, liquidation_method
       FROM accounts.fills WHERE time >= $1 AND time < $2 ORDER BY time, block_number, event_index, tid, address`,
      FILL_DECIMALS,
    );
    expect(store).toHaveLength(4 + GENERATED);
    expect(rows).toEqual(store);
    // Typed columns: a decimal, a UTC timestamp, a boolean, an integer.
    const byName = Object.fromEntries(columns.map((c) => [c.name, c]));
    expect(byName.px?.logical).toEqual({ type: 'DECIMAL', scale: 18, precision: 38 });
    expect(byName.time?.logical).toMatchObject({ type: 'TIMESTAMP', isAdjustedToUTC: true });
    expect(byName.crossed?.type).toBe('BOOLEAN');
    expect(byName.tid?.type).toBe('INT64');
    expect(byName.address?.converted).toBe('UTF8');

    const bytes = await fs.readFile(file);
    expect(entry).toMatchObject({
      dataset: 'fills',
      day: DAY,
      path: `fills/${DAY}.parquet`,
      rows: 4 + GENERATED,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      schemaVersion: 1,
      positions: {
        key: ['time', 'block_number', 'event_index', 'tid', 'address'],
        first: `${START}:100:0:5:${A}`,
        last: `${END - 1}:200:3:11:${A}`,
      },
    });
    expect((await readManifest(dir)).files.find((f) => f.dataset === 'fills')).toEqual(entry);
  });

  it('trades, candles, funding, ledger and books', async () => {
    const cases = [
      {
        dataset: 'trades',
        sql: `SELECT time::float8 AS time, block_number::text, seq, coin, side, px::text, sz::text, hash, tid::text,
                buyer, seller, fees::text
              FROM markets.trades WHERE time >= $1 AND time < $2 ORDER BY time, block_number, seq, tid`,
        decimals: ['px', 'sz', 'fees'],
        rows: 2,
        first: `${START + 5}:100:0:21`,
        last: `${START + 5}:100:1:20`,
      },
      {
        dataset: 'candles',
        sql: `SELECT t::float8 AS t, coin, interval, close_time::float8 AS close_time, o::text, h::text, l::text,
                c::text, v::text, n, closed, reconciled
              FROM markets.candles WHERE t >= $1 AND t < $2 ORDER BY t, coin, interval`,
        decimals: ['o', 'h', 'l', 'c', 'v'],
        rows: 3,
        first: `${START}:BTC:1h`,
        last: `${END - 60_000}:ETH:1m`,
      },
      {
        dataset: 'funding',
        sql: `SELECT time::float8 AS time, block_number::text, address, coin, usdc::text, szi::text, funding_rate::text
              FROM accounts.funding_payments WHERE time >= $1 AND time < $2 ORDER BY time, block_number, address, coin`,
        decimals: ['usdc', 'szi', 'funding_rate'],
        rows: 2,
        first: `${START + 3_600_000}:500:${A}:BTC`,
        last: `${START + 3_600_000}:500:${B}:BTC`,
      },
      {
        dataset: 'ledger',
        sql: `SELECT time::float8 AS time, block_number::text, hash, address, delta_type, delta
              FROM accounts.ledger_updates WHERE time >= $1 AND time < $2
              ORDER BY time, block_number, hash, address, delta::text`,
        decimals: [],
        rows: 2,
        first: `${START + 10}:600:0x${'f'.repeat(64)}:${A}`,
        last: `${START + 10}:600:0x${'f'.repeat(64)}:${A}`,
      },
    ];
    for (const c of cases) {
      const entry = await exportOf(c.dataset);
      const { rows } = await readParquet(path.join(dir, c.dataset, `${DAY}.parquet`));
      expect(rows, c.dataset).toEqual(await storeRows(c.sql, c.decimals));
      expect(entry.rows, c.dataset).toBe(c.rows);
      expect(entry.positions.first, c.dataset).toBe(c.first);
      expect(entry.positions.last, c.dataset).toBe(c.last);
    }

    // Books: each side a list of {px, sz, n}, decimals exact.
    const entry = await exportOf('books');
    const { rows } = await readParquet(path.join(dir, 'books', `${DAY}.parquet`));
    const store = await db.pool.query(
      `SELECT time::float8 AS time, coin, levels FROM markets.history_book WHERE time >= $1 AND time < $2
       ORDER BY time, coin`,
      [START, END],
    );
    const side = (levels: { px: string; sz: string; n: number }[]) =>
      levels.map((l) => ({ px: plainDecimal(l.px), sz: plainDecimal(l.sz), n: l.n }));
    expect(rows).toEqual(
      store.rows.map((r) => ({ time: r.time, coin: r.coin, bids: side(r.levels[0]), asks: side(r.levels[1]) })),
    );
    expect(entry.positions).toEqual({
      key: ['time', 'coin'],
      first: `${START + 10_000}:BTC`,
      last: `${START + 10_000}:ETH`,
    });
  });

  it('a day with no rows is a file of 0 rows with its columns; its positions are null', async () => {
    const entry = await exportOf('trades', '2026-06-05');
    expect(entry).toMatchObject({ rows: 0, positions: { first: null, last: null } });
    const { rows, columns } = await readParquet(path.join(dir, 'trades', '2026-06-05.parquet'));
    expect(rows).toEqual([]);
    expect(columns.map((c) => c.name)).toEqual([
      'time',
      'block_number',
      'seq',
      'coin',
      'side',
      'px',
      'sz',
      'hash',
      'tid',
      'buyer',
      'seller',
      'fees',
    ]);
  });

  it("a re-run rewrites the day's file and entry, and keeps every other entry", async () => {
    const before = await readManifest(dir);
    await db.pool.query(
      `INSERT INTO markets.trades (time, block_number, seq, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES ($1, 150, 0, 'SOL', 'A', '150.25', '3', 'h', 30, NULL, NULL, '0')`,
      [START + 7_000],
    );
    const entry = await exportOf('trades');
    expect(entry.rows).toBe(3);
    expect(entry.positions.last).toBe(`${START + 7_000}:150:0:30`);
    const after = await readManifest(dir);
    expect(after.files.map((f) => `${f.dataset}/${f.day}`)).toEqual(before.files.map((f) => `${f.dataset}/${f.day}`));
    expect(after.files.filter((f) => f.dataset !== 'trades' || f.day !== DAY)).toEqual(
      before.files.filter((f) => f.dataset !== 'trades' || f.day !== DAY),
    );
    const { rows } = await readParquet(path.join(dir, 'trades', `${DAY}.parquet`));
    expect(rows).toHaveLength(3);
  });

  it('a decimal of more than 18 decimals stops the export: no file, the manifest unchanged', async () => {
    const day = '2026-06-03';
    const at = Date.UTC(2026, 5, 3);
    await db.pool.query(
      `INSERT INTO markets.trades (time, block_number, seq, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES ($1, 1, 0, 'BTC', 'A', '0.1234567890123456789', '1', 'h', 1, NULL, NULL, '0')`,
      [at],
    );
    const before = await readManifest(dir);
    await expect(exportOf('trades', day)).rejects.toThrow(/more than 18 decimals: 0\.1234567890123456789/);
    await expect(fs.stat(path.join(dir, 'trades', `${day}.parquet`))).rejects.toThrow(/ENOENT/);
    expect(await readManifest(dir)).toEqual(before);
    expect((await fs.readdir(path.join(dir, 'trades'))).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses a dataset or day outside the rules, naming it', async () => {
    await expect(exportOf('orders')).rejects.toThrow(
      'dataset: must be one of fills, trades, candles, funding, ledger, books, got "orders"',
    );
    for (const day of ['2026-02-30', '2026-6-01', '1999-12-31', '20260601']) {
      await expect(exportOf('fills', day)).rejects.toThrow(
        `day: must be a UTC day YYYY-MM-DD from 2000-01-01, got "${day}"`,
      );
    }
  });
});
