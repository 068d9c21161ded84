// userFunding / recentFundings on settlements loaded from hand-made misc_events files, around the coverage start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNs } from '../../../ingest/files.ts';
import { dataCoverage, FUNDING_COVERAGE_START } from '../../../platform/coverage.ts';
import { NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr } from '../../../test/node-files.ts';
import type { MiscEvent } from '../../../wire/node-lines.ts';
import { ZERO_HASH } from '../../../wire/node-lines.ts';
import { accounts } from '../domain.ts';
import { recentFundings, userFunding } from './funding.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const H = 3_600_000;
const C = FUNDING_COVERAGE_START; // 2025-09-27 10:00 UTC

let db: TestDatabase;

function settlement(time: number, deltas: [string, string, string, string][]): MiscEvent {
  return {
    time: isoNs(time, 50_000),
    hash: ZERO_HASH,
    inner: {
      Funding: {
        deltas: deltas.map(([user, coin, amount, szi]) => ({
          user,
          coin,
          funding_amount: amount,
          szi,
          funding_rate: '0.0000125',
        })),
      },
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  files.add('misc_events_by_block', C - H, [settlement(C - H, [[ALICE, 'BTC', '-1.0', '0.5']])]);
  files.add('misc_events_by_block', C, [
    settlement(C, [
      [ALICE, 'BTC', '-1.234567', '0.5'],
      [BOB, 'BTC', '1.234567', '-0.5'],
    ]),
  ]);
  files.add('misc_events_by_block', C + H, [
    settlement(C + H, [
      [ALICE, 'BTC', '-1.3', '0.5'],
      [ALICE, 'ETH', '0.25', '-2.0'],
    ]),
  ]);
  files.add('misc_events_by_block', C + 2 * H, [settlement(C + 2 * H, [[ALICE, 'BTC', '-1.4', '0.5']])]);
  await files.load(db);
});
afterAll(async () => {
  await db.drop();
});

describe('userFunding', () => {
  it('is empty for a window ending before the coverage start, even over stored payments', async () => {
    expect(FUNDING_COVERAGE_START).toBe(Date.UTC(2025, 8, 27, 10));
    const none = await userFunding(db.pool, { user: ALICE, startTime: 0, endTime: C - 1, limit: 500 });
    expect(none).toEqual({ rows: [], cursors: [], hasMore: false, nextCursor: null });
  });

  it('is reported by dataCoverage from the coverage start on, not from the older payment held', async () => {
    const { funding } = (await dataCoverage(db.pool, C + 3 * H, accounts.datasets)).datasets;
    expect(funding).toEqual({ start: C, earliest: C - H, latest: C + 2 * H, delaySeconds: 3600 });
  });

  it("lists payments oldest first in the exchange shape with the spec's top-level fields, bounds inclusive", async () => {
    const entries = await userFunding(db.pool, { user: ALICE, startTime: C, endTime: C + H, limit: 500 });
    expect(entries.hasMore).toBe(false);
    expect(entries.rows).toStrictEqual([
      {
        coin: 'BTC',
        usdc: '-1.234567',
        szi: '0.5',
        time: C,
        hash: ZERO_HASH,
        delta: {
          type: 'funding',
          coin: 'BTC',
          usdc: '-1.234567',
          szi: '0.5',
          fundingRate: '0.0000125',
          nSamples: null,
        },
      },
      {
        coin: 'BTC',
        usdc: '-1.3',
        szi: '0.5',
        time: C + H,
        hash: ZERO_HASH,
        delta: { type: 'funding', coin: 'BTC', usdc: '-1.3', szi: '0.5', fundingRate: '0.0000125', nSamples: null },
      },
      {
        coin: 'ETH',
        usdc: '0.25',
        szi: '-2.0',
        time: C + H,
        hash: ZERO_HASH,
        delta: { type: 'funding', coin: 'ETH', usdc: '0.25', szi: '-2.0', fundingRate: '0.0000125', nSamples: null },
      },
    ]);
  });

  it('keeps the oldest `limit` payments of a window and reaches the latest without endTime', async () => {
    const first = await userFunding(db.pool, { user: ALICE, startTime: C, limit: 2 });
    expect(first.rows.map((e) => [e.time, e.delta.coin])).toEqual([
      [C, 'BTC'],
      [C + H, 'BTC'],
    ]);
    expect(first).toMatchObject({ hasMore: true, nextCursor: `${C + H}:3:BTC` });
    const rest = await userFunding(db.pool, { user: ALICE, startTime: C + H + 1, limit: 500 });
    expect(rest.rows.map((e) => [e.time, e.delta.usdc])).toEqual([[C + 2 * H, '-1.4']]);
    const straddling = await userFunding(db.pool, { user: ALICE, startTime: C - 2 * H, endTime: C, limit: 500 });
    expect(straddling.rows.map((e) => e.time)).toEqual([C]);
    const bob = await userFunding(db.pool, { user: BOB, limit: 500 });
    expect(bob.rows.map((e) => e.delta.usdc)).toEqual(['1.234567']);
  });

  it('without a window gives the newest payments first, and the cursor continues to the coverage start', async () => {
    const first = await userFunding(db.pool, { user: ALICE, limit: 2 });
    expect(first.rows.map((e) => [e.time, e.delta.coin])).toEqual([
      [C + 2 * H, 'BTC'],
      [C + H, 'ETH'],
    ]);
    expect(first).toMatchObject({ hasMore: true, nextCursor: `${C + H}:3:ETH` });
    const rest = await userFunding(db.pool, { user: ALICE, limit: 2, cursor: first.nextCursor as string });
    expect(rest.rows.map((e) => [e.time, e.delta.coin])).toEqual([
      [C + H, 'BTC'],
      [C, 'BTC'],
    ]);
    // The payment held from before the coverage start is never served.
    expect(rest).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('refuses a cursor it did not give, naming it', async () => {
    for (const cursor of ['x', '1:2', 'a:2:BTC', `${C}:99999999999999999999:BTC`, `${C}:3:`]) {
      await expect(userFunding(db.pool, { user: ALICE, limit: 2, cursor })).rejects.toThrow(/^cursor: must be/);
    }
  });
});

describe('recentFundings (userFundings snapshot)', () => {
  it('gives the newest payments, oldest first, in the WebSocket item shape', async () => {
    expect(await recentFundings(db.pool, ALICE, 2)).toStrictEqual([
      { time: C + H, coin: 'ETH', usdc: '0.25', szi: '-2.0', fundingRate: '0.0000125', nSamples: null },
      { time: C + 2 * H, coin: 'BTC', usdc: '-1.4', szi: '0.5', fundingRate: '0.0000125', nSamples: null },
    ]);
    // The payment held from before the coverage start is not in a snapshot.
    expect((await recentFundings(db.pool, ALICE)).map((f) => f.time)).toEqual([C, C + H, C + H, C + 2 * H]);
  });
});
