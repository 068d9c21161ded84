// Order statuses by UTC day: the history stored before becomes one partition, ingest's days are made before its rows
// arrive, and a closed day is thinned to the orders its retention class keeps, once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../domains.ts';
import { Batch } from '../ingest/batch.ts';
import { DEFAULT_RETENTION } from '../platform/config.ts';
import { dataCoverage } from '../platform/coverage.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { listMigrations, migrate } from './migrate.ts';
import {
  completeTimeBounds,
  DAY_MS,
  dayOf,
  keepPartitions,
  makePartitions,
  partitionName,
  periodOf,
} from './partitions.ts';
import { inTransaction } from './pool.ts';
import { type OrderStatusRow, orderStatusesTable } from './rows/accounts.ts';

// The partitions' code reads the clock it is given (`now`); the migrations read the database's (the history before
// partitioning ends with tomorrow). The days here are the database's day plus three: after that bound, whenever the
// template was migrated, and the same under a Node clock moved ahead.
const dbDay = async (db: TestDatabase) =>
  dayOf(
    Number((await db.pool.query<{ t: string }>('SELECT (extract(epoch FROM now()) * 1000)::bigint AS t')).rows[0]?.t),
  );
const retention = { ...DEFAULT_RETENTION };
const OS = 'accounts.order_statuses';
const ALICE = '0x00000000000000000000000000000000000a11ce';

function status(oid: number, status: string, time: number, sz = '1.0', extra: Partial<OrderStatusRow> = {}) {
  return {
    block_number: oid,
    time,
    address: ALICE,
    status,
    hash: null,
    builder: null,
    builder_fee: null,
    oid,
    cloid: null,
    coin: 'BTC',
    side: 'B',
    limit_px: '100000.0',
    sz,
    orig_sz: '1.0',
    order_time: time,
    trigger_condition: 'N/A',
    is_trigger: false,
    trigger_px: '0.0',
    is_position_tpsl: false,
    reduce_only: false,
    order_type: 'Limit',
    tif: 'Gtc',
    children: [],
    ...extra,
  } as OrderStatusRow;
}

async function write(db: TestDatabase, rows: OrderStatusRow[]): Promise<void> {
  const batch = new Batch();
  for (const r of rows) batch.add(orderStatusesTable, r);
  await makePartitions(db.pool, batch.periods);
  await inTransaction(db.pool, (client) => batch.write(client));
}

const whereRows = async (db: TestDatabase) =>
  (
    await db.pool.query<{ oid: string; status: string; part: string }>(
      `SELECT oid::text, status, tableoid::regclass::text AS part FROM accounts.order_statuses ORDER BY oid, time`,
    )
  ).rows;

const partitions = async (db: TestDatabase, table: string) =>
  (
    await db.pool.query<{ name: string }>(
      `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = $1::regclass ORDER BY 1`,
      [table],
    )
  ).rows.map((r) => r.name);

describe('order statuses by day', () => {
  let db: TestDatabase;
  let DAY: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    // The first day of the month after next: a month of its own, after the history before partitioning.
    const today = new Date(await dbDay(db));
    DAY = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 1);
  });
  afterAll(() => db?.drop());

  it('lands each batch in the days it holds, made before its transaction', async () => {
    await write(db, [status(1, 'open', DAY + 1000), status(2, 'open', DAY + DAY_MS + 5)]);
    expect(await whereRows(db)).toEqual([
      { oid: '1', status: 'open', part: partitionName(OS, DAY) },
      { oid: '2', status: 'open', part: partitionName(OS, DAY + DAY_MS) },
    ]);
    expect(partitionName(OS, Date.UTC(2026, 5, 1))).toBe('accounts.order_statuses_p20260601');
    await db.pool.query('TRUNCATE accounts.order_statuses');
  });

  it("thins a closed day to the orders that filled, in part, triggered or were liquidated, once; today's whole", async () => {
    const t = DAY + 3_600_000;
    await write(db, [
      status(10, 'open', t),
      status(10, 'filled', t + 1, '0.0'), // filled: kept, both rows
      status(11, 'open', t),
      status(11, 'canceled', t + 1), // canceled untouched: gone
      status(12, 'open', t),
      status(12, 'canceled', t + 1, '0.4'), // filled in part, then canceled: kept
      status(13, 'open', t, '1.0', { is_trigger: true, order_type: 'Stop Market' }),
      status(13, 'triggered', t + 1, '1.0', { is_trigger: true, order_type: 'Stop Market' }), // triggered: kept
      status(14, 'open', t),
      status(14, 'liquidatedCanceled', t + 1), // liquidated: kept
      status(15, 'rejected', t), // rejected: gone
      status(20, 'open', DAY + 2 * DAY_MS), // the day upkeep runs on: whole
      status(20, 'canceled', DAY + 2 * DAY_MS + 1),
    ]);
    const now = DAY + 2 * DAY_MS + 60_000;
    const { thinned, dropped } = await keepPartitions(db.pool, { now, retention });
    // The history before partitioning (nothing here) is a closed day too, in every partitioned table.
    expect(thinned.filter((x) => x.rowsBefore > 0)).toEqual([
      { partition: partitionName(OS, DAY), rowsBefore: 11, rowsKept: 8 },
    ]);
    expect(thinned.filter((x) => x.rowsBefore === 0).map((x) => x.partition)).toContain(`${OS}_before`);
    expect(dropped).toEqual([]);
    const kept = [
      '10 open',
      '10 filled',
      '12 open',
      '12 canceled',
      '13 open',
      '13 triggered',
      '14 open',
      '14 liquidatedCanceled',
      '20 open',
      '20 canceled',
    ];
    expect((await whereRows(db)).map((r) => `${r.oid} ${r.status}`)).toEqual(kept);
    // Once: the next round finds it thinned; the coming days are made ahead.
    expect(await keepPartitions(db.pool, { now, retention })).toEqual({
      thinned: [],
      frozen: [],
      merged: [],
      dropped: [],
    });
    expect(await partitions(db, OS)).toEqual(
      expect.arrayContaining([2, 3, 4].map((d) => partitionName(OS, DAY + d * DAY_MS))),
    );
    // The thinned day has the parent's indexes (made with its table, taken as the day's when attached).
    const day = partitionName(OS, DAY).split('.')[1];
    const indexes = await db.pool.query<{ indexdef: string }>(
      'SELECT indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY 1',
      [day],
    );
    expect(indexes.rows.map((r) => r.indexdef.replace(/^.* USING btree /, '')).sort()).toEqual([
      '(address, "time")',
      '(address, cloid) WHERE (cloid IS NOT NULL)',
      '(address, oid, "time" DESC)',
    ]);
    // Once the month is closed a day ago, its days, thinned, become one partition: rows as they were.
    const month = `${OS}_m${new Date(DAY).toISOString().slice(0, 7).replace('-', '')}`;
    const monthEnd = Date.UTC(new Date(DAY).getUTCFullYear(), new Date(DAY).getUTCMonth() + 1, 1);
    const after = await keepPartitions(db.pool, { now: monthEnd + DAY_MS + 1, retention });
    expect(after.merged.filter((name) => name.startsWith(OS))).toEqual([month]);
    expect((await whereRows(db)).map((r) => `${r.oid} ${r.status}`)).toEqual(kept.slice(0, 8));
    expect(new Set((await whereRows(db)).map((r) => r.part))).toEqual(new Set([month]));
    const parts = await partitions(db, OS);
    expect(parts).toContain(month);
    expect(parts.filter((name) => name.startsWith(`${OS}_p`) && name < partitionName(OS, monthEnd))).toEqual([]);
  });
});

describe('time bounds kept as rows are written (migration 0060)', () => {
  let db: TestDatabase;
  let DAY: number;
  const bounds = async () =>
    (
      await db.pool.query<{ earliest: number | null; latest: number | null; complete: boolean }>(
        `SELECT earliest, latest, complete FROM platform.time_bounds WHERE tbl = '${OS}'`,
      )
    ).rows[0];
  const orders = async () => (await dataCoverage(db.pool, DAY + 3 * DAY_MS, DATASETS)).datasets.orders;
  beforeAll(async () => {
    db = await createTestDatabase();
    const today = new Date(await dbDay(db));
    DAY = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 1);
  });
  afterAll(() => db?.drop());

  it('widen with each batch that reaches past them, narrow once a thinned day or a DELETE is read again', async () => {
    expect(await bounds()).toEqual({ earliest: null, latest: null, complete: true });
    const t = DAY + 3_600_000;
    await write(db, [status(1, 'open', t), status(1, 'canceled', t + 5)]);
    await write(db, [status(2, 'open', t + 10), status(2, 'filled', t + 11, '0.0')]);
    await write(db, [status(3, 'open', t + 7)]); // inside: nothing to widen
    expect(await bounds()).toEqual({ earliest: t, latest: t + 11, complete: true });
    // dataCoverage answers from the kept row, not from a scan of the table: set aside, it reads the table again.
    expect(await orders()).toMatchObject({ earliest: t, latest: t + 11 });
    await db.pool.query(`UPDATE platform.time_bounds SET latest = $1 WHERE tbl = '${OS}'`, [t + 99]);
    expect(await orders()).toMatchObject({ earliest: t, latest: t + 99 });
    await db.pool.query('SELECT platform.forget_time_bounds($1)', [OS]);
    expect(await orders()).toMatchObject({ earliest: t, latest: t + 11 });
    await completeTimeBounds(db.pool);
    expect(await bounds()).toEqual({ earliest: t, latest: t + 11, complete: true });

    // The day closed, thinned: order 1 (canceled untouched) and 3 (still open) go; the bounds, forgotten with the swap,
    // are read again by the same upkeep.
    const { thinned } = await keepPartitions(db.pool, { now: DAY + 2 * DAY_MS + 60_000, retention });
    expect(thinned.filter((x) => x.rowsBefore > 0).map((x) => x.rowsKept)).toEqual([2]);
    expect(await bounds()).toEqual({ earliest: t + 10, latest: t + 11, complete: true });
    expect(await orders()).toMatchObject({ earliest: t + 10, latest: t + 11 });

    await db.pool.query('DELETE FROM accounts.order_statuses WHERE time = $1', [t + 11]);
    expect(await bounds()).toEqual({ earliest: null, latest: null, complete: false });
    expect(await orders()).toMatchObject({ earliest: t + 10, latest: t + 10 });
    await completeTimeBounds(db.pool);
    expect(await bounds()).toEqual({ earliest: t + 10, latest: t + 10, complete: true });
    // Kept from a migration over rows already held: unknown until the upkeep reads them.
    await db.pool.query(`SELECT platform.keep_time_bounds($1, 'time')`, [OS]);
    expect(await bounds()).toEqual({ earliest: null, latest: null, complete: false });
    await keepPartitions(db.pool, { now: DAY + 2 * DAY_MS + 60_000, retention });
    expect(await bounds()).toEqual({ earliest: t + 10, latest: t + 10, complete: true });
    await db.pool.query(`TRUNCATE ${OS}`);
    expect(await bounds()).toEqual({ earliest: null, latest: null, complete: true });
  });

  it('candles: a rewritten candle widens nothing, a new one does', async () => {
    const candle = (t: number) =>
      db.pool.query(
        `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n) VALUES ('BTC', '1m', $1, $2, 1, 1, 1, 1, 1, 1)
         ON CONFLICT (coin, interval, t) DO UPDATE SET n = markets.candles.n + 1`,
        [t, t + 59_999],
      );
    await candle(DAY);
    await candle(DAY + 60_000);
    await candle(DAY);
    const { rows } = await db.pool.query(
      `SELECT earliest, latest, complete FROM platform.time_bounds WHERE tbl = 'markets.candles'`,
    );
    expect(rows).toEqual([{ earliest: DAY, latest: DAY + 60_000, complete: true }]);
  });
});

describe('book samples by day', () => {
  let db: TestDatabase;
  let DAY: number;
  const BOOK = 'markets.history_book';
  beforeAll(async () => {
    db = await createTestDatabase();
    DAY = (await dbDay(db)) + 3 * DAY_MS;
  });
  afterAll(() => db?.drop());

  it('keep the first sample of each coin and minute once the day is closed, and go after the days kept', async () => {
    await makePartitions(db.pool, new Map([[BOOK, { min: DAY, max: DAY + DAY_MS }]]));
    await makePartitions(db.pool, new Map([['markets.history_bbo', { min: DAY, max: DAY + DAY_MS }]]));
    await db.pool.query(`INSERT INTO markets.history_bbo (coin, time) VALUES ('BTC', $1)`, [DAY]);
    await db.pool.query(`INSERT INTO markets.history_coins (coin) VALUES ('BTC')`);
    // Every 10 s for 80 s, BTC and ETH: minutes 0 and 1 of the day.
    await db.pool.query(
      `INSERT INTO markets.history_book (coin, time, levels)
       SELECT c, $1::bigint + s * 10000, '[[],[]]' FROM unnest(ARRAY['BTC', 'ETH']) c, generate_series(0, 7) s`,
      [DAY],
    );
    const read = async () =>
      (
        await db.pool.query<{ coin: string; at: number }>(
          'SELECT coin, (time - $1)::int AS at FROM markets.history_book ORDER BY coin, time',
          [DAY],
        )
      ).rows.map((r) => `${r.coin} ${r.at}`);
    await keepPartitions(db.pool, { now: DAY + DAY_MS + 1, retention }); // the day closed, not a day ago
    expect(await read()).toHaveLength(16);
    const { thinned } = await keepPartitions(db.pool, { now: DAY + 2 * DAY_MS + 1, retention });
    expect(thinned.filter((x) => x.rowsBefore > 0)).toEqual([
      { partition: partitionName('markets.history_bbo', DAY), rowsBefore: 1, rowsKept: 1 },
      { partition: partitionName(BOOK, DAY), rowsBefore: 16, rowsKept: 4 },
    ]);
    expect(await read()).toEqual(['BTC 0', 'BTC 60000', 'ETH 0', 'ETH 60000']);
    // Kept `samplesKeepDays` days after it closed, then dropped whole; the order statuses' days are never dropped.
    const later = { now: DAY + (retention.samplesKeepDays + 1) * DAY_MS + 1, retention };
    const { dropped } = await keepPartitions(db.pool, later);
    expect(dropped).toContain(partitionName(BOOK, DAY));
    expect(dropped.filter((name) => name.startsWith(OS))).toEqual([]);
    expect(await read()).toEqual([]);
    expect(await partitions(db, BOOK)).not.toContain(partitionName(BOOK, DAY));
    // The archive's list of coins loses BTC with its last BBO sample.
    expect((await db.pool.query('SELECT coin FROM markets.history_coins')).rows).toEqual([]);
  });
});

describe('fills by week', () => {
  let db: TestDatabase;
  let before: number;
  beforeAll(async () => {
    db = await createTestDatabase();
    // Where the history before partitioning ends: the end of the day after the template was migrated.
    const { rows } = await db.pool.query<{ bound: string }>(
      `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = 'accounts.fills_before'::regclass`,
    );
    before = Number(/TO \('(\d+)'\)/.exec(rows[0]?.bound ?? '')?.[1]);
  });
  afterAll(() => db?.drop());

  const fill = (time: number, tid: number) =>
    db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl, hash,
         oid, crossed, fee, tid, fee_token) VALUES ($3, $1, 'BTC', 1, 1, 'B', $2, 0, 'Open Long', 0, '0x', $3, true, 0, $3,
         'USDC')`,
      [ALICE, time, tid],
    );

  it('makes the week a batch holds from Monday, and the one the history before ends in from where it ends', async () => {
    const FILLS = 'accounts.fills';
    const week = periodOf(FILLS, before + 14 * DAY_MS);
    expect(new Date(week.start).getUTCDay()).toBe(1); // a Monday
    expect(week.end - week.start).toBe(7 * DAY_MS);
    await makePartitions(db.pool, new Map([[FILLS, { min: before - DAY_MS, max: week.start + 1 }]]));
    await fill(week.start + 5, 1);
    await fill(before + 5, 2);
    await fill(before - 5, 3);
    const { rows } = await db.pool.query<{ tid: string; part: string; bound: string }>(
      `SELECT tid::text, f.tableoid::regclass::text AS part, pg_get_expr(c.relpartbound, c.oid) AS bound
         FROM accounts.fills f JOIN pg_class c ON c.oid = f.tableoid ORDER BY tid`,
    );
    const first = periodOf(FILLS, before);
    expect(rows).toEqual([
      {
        tid: '1',
        part: partitionName(FILLS, week.start),
        bound: `FOR VALUES FROM ('${week.start}') TO ('${week.end}')`,
      },
      { tid: '2', part: partitionName(FILLS, first.start), bound: `FOR VALUES FROM ('${before}') TO ('${first.end}')` },
      { tid: '3', part: `${FILLS}_before`, bound: `FOR VALUES FROM (MINVALUE) TO ('${before}')` },
    ]);
    expect(partitionName(FILLS, Date.UTC(2026, 10, 30))).toBe('accounts.fills_w20261130');
  });

  it('waits briefly for a reader of the table, and makes the week once it has gone', async () => {
    const FILLS = 'accounts.fills';
    const week = periodOf(FILLS, before + 35 * DAY_MS);
    const reader = await db.pool.connect();
    try {
      await reader.query('BEGIN');
      await reader.query('SELECT 1 FROM accounts.fills LIMIT 1'); // a long transaction reading fills
      await makePartitions(db.pool, new Map([[FILLS, { min: week.start, max: week.start }]]));
      expect(await partitions(db, FILLS)).not.toContain(partitionName(FILLS, week.start));
      await reader.query('COMMIT');
    } finally {
      reader.release();
    }
    await makePartitions(db.pool, new Map([[FILLS, { min: week.start, max: week.start }]]));
    expect(await partitions(db, FILLS)).toContain(partitionName(FILLS, week.start));
  });

  it('freezes a week closed a day ago once: its indexes rebuilt, every row kept', async () => {
    const FILLS = 'accounts.fills';
    const week = periodOf(FILLS, before + 14 * DAY_MS);
    const now = week.end + DAY_MS + 1;
    const { frozen } = await keepPartitions(db.pool, { now, retention });
    expect(frozen).toEqual(expect.arrayContaining([partitionName(FILLS, week.start)]));
    expect(frozen).not.toContain(`${FILLS}_before`);
    expect((await db.pool.query('SELECT tid FROM accounts.fills ORDER BY tid')).rows.map((r) => Number(r.tid))).toEqual(
      [1, 2, 3],
    );
    const indexes = await db.pool.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_index WHERE indrelid = $1::regclass AND indisvalid`,
      [partitionName(FILLS, week.start)],
    );
    expect(indexes.rows[0]?.n).toBe('5');
    expect((await keepPartitions(db.pool, { now, retention })).frozen).toEqual([]);
  });
});

describe('partitioning the rows stored before', () => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase('template0');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps them as one partition up to the end of tomorrow, its indexes the parent’s, nothing rewritten', async () => {
    for (const m of await listMigrations()) {
      if (m.version >= '0035') continue;
      await fs.mkdir(path.join(dir, path.dirname(m.name)), { recursive: true });
      await fs.writeFile(path.join(dir, m.name), m.sql);
    }
    await migrate(db.pool, dir);
    const today = await dbDay(db);
    const batch = new Batch();
    batch.add(orderStatusesTable, status(1, 'open', today - DAY_MS + 5));
    batch.add(orderStatusesTable, status(1, 'filled', today + 7, '0.0'));
    await inTransaction(db.pool, (client) => batch.write(client));
    await db.pool.query(`INSERT INTO markets.history_bbo (coin, time) VALUES ('BTC', $1)`, [today + 9]);
    const filenode = async (table: string) =>
      (await db.pool.query<{ n: string }>('SELECT pg_relation_filenode($1)::text AS n', [table])).rows[0]?.n;
    await db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl, hash,
         oid, crossed, fee, tid, fee_token) VALUES (1, $1, 'BTC', 1, 1, 'B', $2, 0, 'Open Long', 0, '0x', 1, true, 0, 1, 'USDC')`,
      [ALICE, today + 11],
    );
    const before = await filenode(OS);
    const fillsBefore = await filenode('accounts.fills');
    expect(await migrate(db.pool)).toEqual(
      expect.arrayContaining([
        'accounts/0035_order_status_partitions.sql',
        'markets/0036_sample_partitions.sql',
        'markets/0037_history_coins.sql',
        'accounts/0051_fill_partitions.sql',
      ]),
    );
    // The archive's list of coins starts as the coins of the samples stored.
    expect((await db.pool.query('SELECT coin FROM markets.history_coins')).rows).toEqual([{ coin: 'BTC' }]);
    expect(await filenode(`${OS}_before`)).toBe(before);
    expect(await filenode('accounts.fills_before')).toBe(fillsBefore);
    const fills = await db.pool.query('SELECT tableoid::regclass::text AS part FROM accounts.fills');
    expect(fills.rows).toEqual([{ part: 'accounts.fills_before' }]);
    const bound = await db.pool.query<{ bound: string }>(
      `SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = '${OS}_before'::regclass`,
    );
    expect(bound.rows[0]?.bound).toBe(`FOR VALUES FROM (MINVALUE) TO ('${today + 2 * DAY_MS}')`);
    expect((await whereRows(db)).map((r) => r.part)).toEqual([`${OS}_before`, `${OS}_before`]);
    const { rows } = await db.pool.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'order_statuses_before' ORDER BY 1`,
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      'order_statuses_before_address_oid',
      'order_statuses_before_address_time',
      'order_statuses_before_cloid',
    ]);
    // The spread view reads the partitioned BBO; a new day after the bound is its own partition.
    const spread = await db.pool.query('SELECT coin FROM markets.history_spread');
    expect(spread.rows).toEqual([{ coin: 'BTC' }]);
    await write(db, [status(2, 'open', today + 3 * DAY_MS)]);
    expect((await whereRows(db)).map((r) => r.part)).toContain(partitionName(OS, today + 3 * DAY_MS));
  });
});
