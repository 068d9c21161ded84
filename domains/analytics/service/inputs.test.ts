// The analytics definitions the service now relies on alone (it no longer re-checks an address, a choice or a wallet
// list): what each refuses at its bounds, named as the edge calls the field.
import { describe, expect, it } from 'vitest';
import { BATCH_PERFORMANCE, LEADERBOARD_RANK, ROUND_TRIPS } from './inputs.ts';

const USER = '0xABCDEF0000000000000000000000000000000001';
const wallets = (n: number) => Array.from({ length: n }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);

describe('analytics inputs', () => {
  it('batch performance: 1 to 500 addresses (spec §8), each lowercased, the count named on refusal', () => {
    expect(BATCH_PERFORMANCE.parse({ addresses: [USER] }).users).toEqual([USER.toLowerCase()]);
    expect(BATCH_PERFORMANCE.parse({ addresses: wallets(500) }).users).toHaveLength(500);
    expect(() => BATCH_PERFORMANCE.parse({ addresses: wallets(501) })).toThrow(
      'addresses: must hold 1 to 500 addresses, got 501',
    );
    expect(() => BATCH_PERFORMANCE.parse({ addresses: [] })).toThrow('addresses: must hold 1 to 500 addresses, got 0');
    expect(() => BATCH_PERFORMANCE.parse({ addresses: [USER, '0x12'] })).toThrow('addresses[1]: must be a 0x address');
  });

  it("a user's rank: a scheduled window, pnl by default", () => {
    expect(LEADERBOARD_RANK.parse({ user: USER, window: '7d' }, 'graphql')).toEqual({
      user: USER.toLowerCase(),
      window: '7d',
      by: 'pnl',
    });
    expect(() => LEADERBOARD_RANK.parse({ user: USER, window: '90d' }, 'graphql')).toThrow(
      'window: must be one of 7d, 30d, all, got "90d"',
    );
  });

  it('round trips: 1 to 500, 100 by default, GraphQL calling the page size first', () => {
    expect(ROUND_TRIPS.parse({ user: USER }, 'graphql').limit).toBe(100);
    expect(ROUND_TRIPS.parse({ user: USER, first: 500 }, 'graphql').limit).toBe(500);
    expect(() => ROUND_TRIPS.parse({ user: USER, first: 501 }, 'graphql')).toThrow(
      'first: must be an integer from 1 to 500, got 501',
    );
    expect(() => ROUND_TRIPS.parse({ user: USER, status: 'pending' }, 'graphql')).toThrow(
      'status: must be one of open, closed',
    );
  });
});
