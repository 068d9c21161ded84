// The count of an operation's field selections: fragments expanded, aliases counted, each fragment counted once.
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fragmentBomb } from '../test/graphql.ts';
import { executedFieldCount } from './graphql-limits.ts';

const count = (text: string) => executedFieldCount(parse(text));

describe('executedFieldCount', () => {
  it('counts every field selected, nested ones and aliases included', () => {
    expect(count('{ allMids { coin mid } }')).toBe(3);
    expect(count('{ a: allMids { coin } b: allMids { coin } }')).toBe(4);
    expect(count('{ market(coin: "BTC") { ... on Market { coin mid } } }')).toBe(3);
  });

  it('expands each spread of a fragment, counting the fragment itself once', () => {
    expect(count('{ ...F ...F } fragment F on Query { allMids { coin } }')).toBe(4);
    // 24 levels, each spreading the next twice, over a last one of 2 fields: 2^23 × 2.
    expect(count(fragmentBomb(24))).toBe(2 ** 24);
    expect(count(fragmentBomb(200))).toBe(2 ** 200);
  });

  it('takes the largest operation of the document, and survives a fragment cycle (validation refuses it)', () => {
    expect(count('query A { allMids { coin } } query B { markets { coin mid } allMids { coin } }')).toBe(5);
    expect(count('{ ...F } fragment F on Query { allMids { coin } ...G } fragment G on Query { ...F }')).toBe(2);
  });
});
