// The linear scan that finds JSON nested too deep before any parser recurses into it.
import { describe, expect, it } from 'vitest';
import { jsonNestedDeeperThan } from './http-body.ts';

const deeper = (text: string, max: number) => jsonNestedDeeperThan(Buffer.from(text), max);

describe('jsonNestedDeeperThan', () => {
  it('counts arrays and objects alike', () => {
    expect(deeper('{"a":[[1]]}', 3)).toBe(false);
    expect(deeper('{"a":[[[1]]]}', 3)).toBe(true);
    expect(deeper('[{}, {}, [[]]]', 3)).toBe(false);
    expect(deeper(`${'['.repeat(5000)}${']'.repeat(5000)}`, 64)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(deeper(JSON.stringify({ x: '[[[[{{{{' }), 1)).toBe(false);
    expect(deeper(JSON.stringify({ x: 'say \\"[[[[" and "{{{{' }), 1)).toBe(false);
    expect(deeper(JSON.stringify({ 'é€😀[': ['[[['] }), 2)).toBe(false);
  });
});
