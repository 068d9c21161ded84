// platform.partition_table (migration 0053), the one conversion of a table to partitions, as used for trades (0054),
// funding payments (0055) and account snapshots (0056): on a database holding rows before, every row kept where it
// was (renamed and attached, not rewritten), reads answering the same, a re-run a no-op, a run stopped half way
// resumed; then trades and funding by week, made by ingest and the upkeep, and frozen once closed.

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recentFundings } from '../domains/accounts/service/funding.ts';
import { tradesOf } from '../domains/markets/service/market-data.ts';
import { Batch } from '../ingest/batch.ts';
import { DEFAULT_RETENTION } from '../platform/config.ts';
import type { Address } from '../platform/fields.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { listMigrations, migrate } from './migrate.ts';
import { DAY_MS, dayOf, keepPartitions, makePartitions, partitionName, periodOf } from './partitions.ts';
import { inTransaction } from './pool.ts';
import { fundingPaymentsTable } from './rows/accounts.ts';
import { tradesTable } from './rows/markets.ts';

const ALICE = '0x00000000000000000000000000000000000a11ce' as Address;
const BOB = '0x0000000000000000000000000000000000000b0b' as Address;
const TRADES = 'markets.trades';
const FUNDING = 'accounts.funding_payments';
const SNAPSHOTS = 'analytics.account_snapshots';
const retention = { ...DEFAULT_RETENTION };

const trade = (tid: number, time: number, px: string, coin = 'BTC') => ({
  block_number: tid,
  seq: 0,
  time,
  coin,
  side: 'B' as const,
  px,
  sz: '1.0',
  hash: `0x${tid.toString(16).padStart(64, '0')}`,
  tid,
  buyer: ALICE,
  seller: BOB,
  fees: '0.1',
});
const payment = (time: number, usdc: string, address = ALICE) => ({
  block_number: time / 1000,
  time,
  address,
  coin: 'ETH',
  usdc,
  szi: '2.0',
  funding_rate: '0.0000125',
});

describe('platform.partition_table on a database holding rows', () => {
  let db: TestDatabase;
  let dir: string;
  let today: number;
  const filenode = async (table: string) =>
    (await db.pool.query<{ n: string }>('SELECT pg_relation_filenode($1)::text AS n', [table])).rows[0]?.n;
  const bound = async (partition: string) =>
    (
      await db.pool.query<{ bound: string }>(
        'SELECT pg_get_expr(relpartbound, oid) AS bound FROM pg_class WHERE oid = $1::regclass',
        [partition],
      )
    ).rows[0]?.bound;
  const where = async (table: string) =>
    (
      await db.pool.query<{ part: string; n: number }>(
        `SELECT tableoid::regclass::text AS part, count(*)::int AS n FROM ${table} GROUP BY 1 ORDER BY 1`,
      )
    ).rows;
  const partitions = async (table: string) =>
    (
      await db.pool.query<{ name: string }>(
        `SELECT c.oid::regclass::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
          WHERE i.inhparent = $1::regclass ORDER BY 1`,
        [table],
      )
    ).rows.map((r) => r.name);
  const indexes = async (table: string) =>
    (
      await db.pool.query<{ def: string }>(
        `SELECT indexname || ' ' || regexp_replace(indexdef, '^.* USING btree ', '') AS def FROM pg_indexes
          WHERE schemaname || '.' || tablename = $1 ORDER BY 1`,
        [table],
      )
    ).rows.map((r) => r.def);

  beforeAll(async () => {
    db = await createTestDatabase('template0');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
    // The schema as it was before 0054: the procedure there, the tables not partitioned yet.
    for (const m of await listMigrations()) {
      if (m.version > '0053') continue;
      await fs.mkdir(path.join(dir, path.dirname(m.name)), { recursive: true });
      await fs.writeFile(path.join(dir, m.name), m.sql);
    }
    await migrate(db.pool, dir);
    const { rows } = await db.pool.query<{ t: string }>('SELECT (extract(epoch FROM now()) * 1000)::bigint AS t');
    today = dayOf(Number(rows[0]?.t));
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps every row where it was, reads answering the same; a re-run is a no-op', async () => {
    const before = new Batch();
    // Three days of BTC trades and one ETH, written as ingest writes them (COPY).
    for (const t of [
      trade(1, today - 2 * DAY_MS + 1_000, '100.0'),
      trade(2, today - DAY_MS + 2_000, '101.5'),
      trade(3, today + 3_000, '99.0'),
      trade(4, today + 4_000, '3000.0', 'ETH'),
    ]) {
      before.add(tradesTable, t);
    }
    for (const p of [
      payment(today - DAY_MS, '-1.25'),
      payment(today - DAY_MS + 3_600_000, '0.5'),
      payment(today, '2.0'),
      payment(today, '7.0', BOB),
    ]) {
      before.add(fundingPaymentsTable, p);
    }
    await inTransaction(db.pool, (c) => before.write(c));
    await db.pool.query(
      `INSERT INTO analytics.account_snapshots (address, time, account_value, cash, position_value, unrealized_pnl,
         n_positions) VALUES ($1, $2, 1000, 1000, 0, 0, 0), ($1, $3, 1010, 1000, 0, 10, 0)`,
      [ALICE, today - DAY_MS + 3_600_000, today],
    );
    // A stop after the first step of the funding's conversion: its bound added (here a day later than the
    // procedure's own), not validated yet. The run resumes from it.
    const upto = today + 3 * DAY_MS;
    await db.pool.query(
      `ALTER TABLE ${FUNDING} ADD CONSTRAINT funding_payments_before_bound CHECK (time < ${upto}) NOT VALID`,
    );

    const btc = { coin: 'BTC', limit: 10 };
    const readTrades = () => tradesOf(db.pool, btc);
    const readWindow = () => tradesOf(db.pool, { ...btc, startTime: today - DAY_MS, endTime: today + 3_000 });
    const readFunding = () => recentFundings(db.pool, ALICE);
    const tradesBefore = await readTrades();
    const windowBefore = await readWindow();
    const fundingBefore = await readFunding();
    // Hand-worked: BTC's trades newest first; the window holds trades 2 and 3; ALICE's three payments oldest first.
    expect(tradesBefore.map((t) => [t.tid, t.px])).toEqual([
      [3, '99.0'],
      [2, '101.5'],
      [1, '100.0'],
    ]);
    expect(windowBefore.map((t) => t.tid)).toEqual([3, 2]);
    expect(fundingBefore.map((f) => [f.time, f.usdc])).toEqual([
      [today - DAY_MS, '-1.25'],
      [today - DAY_MS + 3_600_000, '0.5'],
      [today, '2.0'],
    ]);
    const nodes = {
      trades: await filenode(TRADES),
      funding: await filenode(FUNDING),
      snapshots: await filenode(SNAPSHOTS),
    };

    expect(await migrate(db.pool)).toEqual(
      expect.arrayContaining([
        'markets/0054_trade_partitions.sql',
        'accounts/0055_funding_partitions.sql',
        'analytics/0056_snapshot_partitions.sql',
      ]),
    );
    // Renamed and attached: the same files, every row in the partition of the history before.
    expect(await filenode(`${TRADES}_before`)).toBe(nodes.trades);
    expect(await filenode(`${FUNDING}_before`)).toBe(nodes.funding);
    expect(await filenode(`${SNAPSHOTS}_before`)).toBe(nodes.snapshots);
    expect(await where(TRADES)).toEqual([{ part: `${TRADES}_before`, n: 4 }]);
    expect(await where(FUNDING)).toEqual([{ part: `${FUNDING}_before`, n: 4 }]);
    expect(await where(SNAPSHOTS)).toEqual([{ part: `${SNAPSHOTS}_before`, n: 2 }]);
    expect(await bound(`${TRADES}_before`)).toBe(`FOR VALUES FROM (MINVALUE) TO ('${today + 2 * DAY_MS}')`);
    expect(await bound(`${FUNDING}_before`)).toBe(`FOR VALUES FROM (MINVALUE) TO ('${upto}')`);
    expect(await partitions(TRADES)).toEqual([`${TRADES}_before`, `${TRADES}_default`]);
    // The indexes (and the snapshots' key) are the parent's, the old ones attached as the partition's.
    expect(await indexes(TRADES)).toEqual(['trades_coin_time (coin, "time")', 'trades_time ("time")']);
    expect(await indexes(`${TRADES}_before`)).toEqual([
      'trades_before_coin_time (coin, "time")',
      'trades_before_time ("time")',
    ]);
    expect(await indexes(FUNDING)).toEqual([
      'funding_payments_address_time (address, "time")',
      'funding_payments_coin_time (coin, "time")',
    ]);
    expect(await indexes(SNAPSHOTS)).toEqual(['account_snapshots_pkey (address, "time")']);
    expect(await indexes(`${SNAPSHOTS}_before`)).toEqual(['account_snapshots_before_pkey (address, "time")']);
    const { rows: key } = await db.pool.query(
      `SELECT contype FROM pg_constraint WHERE conrelid = '${SNAPSHOTS}'::regclass AND contype = 'p'`,
    );
    expect(key).toEqual([{ contype: 'p' }]);
    // The table's own CHECK constraint carried to the parent (a side other than A or B is refused).
    await expect(
      db.pool.query(`INSERT INTO ${TRADES} SELECT block_number, seq, time, coin, 'X', px, sz, hash, tid,
      buyer, seller, fees FROM ${TRADES} LIMIT 1`),
    ).rejects.toThrow(/trades_side_check/);

    expect(await readTrades()).toEqual(tradesBefore);
    expect(await readWindow()).toEqual(windowBefore);
    expect(await readFunding()).toEqual(fundingBefore);

    // Again: nothing to do.
    expect(await migrate(db.pool)).toEqual([]);
    await db.pool.query(`CALL platform.partition_table('${TRADES}')`);
    expect(await partitions(TRADES)).toEqual([`${TRADES}_before`, `${TRADES}_default`]);
    expect(await filenode(`${TRADES}_before`)).toBe(nodes.trades);
    expect(await readTrades()).toEqual(tradesBefore);
  });

  it('refuses a table whose unique key lacks the partition key, before changing anything', async () => {
    await db.pool.query('CREATE TABLE platform.keyed (id int PRIMARY KEY, time bigint NOT NULL)');
    await expect(db.pool.query(`CALL platform.partition_table('platform.keyed')`)).rejects.toThrow(
      /keyed_pkey \(PRIMARY KEY \(id\)\) cannot be carried to partitions by time/,
    );
    const { rows } = await db.pool.query(
      `SELECT relkind, (SELECT count(*)::int FROM pg_constraint WHERE conrelid = c.oid AND contype = 'c') AS checks
         FROM pg_class c WHERE oid = 'platform.keyed'::regclass`,
    );
    expect(rows).toEqual([{ relkind: 'r', checks: 0 }]);
  });

  it('lands new weeks of trades and funding in their own partitions, made by ingest and the upkeep; freezes a closed one', async () => {
    // Ingest: a batch makes the weeks it holds before its transaction.
    const later = periodOf(TRADES, today + 21 * DAY_MS);
    const batch = new Batch();
    batch.add(tradesTable, trade(10, later.start + 5, '105.0'));
    batch.add(fundingPaymentsTable, payment(later.start + 3_600_000, '1.0'));
    await makePartitions(db.pool, batch.periods);
    await inTransaction(db.pool, (c) => batch.write(c));
    // The upkeep: the weeks from its present to two days on, whatever writes into them.
    const upkeepNow = later.end + 14 * DAY_MS + 1;
    await keepPartitions(db.pool, { now: upkeepNow, retention });
    const next = periodOf(TRADES, upkeepNow);
    await db.pool.query(
      `INSERT INTO ${TRADES} (block_number, seq, time, coin, side, px, sz, hash, tid, buyer, seller, fees)
       VALUES (11, 0, $1, 'BTC', 'A', 106, 1, '0x', 11, NULL, NULL, 0)`,
      [upkeepNow + 60_000],
    );
    await db.pool.query(
      `INSERT INTO ${FUNDING} (block_number, time, address, coin, usdc, szi, funding_rate)
       VALUES (1, $1, $2, 'ETH', 3, 2, 0.00001)`,
      [upkeepNow + 3_600_000, ALICE],
    );
    expect(partitionName(TRADES, later.start)).toMatch(/^markets\.trades_w\d{8}$/);
    expect(new Date(later.start).getUTCDay()).toBe(1);
    expect(await where(TRADES)).toEqual([
      { part: `${TRADES}_before`, n: 4 },
      { part: partitionName(TRADES, later.start), n: 1 },
      { part: partitionName(TRADES, next.start), n: 1 },
    ]);
    expect(await where(FUNDING)).toEqual([
      { part: `${FUNDING}_before`, n: 4 },
      { part: partitionName(FUNDING, later.start), n: 1 },
      { part: partitionName(FUNDING, next.start), n: 1 },
    ]);
    // The week closed more than a day before the upkeep ran was frozen, with every row; the next round finds it done.
    const { rows } = await db.pool.query<{ parent: string; partition: string }>(
      'SELECT parent, partition FROM platform.frozen_partitions WHERE parent = ANY($1) ORDER BY 1',
      [[TRADES, FUNDING]],
    );
    expect(rows).toEqual([
      { parent: FUNDING, partition: partitionName(FUNDING, later.start) },
      { parent: TRADES, partition: partitionName(TRADES, later.start) },
    ]);
    const again = await keepPartitions(db.pool, { now: upkeepNow, retention });
    expect(again.frozen).toEqual([]);
    expect((await tradesOf(db.pool, { coin: 'BTC', limit: 2 })).map((t) => t.tid)).toEqual([11, 10]);
    expect((await recentFundings(db.pool, ALICE)).map((f) => f.usdc)).toEqual(['-1.25', '0.5', '2.0', '1.0', '3']);
  });
});
