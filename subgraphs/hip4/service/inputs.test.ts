// The hip4 page rules the service now leaves to its definitions (it no longer re-checks limit, offset, ids, text or a
// window): the bounds of spec §8 and a page that starts after a cursor or at an offset, not both.
import { describe, expect, it } from 'vitest';
import { ANALYTICS, FILLS, QUESTIONS } from './inputs.ts';

describe('hip4 inputs', () => {
  it('a page: limit and offset bounded and defaulted, a cursor or an offset but not both, named per edge', () => {
    expect(QUESTIONS.parse({})).toMatchObject({ limit: 1000, offset: 0 });
    expect(FILLS.parse({})).toMatchObject({ limit: 100, offset: 0 });
    expect(QUESTIONS.parse({ cursor: '12', offset: 0 }).cursor).toBe('12');
    expect(() => QUESTIONS.parse({ cursor: '12', offset: 5 })).toThrow('cursor: give a cursor or an offset, not both');
    expect(() =>
      FILLS.parse({ after: '1:2:0x0000000000000000000000000000000000000001:A', offset: 1 }, 'graphql'),
    ).toThrow('after: give a cursor or an offset, not both');
    expect(() => QUESTIONS.parse({ limit: 0 })).toThrow('limit: must be an integer from 1 to 1000, got 0');
  });

  it('question id filter at most 10000 (spec §8); analytics at most 2000 buckets (spec §8)', () => {
    expect(QUESTIONS.parse({ questionId: 10_000 }).questionId).toBe(10_000);
    expect(() => QUESTIONS.parse({ questionId: 10_001 })).toThrow('questionId: must be an integer from 0 to 10000');
    expect(ANALYTICS.parse({ limit: 2000 }).limit).toBe(2000);
    expect(() => ANALYTICS.parse({ limit: 2001 })).toThrow('limit: must be an integer from 1 to 2000, got 2001');
  });
});
