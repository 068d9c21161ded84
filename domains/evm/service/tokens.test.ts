// The holders page written from Postgres's text computes `balance` and `share` from the digits (tokens.ts
// wholeTokensOfText, shareOfText): the same doubles as the bigint arithmetic of the service's page, on random
// balances of every length and on the quotients that sit next to an integer, where the double shortcut gives way.
import { describe, expect, it } from 'vitest';
import { shareOf, shareOfText, wholeTokens, wholeTokensOfText } from './tokens.ts';

/** A deterministic generator (mulberry32), so that a failure repeats. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rnd = random(33);
const digits = (n: number) => {
  let s = String(1 + Math.floor(rnd() * 9));
  for (let i = 1; i < n; i++) s += String(Math.floor(rnd() * 10));
  return s;
};

describe('balance and share from the digits', () => {
  it('equal the bigint arithmetic for random balances of 1 to 40 digits and 0 to 24 decimals', () => {
    for (let i = 0; i < 5_000; i++) {
      const raw = digits(1 + Math.floor(rnd() * 40));
      const decimals = Math.floor(rnd() * 25);
      const total = BigInt(raw) + BigInt(digits(1 + Math.floor(rnd() * 42)));
      expect([raw, decimals, wholeTokensOfText(raw, decimals, Number(`1e${decimals}`))]).toEqual([
        raw,
        decimals,
        wholeTokens(BigInt(raw), decimals),
      ]);
      expect([raw, total, shareOfText(raw, total, Number(total))]).toEqual([raw, total, shareOf(BigInt(raw), total)]);
    }
  });

  it('equal it where the quotient is an integer or just beside one, and for the whole supply', () => {
    const total = 3n * 10n ** 30n + 7n;
    for (const q of [1n, 333333333333n, 500000000000n, 999999999999n]) {
      // The balances whose share * 1e12 is just under, at and just over the integer q.
      const at = (q * total) / 10n ** 12n;
      for (const raw of [at - 1n, at, at + 1n, at + 10n ** 15n]) {
        expect(shareOfText(raw.toString(), total, Number(total))).toBe(shareOf(raw, total));
      }
    }
    expect(shareOfText(total.toString(), total, Number(total))).toBe(1);
    expect(shareOfText('5', 0n, 0)).toBe(0);
  });
});
