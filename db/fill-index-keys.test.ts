// Migration 0058 on a database holding fills in several partitions: accounts.fills' time-led indexes rebuilt as
// `(address, time)` and `(time, block_number DESC)`, partition by partition (concurrently, attached), after a run stopped half way (one
// partition's index built and attached, another's build left invalid); the fill pages answering the same, in the same
// order, and a re-run changing nothing.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPage } from '../domains/accounts/service/fill-pages.ts';
import type { Address } from '../platform/fields.ts';
import { createTestDatabase, type TestDatabase } from '../test/db.ts';
import { listMigrations, migrate, statementsOf } from './migrate.ts';
import { DAY_MS, makePartitions, partitionName, periodOf } from './partitions.ts';

const ALICE = '0x00000000000000000000000000000000000a11ce' as Address;
const BOB = '0x0000000000000000000000000000000000000b0b' as Address;
const FILLS = 'accounts.fills';
const MIGRATION = 'accounts/0058_fill_index_keys.sql';

describe('migration 0058: the fills time-led indexes without their tie-breaks', () => {
  let db: TestDatabase;
  let dir: string;
  let now: number;

  const indexesOf = async () =>
    (
      await db.pool.query<{ table: string; def: string; valid: boolean; parent: string | null }>(
        `SELECT t.relname AS table, regexp_replace(pg_get_indexdef(x.indexrelid), '^.* USING btree ', '') AS def,
           x.indisvalid AS valid, p.relname AS parent
           FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid
           LEFT JOIN pg_inherits h ON h.inhrelid = x.indexrelid LEFT JOIN pg_class p ON p.oid = h.inhparent
          WHERE t.oid = 'accounts.fills'::regclass
             OR t.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'accounts.fills'::regclass)
          ORDER BY 1, 2`,
      )
    ).rows;
  const fill = (address: string, time: number, block: number, eventIndex: number, tid: number) =>
    db.pool.query(
      `INSERT INTO accounts.fills (block_number, address, coin, px, sz, side, time, start_position, dir, closed_pnl,
         hash, oid, crossed, fee, tid, fee_token, event_index)
       VALUES ($1, $2, 'BTC', 100, 1, 'B', $3, 0, 'Open Long', 0, $4, $5, true, 0.1, $5, 'USDC', $6)`,
      [block, address, time, `0x${tid.toString(16).padStart(64, '0')}`, tid, eventIndex],
    );
  /** Every page of ALICE's fills (3 a page) in `order`, then every fill of a window by time: their tids. */
  const pages = async (order: 'asc' | 'desc') => {
    const tids: number[][] = [];
    let cursor: string | undefined;
    do {
      const page = await fillPage(db.pool, {
        user: ALICE,
        order,
        limit: 3,
        includeOrderType: false,
        ...(cursor ? { cursor } : {}),
      });
      tids.push(page.rows.map((r) => Number(r.tid)));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return tids;
  };
  const window = async () =>
    (
      await fillPage(db.pool, {
        startTime: now,
        endTime: now + 30 * DAY_MS,
        order: 'desc',
        limit: 100,
        includeOrderType: false,
      })
    ).rows.map((r) => `${r.address.slice(-4)}:${r.tid}`);

  beforeAll(async () => {
    db = await createTestDatabase('template0');
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-migrations-'));
    for (const m of await listMigrations()) {
      if (m.version >= '0058') continue;
      await fs.mkdir(path.join(dir, path.dirname(m.name)), { recursive: true });
      await fs.writeFile(path.join(dir, m.name), m.sql);
    }
    await migrate(db.pool, dir);
    const { rows } = await db.pool.query<{ t: string }>('SELECT (extract(epoch FROM now()) * 1000)::bigint AS t');
    now = Number(rows[0]?.t);
  });
  afterAll(async () => {
    await db?.drop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('rebuilds them per partition after a stop half way; pages answer the same; a re-run changes nothing', async () => {
    // Fills before partitioning (fills_before), and in the two weeks after it ends.
    const weeks = [periodOf(FILLS, now + 7 * DAY_MS), periodOf(FILLS, now + 14 * DAY_MS)];
    await makePartitions(db.pool, new Map([[FILLS, { min: weeks[0]!.start, max: weeks[1]!.start }]]));
    let tid = 1;
    for (const t of [now - DAY_MS, weeks[0]!.start + 1_000, weeks[1]!.start + 2_000]) {
      // At one millisecond: three of ALICE's fills out of execution order by tid, and one of BOB's.
      await fill(ALICE, t, 50, 2, tid++);
      await fill(ALICE, t, 50, 1, tid++);
      await fill(ALICE, t, 49, 7, tid++);
      await fill(BOB, t, 49, 8, tid++);
      await fill(ALICE, t + 1, 51, 0, tid++);
    }
    await db.pool.query(`ANALYZE ${FILLS}`);
    const before = { desc: await pages('desc'), asc: await pages('asc'), window: await window() };
    // Expected by the rows above: time, then block, then event index.
    expect(before.desc[0]).toEqual([15, 13, 12]);
    expect(before.asc[0]).toEqual([3, 2, 1]);

    // A run stopped half way: the parents' new indexes made, the oldest partition's built and attached, and a build
    // on the first week stopped with its index left invalid (a unique build over duplicate times fails so).
    const sql = (await listMigrations()).find((m) => m.name === MIGRATION)?.sql ?? '';
    await db.pool.query(statementsOf({ name: MIGRATION, sql })[0] ?? '');
    const first = partitionName(FILLS, weeks[0]!.start).replace('accounts.', '');
    await db.pool.query(
      'CREATE INDEX CONCURRENTLY fills_before_by_time ON accounts.fills_before (time, block_number DESC)',
    );
    await db.pool.query('ALTER INDEX accounts.fills_time_key ATTACH PARTITION accounts.fills_before_by_time');
    await expect(
      db.pool.query(`CREATE UNIQUE INDEX CONCURRENTLY ${first}_by_time ON accounts.${first} (time)`),
    ).rejects.toThrow(/could not create unique index/);
    const oidOf = async (index: string) =>
      (await db.pool.query<{ oid: number }>('SELECT to_regclass($1)::oid::int AS oid', [index])).rows[0]?.oid;
    const attachedEarly = await oidOf('accounts.fills_before_by_time');

    await fs.copyFile(path.join(import.meta.dirname, 'migrations', MIGRATION), path.join(dir, MIGRATION));
    expect(await migrate(db.pool, dir)).toEqual([MIGRATION]);
    const after = await indexesOf();
    const keyed = after.filter((i) => i.def === '(address, "time")' || i.def === '("time", block_number DESC)');
    // The parent's two and one of each per partition (fills_before, the two weeks, the DEFAULT), all valid, each
    // partition's attached to the parent's; none of the old keys left.
    expect(keyed.filter((i) => i.table === 'fills').map((i) => i.valid)).toEqual([true, true]);
    const parts = [...new Set(after.map((i) => i.table).filter((t) => t !== 'fills'))];
    expect(parts).toHaveLength(4);
    for (const part of parts) {
      expect(keyed.filter((i) => i.table === part).map((i) => [i.def, i.valid, i.parent])).toEqual([
        ['("time", block_number DESC)', true, 'fills_time'],
        ['(address, "time")', true, 'fills_address_time'],
      ]);
    }
    expect(after.filter((i) => i.def.includes('tid DESC') || !i.valid)).toEqual([]);
    // The index built and attached before the stop is kept, not built again.
    expect(await oidOf('accounts.fills_before_by_time')).toBe(attachedEarly);

    expect({ desc: await pages('desc'), asc: await pages('asc'), window: await window() }).toEqual(before);

    // Run again from its first statement (as after a stop before it was recorded): nothing made or dropped.
    const oids = async () =>
      (
        await db.pool.query<{ oid: number }>(
          `SELECT indexrelid::int AS oid FROM pg_index WHERE indrelid = 'accounts.fills'::regclass
              OR indrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'accounts.fills'::regclass)
            ORDER BY 1`,
        )
      ).rows;
    const held = await oids();
    await db.pool.query(`DELETE FROM platform.schema_migrations WHERE name = $1`, [MIGRATION]);
    expect(await migrate(db.pool, dir)).toEqual([MIGRATION]);
    expect(await oids()).toEqual(held);
  });
});
