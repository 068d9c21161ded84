import { describe, expect, it } from 'vitest';
import { groupsOf } from './groups.ts';

describe('groupsOf', () => {
  it('gathers equal keys, groups in the order of their first row and rows in theirs', () => {
    const rows = [
      { coin: 'ETH', n: 1 },
      { coin: 'BTC', n: 2 },
      { coin: 'ETH', n: 3 },
      { coin: 'SOL', n: 4 },
      { coin: 'BTC', n: 5 },
    ];
    expect(groupsOf(rows, (r) => r.coin).map((g) => g.map((r) => r.n))).toEqual([[1, 3], [2, 5], [4]]);
    expect(groupsOf([], (r: { coin: string }) => r.coin)).toEqual([]);
  });
});
