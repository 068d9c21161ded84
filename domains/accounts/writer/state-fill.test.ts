// The perp account state ingest keeps (migration 0028) against the same state summed and walked from the stored rows
// (accountStateFromRows): on a hand-worked backfill (a position opened in the past, loaded after the present), on
// generated histories (flips, partial and full closes, fills sharing a timestamp, funding, ledger) loaded present
// first and the past after it, once more over the same files (nothing counts twice), and after the fill of history
// stored before the rows existed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNs } from '../../../ingest/files.ts';
import { Ingest } from '../../../ingest/pipeline.ts';
import type { Address } from '../../../platform/fields.ts';
import { ledgerEvent, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash, nodeFill, T0 } from '../../../test/node-files.ts';
import type { FillEvent, MiscEvent } from '../../../wire/node-lines.ts';
import { ZERO_HASH } from '../../../wire/node-lines.ts';
import { type AccountState, accountState, accountStateFromRows } from '../service/state.ts';
import { startWriter } from './index.ts';
import { fillStep, refoldStale } from './state-fill.ts';

const MIN = 60_000;
const HOUR = 3_600_000;
const NOW = T0 + 48 * HOUR;
const MARKS: Record<string, string> = { BTC: '101.5', ETH: '33.3', SOL: '7.77' };

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

let tid = 1;
function fill(user: string, time: number, o: Parameters<typeof nodeFill>[0]): FillEvent {
  tid++;
  return [user, nodeFill({ time, tid, hash: hash(tid), oid: tid, ...o })];
}

function funding(user: string, time: number, coin: string, amount: string): MiscEvent {
  return {
    time: isoNs(time),
    hash: ZERO_HASH,
    inner: { Funding: { deltas: [{ user, coin, funding_amount: amount, szi: '1.0', funding_rate: '0.00001' }] } },
  };
}

/** Loads `files` by a lane of its own (the present: the default lane). */
async function load(files: NodeFiles, lane?: string): Promise<string> {
  const { dataDir, streams } = await files.write();
  await new Ingest({ dataDir, pool: db.pool, streams, lane, log: () => {} }).run();
  return dataDir;
}

const stateOf = (user: Address, from: typeof accountState) =>
  from(db.pool, { user, markPx: (c) => MARKS[c] ?? null, now: NOW });

async function expectKeptEqualsRows(users: Address[]): Promise<AccountState[]> {
  const kept = await Promise.all(users.map((u) => stateOf(u, accountState)));
  const rows = await Promise.all(users.map((u) => stateOf(u, accountStateFromRows)));
  expect(kept).toStrictEqual(rows);
  return kept;
}

const staleCount = async () =>
  Number((await db.pool.query('SELECT count(*) AS n FROM accounts.perp_positions WHERE stale')).rows[0].n);

describe('a position opened in the past, loaded after the present', () => {
  const USER = addr(0xc1);

  it('is walked from its open once the past arrives', async () => {
    // The present: 1.0 BTC held (from before), +1.0 @ 110 → entry 110 (the stated start taken at its price).
    const present = new NodeFiles();
    present.add('node_fills_by_block', T0 + 10 * MIN, [
      fill(USER, T0 + 10 * MIN, { px: '110.0', sz: '1.0', startPosition: '1.0', dir: 'Open Long' }),
    ]);
    present.add('misc_events_by_block', T0 + HOUR, [funding(USER, T0 + HOUR, 'BTC', '-2.0')]);
    await load(present);
    let [state] = await expectKeptEqualsRows([USER]);
    expect(state?.positions.map((p) => [p.entry_px, p.funding, p.opened_at])).toEqual([['110.0', '-2.0', null]]);

    // The past: opened 1.0 @ 100 with a deposit, and funding before the open (not the position's).
    const past = new NodeFiles();
    past.add('misc_events_by_block', T0 - 3 * HOUR, [
      funding(USER, T0 - 3 * HOUR, 'BTC', '-5.0'),
      ledgerEvent(T0 - 3 * HOUR, hash(0x300), [USER], { type: 'deposit', usdc: '500.0' }),
    ]);
    past.add('node_fills_by_block', T0 - 2 * HOUR, [fill(USER, T0 - 2 * HOUR, { px: '100.0', sz: '1.0', fee: '0.5' })]);
    past.add('misc_events_by_block', T0 - HOUR, [funding(USER, T0 - HOUR, 'BTC', '-1.0')]);
    await load(past, 'backfill');
    expect(await staleCount()).toBe(1);
    // Stale: the coin is walked from its fills until the writer walks it again.
    [state] = await expectKeptEqualsRows([USER]);
    expect(state?.positions.map((p) => [p.entry_px, p.funding, p.opened_at])).toEqual([
      ['105.0', '-3.0', '2026-11-22T05:00:00.000'],
    ]);
    // cash: 500 − 0.5 fee − 5 − 1 − 2 funding
    expect(state?.cash).toBe('491.5');

    expect(await refoldStale(db.pool)).toBe(1);
    expect(await staleCount()).toBe(0);
    expect(await expectKeptEqualsRows([USER])).toEqual([state]);
  });
});

describe('the accounts writer beside a backfill', () => {
  const USER = addr(0xc2);

  it('leaves stale positions while a backfill loads, and walks them once it is done', async () => {
    const present = new NodeFiles();
    present.add('node_fills_by_block', T0 + 20 * MIN, [
      fill(USER, T0 + 20 * MIN, { coin: 'SOL', px: '8.0', sz: '2.0', startPosition: '1.0', dir: 'Open Long' }),
    ]);
    // Lanes of their own: the other tests' lanes have read files of the same names.
    await load(present, 'present-beside-writer');
    const past = new NodeFiles();
    past.add('node_fills_by_block', T0 - HOUR, [fill(USER, T0 - HOUR, { coin: 'SOL', px: '6.0', sz: '1.0' })]);
    await load(past, 'backfill-beside-writer');
    expect(await staleCount()).toBe(1);

    let loading = true;
    const writer = startWriter({
      pool: db.pool,
      log: () => {},
      backfill: { complete: () => !loading, loadedUntil: () => null },
      backfillLoading: async () => loading,
      publish: () => {},
    });
    const running = writer.run();
    try {
      // Two of its polls: a walk now would be undone by the backfill's next batch.
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      expect(await staleCount()).toBe(1);
      loading = false;
      const until = Date.now() + 15_000;
      while ((await staleCount()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      expect(await staleCount()).toBe(0);
      const [state] = await expectKeptEqualsRows([USER]);
      // 1.0 @ 6 then +2.0 @ 8: entry (6 + 16) / 3.
      expect(state?.positions.map((p) => [p.coin, p.szi, p.entry_px])).toEqual([['SOL', '3.0', '7.33333333']]);
    } finally {
      await writer.stop();
      await running;
    }
  });
});

// ---- generated histories ----

/** A deterministic stream of numbers in [0, 1). */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const USERS = [addr(0xe1), addr(0xe2), addr(0xe3)];

/**
 * Each user trades BTC, ETH and SOL over 40 hours: blocks of one to three fills of one coin at one timestamp (listed in
 * execution order, or not), sizes that flip, reduce, increase and close to flat, with prices that make repeating
 * entries; funding every hour and a ledger event now and then. The last user only adds to its positions after
 * `split`, so the past, loaded after, lands inside their walks.
 */
function history(split: number): { past: NodeFiles; present: NodeFiles } {
  const rnd = prng(7);
  const past = new NodeFiles();
  const present = new NodeFiles();
  const pos = new Map<string, number>(); // in units of 0.01
  const files = (t: number) => (t < split ? past : present);
  for (let m = 0; m < 40 * 60; m += 7) {
    const t = T0 + m * MIN;
    const events: FillEvent[] = [];
    for (const user of USERS) {
      if (rnd() < 0.4) continue;
      const coin = ['BTC', 'ETH', 'SOL'][Math.floor(rnd() * 3)] as string;
      const key = `${user}${coin}`;
      const n = 1 + Math.floor(rnd() * 3);
      const fills: FillEvent[] = [];
      for (let i = 0; i < n; i++) {
        const start = pos.get(key) ?? 0;
        const r = rnd();
        // Flat sometimes, flipped sometimes, else a random step.
        const step = Math.floor(rnd() * 61) - 30;
        // The last user only adds to what it holds in the present: its positions open in the past.
        const adds = user === USERS[2] && t >= split && start !== 0;
        const delta =
          (adds ? Math.sign(start) * Math.abs(step) : r < 0.1 ? -start : r < 0.2 ? 3 - start * 2 : step) || 7;
        const end = start + delta;
        pos.set(key, end);
        const px = (90 + Math.floor(rnd() * 300) / 3).toFixed(2);
        fills.push(
          fill(user, t, {
            coin,
            px,
            sz: (Math.abs(delta) / 100).toFixed(2),
            side: delta > 0 ? 'B' : 'A',
            startPosition: (start / 100).toFixed(2),
            closedPnl: (rnd() * 10 - 5).toFixed(3),
            fee: (rnd() / 10).toFixed(4),
          }),
        );
      }
      if (rnd() < 0.3) fills.reverse();
      events.push(...fills);
    }
    if (events.length) files(t).add('node_fills_by_block', t, events);
    if (m % 60 === 0) {
      const misc: MiscEvent[] = USERS.flatMap((u) =>
        ['BTC', 'ETH', 'SOL', 'xyz:GOLD'].map((c) => funding(u, t, c, (rnd() * 2 - 1).toFixed(6))),
      );
      if (rnd() < 0.3) {
        const u = USERS[Math.floor(rnd() * USERS.length)] as string;
        misc.push(ledgerEvent(t, hash(0x400 + m), [u], { type: 'deposit', usdc: (rnd() * 1000).toFixed(2) }));
      }
      files(t).add('misc_events_by_block', t, misc);
    }
  }
  return { past, present };
}

/** The kept rows of the generated users, as stored. */
async function keptRows(): Promise<unknown[]> {
  const positions = await db.pool.query(
    'SELECT * FROM accounts.perp_positions WHERE address = ANY($1) ORDER BY address, coin',
    [USERS],
  );
  const cash = await db.pool.query('SELECT * FROM accounts.perp_cash WHERE address = ANY($1) ORDER BY address', [
    USERS,
  ]);
  return [positions.rows, cash.rows];
}

/** Whether the kept numerics equal the refilled ones exactly (by value, in SQL). */
async function expectSameAs(saved: string): Promise<void> {
  const { rows } = await db.pool.query(
    `(SELECT address, coin, last_time, opened_at, pos, entry_n, entry_d, walk_time, walk_block,
        walk_event, walk_tid, stale, funding FROM accounts.perp_positions
      EXCEPT SELECT address, coin, last_time, opened_at, pos, entry_n, entry_d, walk_time, walk_block, walk_event,
        walk_tid, stale, funding FROM ${saved}_positions)
     UNION ALL
     (SELECT address, coin, last_time, opened_at, pos, entry_n, entry_d, walk_time, walk_block, walk_event, walk_tid,
        stale, funding FROM ${saved}_positions
      EXCEPT SELECT address, coin, last_time, opened_at, pos, entry_n, entry_d, walk_time, walk_block, walk_event,
        walk_tid, stale, funding FROM accounts.perp_positions)`,
  );
  expect(rows).toEqual([]);
  const { rows: cash } = await db.pool.query(
    `(SELECT * FROM accounts.perp_cash EXCEPT SELECT * FROM ${saved}_cash)
     UNION ALL (SELECT * FROM ${saved}_cash EXCEPT SELECT * FROM accounts.perp_cash)`,
  );
  expect(cash).toEqual([]);
}

describe('generated histories, the present loaded before the past', () => {
  const { past, present } = history(T0 + 17 * HOUR);

  it('answers as the rows do at every stage, and the fill of older rows sets the same state', async () => {
    const presentDir = await load(present);
    const first = await expectKeptEqualsRows(USERS);
    expect(first.some((s) => s.positions.length > 1)).toBe(true);

    await load(past, 'backfill');
    expect(await staleCount()).toBeGreaterThan(0);
    await expectKeptEqualsRows(USERS);
    await refoldStale(db.pool);
    expect(await staleCount()).toBe(0);
    const all = await expectKeptEqualsRows(USERS);
    expect(all.flatMap((s) => s.positions.map((p) => p.opened_at)).every((t) => t !== null)).toBe(true);

    // A restart over the same files loads nothing again, and nothing counts twice.
    const before = await keptRows();
    await new Ingest({
      dataDir: presentDir,
      pool: db.pool,
      streams: ['node_fills_by_block', 'misc_events_by_block'],
      log: () => {},
    }).run();
    expect(await keptRows()).toEqual(before);

    // As if migrated over these rows: nothing kept yet, the fill to do. Read from the rows meanwhile, then filled.
    await db.pool.query('CREATE TABLE saved_positions AS SELECT * FROM accounts.perp_positions');
    await db.pool.query('CREATE TABLE saved_cash AS SELECT * FROM accounts.perp_cash');
    await db.pool.query('TRUNCATE accounts.perp_positions, accounts.perp_cash');
    await db.pool.query('INSERT INTO accounts.account_state_fill DEFAULT VALUES');
    expect(await Promise.all(USERS.map((u) => stateOf(u, accountState)))).toStrictEqual(all);
    let steps = 0;
    while (await fillStep(db.pool)) {
      steps++;
      await expectKeptEqualsRows(USERS);
    }
    expect(steps).toBeGreaterThanOrEqual(USERS.length);
    expect((await db.pool.query('SELECT * FROM accounts.account_state_fill')).rows).toEqual([]);
    await expectSameAs('saved');
    expect(await expectKeptEqualsRows(USERS)).toStrictEqual(all);
  });
});

describe('a market maker adding to a position for a long time', () => {
  const USER = addr(0xc7);

  it('keeps its entry price to 30 digits, not an exact fraction growing with every increase', async () => {
    // 2 000 buys, never flat, at prices and sizes whose average repeats (thirds, sevenths): an exact fraction would
    // hold thousands of digits.
    const files = new NodeFiles();
    let start = 0;
    for (let i = 0; i < 2000; i++) {
      const sz = (1 + (i % 7) / 3).toFixed(4);
      const px = (100 + (i % 13) / 7).toFixed(5);
      const time = T0 + 11 * HOUR + i;
      files.add('node_fills_by_block', time, [
        fill(USER, time, { coin: 'SOL', px, sz, startPosition: start.toFixed(4), dir: 'Open Long' }),
      ]);
      start = Number((start + Number(sz)).toFixed(4));
    }
    // A lane of its own: the default lane's checkpoint is past these hours (the tests before loaded later ones).
    await load(files, 'entry-scale');
    const [state] = await expectKeptEqualsRows([USER]);
    expect(state?.positions.map((p) => p.coin)).toEqual(['SOL']);
    const { rows } = await db.pool.query<{ n: string; d: string }>(
      `SELECT entry_n::text AS n, entry_d::text AS d FROM accounts.perp_positions WHERE address = $1`,
      [USER],
    );
    expect(rows[0]?.d).toBe('1');
    expect(rows[0]?.n.length).toBeLessThan(40);
  });
});
