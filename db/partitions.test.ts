// Order statuses by UTC day: the history stored before becomes one partition, ingest's days are made before its rows
// arrive, and a closed day is thinned to the orders its retention class keeps, once.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Batch } from '../ingest/batch.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { listMigrations, migrate } from './migrate.ts';
import { DAY_MS, keepPartitions, makeDays, partitionName } from './partitions.ts';
import { inTransaction } from './pool.ts';
import { type OrderStatusRow, orderStatusesTable } from './rows/accounts.ts';

// A fixed day (the clock this code reads is `now`, given): 2026-06-01 UTC.
const DAY = Date.UTC(2026, 5, 1);
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
  await makeDays(db.pool, batch.days);
  await inTransaction(db.pool, (client) => batch.write(client));
}

const whereRows = async (db: TestDatabase) =>
  (
    await db.pool.query<{ oid: string; status: string; part: string }>(
      `SELECT oid::text, status, tableoid::regclass::text AS part FROM accounts.order_statuses ORDER BY oid, time`,
    )
  ).rows;

describe('order statuses by day', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db?.drop());

  it('lands each batch in the days it holds, made before its transaction', async () => {
    await write(db, [status(1, 'open', DAY + 1000), status(2, 'open', DAY + DAY_MS + 5)]);
    expect(await whereRows(db)).toEqual([
      { oid: '1', status: 'open', part: 'accounts.order_statuses_p20260601' },
      { oid: '2', status: 'open', part: 'accounts.order_statuses_p20260602' },
    ]);
    expect(partitionName('accounts.order_statuses', DAY)).toBe('accounts.order_statuses_p20260601');
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
    const thinned = await keepPartitions(db.pool, { now, fullDays: 1 });
    expect(thinned).toEqual([
      // What the table held before it was partitioned (nothing here) is a closed day too.
      { partition: 'accounts.order_statuses_before', rowsBefore: 0, rowsKept: 0 },
      { partition: 'accounts.order_statuses_p20260601', rowsBefore: 11, rowsKept: 8 },
    ]);
    expect((await whereRows(db)).map((r) => `${r.oid} ${r.status}`)).toEqual([
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
    ]);
    // Once: the next round finds it thinned; the coming days are made ahead.
    expect(await keepPartitions(db.pool, { now, fullDays: 1 })).toEqual([]);
    const { rows } = await db.pool.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'accounts.order_statuses'::regclass ORDER BY 1`,
    );
    expect(rows.map((r) => r.name)).toEqual([
      'order_statuses_before',
      'order_statuses_default',
      'order_statuses_p20260601',
      'order_statuses_p20260602',
      'order_statuses_p20260603',
      'order_statuses_p20260604',
      'order_statuses_p20260605',
    ]);
    // The thinned day has the parent's indexes (built as it was attached).
    const indexes = await db.pool.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'order_statuses_p20260601' ORDER BY 1`,
    );
    expect(indexes.rows.map((r) => r.indexdef.replace(/^.* USING btree /, '')).sort()).toEqual([
      '(address, "time")',
      '(address, cloid) WHERE (cloid IS NOT NULL)',
      '(address, oid, "time" DESC)',
    ]);
  });
});

describe('partitioning the order statuses stored before', () => {
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

  it('keeps them as one partition up to the end of their last day, its indexes the parent’s, nothing rewritten', async () => {
    for (const m of await listMigrations()) {
      if (m.version >= '0035') continue;
      await fs.mkdir(path.join(dir, path.dirname(m.name)), { recursive: true });
      await fs.writeFile(path.join(dir, m.name), m.sql);
    }
    await migrate(db.pool, dir);
    const batch = new Batch();
    batch.add(orderStatusesTable, status(1, 'open', DAY + 5));
    batch.add(orderStatusesTable, status(1, 'filled', DAY + DAY_MS + 7, '0.0'));
    await inTransaction(db.pool, (client) => batch.write(client));
    const before = await db.pool.query<{ n: string }>(
      `SELECT pg_relation_filenode('accounts.order_statuses')::text AS n`,
    );
    expect(await migrate(db.pool)).toEqual(['accounts/0035_order_status_partitions.sql']);
    const after = await db.pool.query<{ n: string; bound: string }>(
      `SELECT pg_relation_filenode('accounts.order_statuses_before')::text AS n,
              pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = 'accounts.order_statuses_before'::regclass`,
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    expect(after.rows[0]?.bound).toBe(`FOR VALUES FROM (MINVALUE) TO ('${DAY + 2 * DAY_MS}')`);
    expect((await whereRows(db)).map((r) => r.part)).toEqual([
      'accounts.order_statuses_before',
      'accounts.order_statuses_before',
    ]);
    const { rows } = await db.pool.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'order_statuses_before' ORDER BY 1`,
    );
    expect(rows.map((r) => r.indexname)).toEqual([
      'order_statuses_before_address_oid',
      'order_statuses_before_address_time',
      'order_statuses_before_cloid',
    ]);
    // A new day after them is its own partition.
    await write(db, [status(2, 'open', DAY + 3 * DAY_MS)]);
    expect((await whereRows(db)).map((r) => r.part)).toContain('accounts.order_statuses_p20260604');
  });
});
