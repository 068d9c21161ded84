import { describe, expect, it } from 'vitest';
import { addDecimal, compareDecimal, mulDecimal } from './decimal.ts';

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
