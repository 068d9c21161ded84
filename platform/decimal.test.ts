import { describe, expect, it } from 'vitest';
import {
  abs,
  add,
  addDecimal,
  cmp,
  compareDecimal,
  div,
  mul,
  mulDecimal,
  neg,
  type Ratio,
  ratio,
  sub,
  toDecimal,
} from './decimal.ts';

describe('decimal strings', () => {
  it('add, multiply and compare exactly', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('1.25', '-2')).toBe('-0.75');
    expect(addDecimal('90000.0', '0.00001')).toBe('90000.00001');
    expect(mulDecimal('2990.0', '0.5')).toBe('1495.00');
    expect(mulDecimal('-0.01', '3')).toBe('-0.03');
    expect(compareDecimal('90000.5', '90000.50')).toBe(0);
    expect(compareDecimal('-1', '0.0001')).toBe(-1);
    expect(compareDecimal('10', '9.99')).toBe(1);
  });
});

describe('exact rationals', () => {
  // The same value as a reduced ratio with no scale: what every operation gave before decimals kept theirs.
  const general = (r: Ratio): Ratio => div(r, { n: 1n, d: 1n });
  const texts = ['0', '0.0', '-0.5', '1', '12.000', '-3.25', '0.0001', '100.5', '-99999.999999', '7', '0.333'];

  it('keeps a decimal read from text at its scale through sums, differences and products', () => {
    expect(ratio('-3.250')).toEqual({ n: -3250n, d: 1000n, s: 3 });
    expect(add(ratio('1.5'), ratio('0.25'))).toEqual({ n: 175n, d: 100n, s: 2 });
    expect(sub(ratio('1.5'), ratio('1.50'))).toEqual({ n: 0n, d: 100n, s: 2 });
    expect(mul(ratio('1.5'), ratio('-0.2'))).toEqual({ n: -30n, d: 100n, s: 2 });
    expect(abs(ratio('-0.20'))).toEqual({ n: 20n, d: 100n, s: 2 });
    // A division is reduced, and a decimal mixed with it takes the general path.
    expect(div(ratio('1'), ratio('3'))).toEqual({ n: 1n, d: 3n });
    expect(add(div(ratio('1'), ratio('3')), ratio('0.5'))).toEqual({ n: 5n, d: 6n });
  });

  it('gives the same values and the same printed text as the general path', () => {
    for (const a of texts) {
      for (const b of texts) {
        const [x, y] = [ratio(a), ratio(b)];
        for (const [fast, slow] of [
          [add(x, y), add(general(x), general(y))],
          [sub(x, y), sub(general(x), general(y))],
          [mul(x, y), mul(general(x), general(y))],
          [neg(x), neg(general(x))],
          [abs(x), abs(general(x))],
        ] as [Ratio, Ratio][]) {
          expect(fast.n * slow.d).toBe(slow.n * fast.d);
          for (const places of [0, 1, 2, 12]) expect(toDecimal(fast, places)).toBe(toDecimal(slow, places));
        }
        expect(cmp(x, y)).toBe(cmp(general(x), general(y)));
      }
    }
    // Rounded half away from zero when the scale is cut: the decimal's own digits beyond `places`.
    expect(toDecimal(ratio('-0.125'), 2)).toBe('-0.13');
    expect(toDecimal(ratio('0.0004'), 3)).toBe('0.0');
    expect(toDecimal(ratio('-0.0004'), 3)).toBe('0.0');
    expect(toDecimal(ratio('-12.500'), 12)).toBe('-12.5');
  });
});
