// The derivation job on the hand-written history (test/analytics-history.ts): round trips, daily sums, snapshots and
// builder activity to the cent, and the same tables after a crash in the middle of a batch and a restart, after
// one-fill batches, and after a rebuild.
import { Writable } from 'node:stream';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { completeBackfill, importedBackfills, startBackfill } from '../../../ingest/backfills.ts';
import { Ingest } from '../../../ingest/pipeline.ts';
import { dataCoverage } from '../../../platform/coverage.ts';
import { NodeFiles } from '../../../test/accounts-files.ts';
import {
  ALICE,
  BOB,
  BUILDER,
  D1,
  D2,
  D3,
  type F,
  fillEvent,
  H,
  loadAnalyticsHistory,
  UNTIL,
} from '../../../test/analytics-history.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr } from '../../../test/node-files.ts';
import { storedEventsEnd } from '../../accounts/port.ts';
import { analytics } from '../domain.ts';
import { rankingSums } from '../service/ranking.ts';
import { windowParams, windowRows } from '../service/window.ts';
import { Derivation, type DerivationOptions } from './index.ts';
import { derivedUntil, deriveUntil, resetDerived } from './job.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadAnalyticsHistory(db);
});
afterAll(() => db?.drop());

const TABLES: Record<string, string> = {
  round_trips: 'address, coin, opened_at, open_seq',
  account_snapshots: 'address, time',
  user_daily: 'address, day',
  user_hourly: 'address, hour',
  builder_hourly: 'builder, address, hour',
  account_state: 'address',
  user_totals: 'address',
  marks: 'coin',
  derive_checkpoint: 'job',
};

/** Every derived table as text, in key order (updated_at aside). */
async function dump(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(TABLES)) {
    const { rows } = await pool.query(`SELECT * FROM analytics.${table} ORDER BY ${key}`);
    out[table] = rows.map(({ updated_at: _, ...r }) => r);
  }
  return out;
}

/** A pool whose clients fail the `n`th statement (an insert or a COPY) writing snapshots: a crash mid-batch. */
function crashingPool(pool: pg.Pool, n: number): pg.Pool {
  let seen = 0;
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop !== 'connect') return Reflect.get(target, prop, receiver);
      // pool.query's own connect passes a callback: those clients are left as they are.
      return (...args: unknown[]) => (args.length ? Reflect.apply(target.connect, target, args) : crashing());
      async function crashing() {
        const client = await target.connect();
        return new Proxy(client, {
          get(c, p, r) {
            if (p !== 'query') return Reflect.get(c, p, r);
            return (sql: unknown, ...rest: unknown[]) => {
              const text = typeof sql === 'string' ? sql : (sql as { text?: string }).text;
              if (/^\s*(INSERT INTO|COPY) analytics\.account_snapshots/.test(text ?? '') && ++seen === n) {
                // A COPY (db/copy.ts) is a stream the rows are written to: this one fails on the first.
                if (text?.trimStart().startsWith('COPY')) {
                  return new Writable({ write: (_chunk, _encoding, done) => done(new Error('killed mid-batch')) });
                }
                return Promise.reject(new Error('killed mid-batch'));
              }
              return (c.query as (...a: unknown[]) => unknown)(sql, ...rest);
            };
          },
        });
      }
    },
  });
}

describe('derivation job', () => {
  let clean: Record<string, unknown[]>;

  it('derives the round trips of the history', async () => {
    await resetDerived(db.pool);
    expect(await deriveUntil(db.pool, UNTIL)).toBe(UNTIL);
    clean = await dump(db.pool);
    const { rows } = await db.pool.query(
      `SELECT address, coin, opened_at, closed_at, direction, trim_scale(size)::text AS size, trim_scale(position)::text AS position, trim_scale(entry_px)::text AS entry_px,
         trim_scale(exit_px)::text AS exit_px, trim_scale(notional)::text AS notional, trim_scale(pnl)::text AS pnl, trim_scale(fees)::text AS fees, trim_scale(funding)::text AS funding, trim_scale(leverage)::text AS leverage, fills, status
       FROM analytics.round_trips ORDER BY address, opened_at` /* BOB's address sorts first */,
    );
    const trip = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v]));
    expect(rows.map(trip)).toEqual([
      {
        address: BOB,
        coin: 'ETH',
        opened_at: D1 + 1.5 * H,
        closed_at: D1 + 5 * H,
        direction: 'long',
        size: '10',
        position: '0',
        entry_px: '40',
        exit_px: '45',
        notional: '400',
        pnl: '50',
        fees: '0.85',
        funding: '0',
        leverage: '0.08',
        fills: 2,
        status: 'closed',
      },
      {
        address: ALICE,
        coin: 'BTC',
        opened_at: D1 + H,
        closed_at: D1 + 3 * H,
        direction: 'long',
        size: '1',
        position: '0',
        entry_px: '100',
        exit_px: '120',
        notional: '100',
        pnl: '20',
        fees: '2.2',
        funding: '2',
        // 100 of notional over the 10 000 deposited (the snapshot at 01:00)
        leverage: '0.01',
        fills: 2,
        status: 'closed',
      },
      {
        address: ALICE,
        coin: 'ETH',
        opened_at: D2 + H,
        closed_at: D2 + 4 * H,
        direction: 'short',
        size: '2',
        position: '0',
        entry_px: '51',
        exit_px: '59',
        notional: '102',
        pnl: '-16',
        fees: '1.09',
        funding: '-1.5',
        leverage: expect.any(String),
        fills: 2,
        status: 'closed',
      },
      {
        address: ALICE,
        coin: 'SOL',
        opened_at: D2 + 5 * H,
        closed_at: D3 + H,
        direction: 'long',
        size: '1',
        position: '0',
        entry_px: '10',
        exit_px: '12',
        notional: '10',
        pnl: '2',
        fees: '0.22',
        funding: '0',
        leverage: expect.any(String),
        fills: 2,
        status: 'closed',
      },
      {
        address: ALICE,
        coin: 'SOL',
        opened_at: D3 + H,
        closed_at: null,
        direction: 'short',
        size: '2',
        position: '-1',
        entry_px: '12',
        exit_px: '11.5',
        notional: '24',
        pnl: '0.5',
        fees: '0.36',
        funding: '0',
        leverage: expect.any(String),
        fills: 2,
        status: 'open',
      },
      {
        address: ALICE,
        coin: 'BTC',
        opened_at: D3 + 2 * H,
        closed_at: null,
        direction: 'long',
        size: '1',
        position: '1',
        entry_px: '110',
        exit_px: null,
        notional: '110',
        pnl: '0',
        fees: '0.11',
        funding: '0',
        leverage: expect.any(String),
        fills: 1,
        status: 'open',
      },
    ]);
  });

  it('sums each UTC day', async () => {
    const { rows } = await db.pool.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, fills, trim_scale(volume)::text AS volume, trim_scale(realized_pnl)::text AS realized_pnl, trim_scale(fees)::text AS fees, trim_scale(funding)::text AS funding,
         wins, losses, trips, longs, shorts FROM analytics.user_daily WHERE address = $1 ORDER BY day`,
      [ALICE],
    );
    expect(rows).toEqual([
      {
        day: '2026-11-20',
        fills: 2,
        volume: '220',
        realized_pnl: '20',
        fees: '2.2',
        funding: '2',
        wins: 1,
        losses: 0,
        trips: 1,
        longs: 1,
        shorts: 0,
      },
      {
        day: '2026-11-21',
        fills: 3,
        volume: '230',
        realized_pnl: '-16',
        fees: '1.19',
        funding: '-1.5',
        wins: 0,
        losses: 1,
        trips: 1,
        longs: 1,
        shorts: 1,
      },
      {
        day: '2026-11-22',
        fills: 3,
        volume: '157.5',
        realized_pnl: '2.5',
        fees: '0.59',
        funding: '0',
        wins: 1,
        losses: 0,
        trips: 1,
        longs: 1,
        shorts: 1,
      },
    ]);
  });

  it('snapshots each hour with activity, valued at the last fill price', async () => {
    const { rows } = await db.pool.query(
      `SELECT time, trim_scale(account_value)::text AS account_value, trim_scale(cash)::text AS cash, trim_scale(position_value)::text AS position_value, trim_scale(unrealized_pnl)::text AS unrealized_pnl,
         trim_scale(account_leverage)::text AS account_leverage, n_positions FROM analytics.account_snapshots WHERE address = $1 ORDER BY time`,
      [ALICE],
    );
    // Hours with an event: D1 00, 01, 02, 03; D2 01, 02, 04, 05; D3 01, 02, 03.
    expect(rows.map((r) => r.time)).toEqual([
      D1 + H,
      D1 + 2 * H,
      D1 + 3 * H,
      D1 + 4 * H,
      D2 + 2 * H,
      D2 + 3 * H,
      D2 + 5 * H,
      D2 + 6 * H,
      D3 + 2 * H,
      D3 + 3 * H,
      D3 + 4 * H,
    ]);
    // At D1 04:00: 10 000 − 1 + 2 + 20 − 1.2 and flat.
    expect(rows[3]).toMatchObject({ account_value: '10019.8', cash: '10019.8', position_value: '0', n_positions: 0 });
    // At D3 04:00: cash 10019.8 − 18.69 − 0.1 + 2 − 0.36 − 0.11 + 0.5 − 0.12 = 10003.02; BTC 1 long at 110 (mark 110),
    // SOL −1 short from 12 at the mark 11.5: +0.5.
    expect(rows.at(-1)).toMatchObject({
      cash: '10003.02',
      unrealized_pnl: '0.5',
      account_value: '10003.52',
      position_value: '121.5',
      n_positions: 2,
    });
  });

  it('sums builder activity per wallet and hour', async () => {
    const { rows } = await db.pool.query(
      `SELECT builder, hour, fills, trim_scale(notional)::text AS notional, coins FROM analytics.builder_hourly WHERE address = $1
       ORDER BY hour`,
      [ALICE],
    );
    expect(rows.filter((r) => r.builder === BUILDER)).toEqual([
      { builder: BUILDER, hour: D1 + H, fills: 1, notional: '100', coins: ['BTC'] },
      { builder: BUILDER, hour: D3 + 2 * H, fills: 1, notional: '110', coins: ['BTC'] },
    ]);
    expect(rows.filter((r) => r.builder === '').map((r) => r.hour)).toEqual([
      D1 + 3 * H,
      D2 + 4 * H,
      D2 + 5 * H,
      D3 + H,
      D3 + 3 * H,
    ]);
  });

  it('gives the same tables in one-fill batches, after a crash mid-batch and a restart, and after a rebuild', async () => {
    await resetDerived(db.pool);
    expect(await deriveUntil(db.pool, UNTIL, 1)).toBe(UNTIL);
    expect(await dump(db.pool)).toEqual(clean);

    await resetDerived(db.pool);
    await expect(deriveUntil(crashingPool(db.pool, 3), UNTIL, 2)).rejects.toThrow('killed mid-batch');
    const stoppedAt = await derivedUntil(db.pool);
    expect(stoppedAt).toBeGreaterThan(D1);
    expect(stoppedAt).toBeLessThan(UNTIL);
    await deriveUntil(db.pool, UNTIL, 2);
    expect(await dump(db.pool)).toEqual(clean);

    // The rebuild command's steps: every stored event (the last hour not closed yet), then on to the same point.
    await resetDerived(db.pool);
    const stored = (await storedEventsEnd(db.pool)) as number;
    expect(stored).toBe(D3 + 3 * H + 1);
    await deriveUntil(db.pool, stored);
    await deriveUntil(db.pool, UNTIL);
    expect(await dump(db.pool)).toEqual(clean);
  });
});

describe('closed trips', () => {
  it('counts a trip closed at exactly zero net PnL as a trade, neither a win nor a loss', async () => {
    // CAROL: BTC 1 @ 100 → 1 @ 100, no fees or funding: net 0 (a breakeven); then ETH 1 @ 10 → 1 @ 12, fee 0.1
    // each: pnl 2, net 1.8 (a win). By hand: 2 trades, 1 win, 0 losses, win rate 1 / 2.
    const own = await createTestDatabase();
    try {
      const CAROL = addr(0xca201);
      const files = new NodeFiles();
      const fills: F[] = [
        { user: CAROL, t: D1 + H, coin: 'BTC', side: 'B', px: '100', sz: '1', start: '0', fee: '0' },
        { user: CAROL, t: D1 + 2 * H, coin: 'BTC', side: 'A', px: '100', sz: '1', start: '1', pnl: '0', fee: '0' },
        { user: CAROL, t: D1 + 3 * H, coin: 'ETH', side: 'B', px: '10', sz: '1', start: '0', fee: '0.1' },
        { user: CAROL, t: D1 + 4 * H, coin: 'ETH', side: 'A', px: '12', sz: '1', start: '1', pnl: '2', fee: '0.1' },
      ];
      for (const f of fills) files.add('node_fills_by_block', f.t, [fillEvent(f)]);
      await files.load(own);
      await deriveUntil(own.pool, D2);
      const daily = await own.pool.query('SELECT wins, losses, trips FROM analytics.user_daily WHERE address = $1', [
        CAROL,
      ]);
      expect(daily.rows).toEqual([{ wins: 1, losses: 0, trips: 2 }]);
      const ranked = await own.pool.query(
        `SELECT trades, wins, losses, win_rate::text FROM (${rankingSums(windowRows(1, 'true'))}) s`,
        windowParams({ from: D1, to: D2 }),
      );
      expect(ranked.rows).toEqual([{ trades: 2, wins: 1, losses: 0, win_rate: '0.500000' }]);
    } finally {
      await own.drop();
    }
  });
});

/** A Derivation run as npm start runs it, its clock at UNTIL, until it has ranked the leaderboards; then stopped. */
async function deriveUntilRanked(opts: Omit<DerivationOptions, 'now' | 'pollMs'>): Promise<Derivation> {
  const derivation = new Derivation({ pollMs: 50, now: () => UNTIL, ...opts });
  const running = derivation.run();
  try {
    await vi.waitFor(() => expect(derivation.stats.refreshed.all).toBe(UNTIL), { timeout: 10_000 });
  } finally {
    await derivation.stop();
    await running;
  }
  return derivation;
}

describe('Derivation (as npm start runs it)', () => {
  it('with no ingest beside it, derives every stored event, ranks once caught up, and reports its lag', async () => {
    await resetDerived(db.pool);
    await deriveUntilRanked({ pool: db.pool });
    // The newest event is the fill at D3 03:00: everything up to it is derived (the truth tests follow ingest).
    expect(await derivedUntil(db.pool)).toBe(D3 + 3 * H + 1);
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM analytics.leaderboard WHERE window_name = 'all'`,
    );
    expect(rows[0].n).toBe(2);
    const coverage = (await dataCoverage(db.pool, UNTIL, analytics.datasets)).datasets;
    expect(coverage.analyticsDerivation).toEqual({
      start: D3 + 3 * H + 1,
      earliest: D3 + 3 * H + 1,
      latest: D3 + 3 * H + 1,
      delaySeconds: Math.round((UNTIL - (D3 + 3 * H + 1)) / 1000),
    });
  });

  it('includes an archive import older than its checkpoint: derives again from the first event, ranks it', async () => {
    const own = await createTestDatabase();
    try {
      await loadAnalyticsHistory(own);
      await deriveUntil(own.pool, UNTIL);
      const before = await own.pool.query('SELECT * FROM analytics.user_daily ORDER BY address, day');
      // An import (a lane of its own, as `npm run import` loads one) of a day before everything derived: EARLY's
      // BTC long 1 @ 100 → 1 @ 104, fees 0.1 each: pnl 4, volume 204.
      const EARLY = addr(0xea41);
      const files = new NodeFiles();
      const early: F[] = [
        { user: EARLY, t: D1 - 3 * H, coin: 'BTC', side: 'B', px: '100', sz: '1', start: '0', fee: '0.1' },
        { user: EARLY, t: D1 - 2 * H, coin: 'BTC', side: 'A', px: '104', sz: '1', start: '1', pnl: '4', fee: '0.1' },
      ];
      for (const f of early) files.add('node_fills_by_block', f.t, [fillEvent(f)]);
      const { dataDir, streams } = await files.write();
      await startBackfill(own.pool, 'archive', D1 - 2 * H);
      await new Ingest({ dataDir, pool: own.pool, streams, lane: 'archive/20261119', log: () => {} }).run();
      await completeBackfill(own.pool, 'archive', D1 - 3 * H);

      const lines: string[] = [];
      const run = () =>
        deriveUntilRanked({
          pool: own.pool,
          imports: () => importedBackfills(own.pool),
          log: (line) => lines.push(line),
        });
      await run();
      expect(lines).toEqual([expect.stringMatching(/^analytics: archive loaded events from 2026-11-19T21:00:00.000Z/)]);
      expect(await derivedUntil(own.pool)).toBe(D3 + 3 * H + 1);
      const board = await own.pool.query(
        `SELECT address, trim_scale(volume)::text AS volume FROM analytics.leaderboard WHERE window_name = 'all' ORDER BY address`,
      );
      // BOB 400 + 450, ALICE 607.5 (the ranking tests), EARLY 100 + 104.
      expect(board.rows).toEqual([
        { address: BOB, volume: '850' },
        { address: EARLY, volume: '204' },
        { address: ALICE, volume: '607.5' },
      ]);
      const after = await own.pool.query(
        'SELECT * FROM analytics.user_daily WHERE address <> $1 ORDER BY address, day',
        [EARLY],
      );
      // The history's own days are derived to the same rows (updated_at aside).
      const strip = (rows: Record<string, unknown>[]) => rows.map(({ updated_at: _, ...r }) => r);
      expect(strip(after.rows)).toEqual(strip(before.rows));
      // Included once: a restart does not derive it again.
      await run();
      expect(lines).toHaveLength(1);
    } finally {
      await own.drop();
    }
  });

  it('logs a batch that fails, keeps the service up and tries again from the checkpoint', async () => {
    await resetDerived(db.pool);
    const lines: string[] = [];
    const derivation = await deriveUntilRanked({
      pool: crashingPool(db.pool, 1),
      failureRetryMs: 50,
      log: (line) => lines.push(line),
    });
    expect(derivation.stats.failures).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^analytics derivation failed \(killed mid-batch\); retrying/)]);
    expect(await derivedUntil(db.pool)).toBe(D3 + 3 * H + 1);
  });
});
