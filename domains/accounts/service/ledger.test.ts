// userNonFundingLedgerUpdates / recentLedgerUpdates on ledger events loaded from hand-made misc_events files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataCoverage, LEDGER_COVERAGE_START } from '../../../platform/coverage.ts';
import { ledgerEvent, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash } from '../../../test/node-files.ts';
import { accounts } from '../domain.ts';
import type { HistoryPageQuery } from './history-page.ts';
import { recentLedgerUpdates, userNonFundingLedgerUpdates } from './ledger.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const C = LEDGER_COVERAGE_START; // 2025-09-27 09:29 UTC
const MIN = 60_000;

const SEND = {
  type: 'send',
  user: ALICE,
  destination: BOB,
  sourceDex: '',
  destinationDex: 'spot',
  token: 'USDC',
  amount: '25.0',
  usdcValue: '25.0',
  fee: '0.0',
  nativeTokenFee: '0.0',
  nonce: 1759000000000,
  feeToken: '',
};

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  files.add('misc_events_by_block', C - 10 * MIN, [
    ledgerEvent(C - 10 * MIN, hash(1), [ALICE], { type: 'deposit', usdc: '5.0' }),
  ]);
  files.add('misc_events_by_block', C, [ledgerEvent(C, hash(2), [ALICE], { type: 'deposit', usdc: '1000.0' })]);
  files.add('misc_events_by_block', C + MIN, [ledgerEvent(C + MIN, hash(3), [ALICE, BOB], SEND)]);
  files.add('misc_events_by_block', C + 2 * MIN, [
    ledgerEvent(C + 2 * MIN, hash(4), [ALICE], { type: 'withdraw', usdc: '100.0', nonce: 7, fee: '1.0' }),
  ]);
  await files.load(db);
});
afterAll(async () => {
  await db.drop();
});

const rows = (q: HistoryPageQuery) => userNonFundingLedgerUpdates(db.pool, q);

describe('userNonFundingLedgerUpdates', () => {
  it('is empty for a window ending before the coverage start', async () => {
    expect(LEDGER_COVERAGE_START).toBe(Date.UTC(2025, 8, 27, 9, 29));
    const none = await userNonFundingLedgerUpdates(db.pool, { user: ALICE, startTime: 0, endTime: C - 1, limit: 500 });
    expect(none).toEqual({ rows: [], cursors: [], hasMore: false, nextCursor: null });
  });

  it('is reported by dataCoverage from the coverage start on, not from the older entry held', async () => {
    const { ledger } = (await dataCoverage(db.pool, C + 3 * MIN, accounts.datasets)).datasets;
    expect(ledger).toEqual({ start: C, earliest: C - 10 * MIN, latest: C + 2 * MIN, delaySeconds: 60 });
  });

  it('lists entries oldest first as {time, hash, delta}', async () => {
    expect((await rows({ user: ALICE, startTime: C, limit: 500 })).rows).toStrictEqual([
      { time: C, hash: hash(2), delta: { type: 'deposit', usdc: '1000.0' } },
      { time: C + MIN, hash: hash(3), delta: SEND },
      { time: C + 2 * MIN, hash: hash(4), delta: { type: 'withdraw', usdc: '100.0', nonce: 7, fee: '1.0' } },
    ]);
  });

  it('lists a send once for each address involved', async () => {
    const bob = (await rows({ user: BOB, limit: 500 })).rows;
    expect(bob).toStrictEqual([{ time: C + MIN, hash: hash(3), delta: SEND }]);
    const alice = (await rows({ user: ALICE, startTime: C + MIN, endTime: C + MIN, limit: 500 })).rows;
    expect(alice).toStrictEqual(bob);
  });

  it('keeps the oldest `limit` entries of a window, which starts at the coverage start at the earliest', async () => {
    const first = await rows({ user: ALICE, startTime: 0, limit: 2 });
    expect(first.rows.map((e) => e.hash)).toEqual([hash(2), hash(3)]);
    expect(first.hasMore).toBe(true);
    const straddling = await rows({ user: ALICE, startTime: C - 20 * MIN, endTime: C, limit: 500 });
    expect(straddling.rows.map((e) => e.hash)).toEqual([hash(2)]);
  });

  it('without a window gives the newest `limit` entries, newest first, and pages to the coverage start', async () => {
    const first = await rows({ user: ALICE, limit: 2 });
    expect(first.rows.map((e) => e.hash)).toEqual([hash(4), hash(3)]);
    expect(first.hasMore).toBe(true);
    const rest = await rows({ user: ALICE, limit: 2, cursor: first.nextCursor as string });
    // The entry held from before the coverage start is never served.
    expect(rest).toMatchObject({ rows: [{ hash: hash(2) }], hasMore: false, nextCursor: null });
    expect((await rows({ user: ALICE, endTime: C + MIN, limit: 500 })).rows.map((e) => e.hash)).toEqual([
      hash(3),
      hash(2),
    ]);
  });
});

describe('recentLedgerUpdates (channel snapshot)', () => {
  it('gives the newest entries, oldest first', async () => {
    const recent = await recentLedgerUpdates(db.pool, ALICE, 2);
    expect(recent.map((e) => [e.time, e.delta.type])).toEqual([
      [C + MIN, 'send'],
      [C + 2 * MIN, 'withdraw'],
    ]);
    expect(await recentLedgerUpdates(db.pool, BOB)).toHaveLength(1);
    // The entry held from before the coverage start is not in a snapshot either.
    expect((await recentLedgerUpdates(db.pool, ALICE)).map((e) => e.hash)).toEqual([hash(2), hash(3), hash(4)]);
  });
});
