// borrowLendUserState on borrowLend ledger updates loaded from hand-made misc_events files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash } from '../../../test/node-files.ts';
import { borrowLendUserState } from './borrow-lend.ts';
import { ledgerEvent, NodeFiles } from './test-support.ts';

const ALICE = addr(0xa1);
const T = Date.UTC(2026, 10, 1);
const MIN = 60_000;

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  const ops: [string, number, string, string][] = [
    ['supply', 0, '1000.0', '0.0'],
    ['borrow', 150, '10.0', '0.0'],
    // Interest accrued on the supply side is credited there, on the borrow side owed there.
    ['withdraw', 0, '200.0', '1.25'],
    ['repay', 150, '4.0', '0.05'],
    ['supply', 0, '50.0', '0.5'],
  ];
  ops.forEach(([operation, token, amount, interestAmount], i) => {
    files.add('misc_events_by_block', T + i * MIN, [
      ledgerEvent(T + i * MIN, hash(i + 1), [ALICE], { type: 'borrowLend', token, operation, amount, interestAmount }),
    ]);
  });
  await files.load(db);
});
afterAll(async () => {
  await db.drop();
});

describe('borrowLendUserState', () => {
  it('sums each side per token with the interest accrued on that side', async () => {
    expect(await borrowLendUserState(db.pool, ALICE)).toStrictEqual({
      tokenToState: [
        [0, { borrow: { basis: '0.0', value: '0.0' }, supply: { basis: '851.75', value: '851.75' } }],
        [150, { borrow: { basis: '6.05', value: '6.05' }, supply: { basis: '0.0', value: '0.0' } }],
      ],
      health: 'healthy',
      healthFactor: null,
    });
  });

  it('is empty for a user without borrow/lend activity', async () => {
    expect((await borrowLendUserState(db.pool, addr(0xb2))).tokenToState).toEqual([]);
  });
});
