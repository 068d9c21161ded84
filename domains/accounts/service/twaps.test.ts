// twapHistory on TWAP statuses loaded from hand-made node files: the user's status changes oldest first, an error's
// message kept, another user's left out; the exchange's record (time in seconds, status object); User.twapHistory.

import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNs } from '../../../ingest/files.ts';
import { addressValue } from '../../../platform/fields.ts';
import { accountsOver, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, T0 } from '../../../test/node-files.ts';
import type { TwapStatusEvent } from '../../../wire/node-lines.ts';
import { accountsSchema } from '../schema/index.ts';
import { toTwapHistoryItem, twapHistory } from './twaps.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);

const state = (user: string, executedSz: string, executedNtl: string) => ({
  coin: 'BTC',
  user,
  side: 'B' as const,
  sz: '0.5',
  executedSz,
  executedNtl,
  minutes: 30,
  reduceOnly: false,
  randomize: true,
  timestamp: T0,
});

const event = (ms: number, twapId: number, s: TwapStatusEvent['state'], status: TwapStatusEvent['status']) => ({
  time: isoNs(ms, 123_456),
  twap_id: twapId,
  state: s,
  status,
});

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  await new NodeFiles()
    .add('node_twap_statuses_by_block', T0, [event(T0, 7, state(ALICE, '0.0', '0.0'), 'activated')])
    .add('node_twap_statuses_by_block', T0 + 1_500, [
      event(T0 + 1_500, 8, state(BOB, '0.0', '0.0'), 'activated'),
      event(T0 + 1_500, 9, state(ALICE, '0.0', '0.0'), { error: 'Insufficient margin to place order.' }),
    ])
    .add('node_twap_statuses_by_block', T0 + 1_800_999, [
      event(T0 + 1_800_999, 7, state(ALICE, '0.5', '45012.5'), 'finished'),
    ])
    .load(db);
}, 60_000);
afterAll(async () => {
  await db?.drop();
});

describe('twapHistory', () => {
  it("lists the user's status changes oldest first, as stored from the node lines", async () => {
    const changes = await twapHistory(db.pool, addressValue(ALICE.toUpperCase().replace('0X', '0x'), 'user'));
    expect(changes.map((c) => [c.twapId, c.time, c.status, c.error])).toEqual([
      [7, T0, 'activated', null],
      [9, T0 + 1_500, 'error', 'Insufficient margin to place order.'],
      [7, T0 + 1_800_999, 'finished', null],
    ]);
    expect(changes[2]?.state).toEqual(state(ALICE, '0.5', '45012.5'));
    expect(await twapHistory(db.pool, addr(0xc3))).toEqual([]);
  });

  it("writes the exchange's record: time in seconds, the status an object, an error's message its description", async () => {
    const [first, error, last] = (await twapHistory(db.pool, ALICE)).map(toTwapHistoryItem);
    expect(first).toStrictEqual({
      time: Math.floor(T0 / 1000),
      state: { ...state(ALICE, '0.0', '0.0'), stopPx: null, trigger: null },
      status: { status: 'activated' },
      twapId: 7,
    });
    expect(error?.status).toStrictEqual({ status: 'error', description: 'Insufficient margin to place order.' });
    expect(last?.time).toBe(Math.floor((T0 + 1_800_999) / 1000));
  });

  it('answers User.twapHistory', async () => {
    const result = await graphql({
      schema: accountsSchema,
      source: `{ user(address: "${ALICE}") { twapHistory { time twapId status error state {
        coin side sz executedSz executedNtl minutes reduceOnly randomize startedAt user } } } }`,
      contextValue: { accounts: accountsOver(db.pool) },
    });
    expect(result.errors).toBeUndefined();
    const list = JSON.parse(JSON.stringify(result.data)).user.twapHistory;
    expect(list).toHaveLength(3);
    expect(list[2]).toEqual({
      time: T0 + 1_800_999,
      twapId: '7',
      status: 'finished',
      error: null,
      state: {
        coin: 'BTC',
        side: 'B',
        sz: '0.5',
        executedSz: '0.5',
        executedNtl: '45012.5',
        minutes: 30,
        reduceOnly: false,
        randomize: true,
        startedAt: T0,
        user: ALICE,
      },
    });
  });
});
