// borrowLendUserState on borrowLend ledger updates loaded from hand-made misc_events files.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEvent, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash } from '../../../test/node-files.ts';
import { borrowLendHealth, borrowLendUserState } from './borrow-lend.ts';

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

  it("computes health from the positions at the reserves' oracle prices and ltv", async () => {
    // Supplied 851.75 USDC (ltv 0.8: capacity 681.4), borrowed 6.05 HYPE.
    const reserves = (hypePx: string) => [
      { token: 0, oraclePx: '1.0', ltv: '0.8' },
      { token: 150, oraclePx: hypePx, ltv: '0.5' },
    ];
    const at = async (hypePx: string) => {
      const s = await borrowLendUserState(db.pool, ALICE, reserves(hypePx));
      return { health: s.health, healthFactor: s.healthFactor };
    };
    expect(await at('20.0')).toEqual({ health: 'healthy', healthFactor: '5.631405' });
    // Debt 6.05 × px against 681.4: the factor crosses 1.1, 1 and 2/3.
    expect((await at('105.0')).health).toBe('atRisk');
    expect((await at('115.0')).health).toBe('marketLiquidatable');
    expect((await at('170.0')).health).toBe('backstopLiquidatable');
  });
});

describe('borrowLendHealth', () => {
  const position = (supply: string, borrow: string) => ({
    borrow: { basis: borrow, value: borrow },
    supply: { basis: supply, value: supply },
  });
  const usdc = [{ token: 0, oraclePx: '1.0', ltv: '0.5' }];

  it("is healthy with a null factor without debt, and at the thresholds' edges", () => {
    expect(borrowLendHealth([[0, position('100.0', '0.0')]], usdc)).toEqual({ health: 'healthy', healthFactor: null });
    expect(borrowLendHealth([], usdc)).toEqual({ health: 'healthy', healthFactor: null });
    // capacity 50: debt 50 / 1.1 → exactly 1.1, healthy; debt 50 → 1.0, atRisk; 75 → 2/3, marketLiquidatable.
    expect(borrowLendHealth([[0, position('100.0', '45.0')]], usdc)).toMatchObject({ health: 'healthy' });
    expect(borrowLendHealth([[0, position('100.0', '50.0')]], usdc)).toEqual({ health: 'atRisk', healthFactor: '1.0' });
    expect(borrowLendHealth([[0, position('100.0', '75.0')]], usdc).health).toBe('marketLiquidatable');
    expect(borrowLendHealth([[0, position('100.0', '75.1')]], usdc).health).toBe('backstopLiquidatable');
  });

  it('leaves a token without a reserve sample out of both sides', () => {
    expect(borrowLendHealth([[7, position('0.0', '1000.0')]], usdc)).toEqual({ health: 'healthy', healthFactor: null });
  });
});
